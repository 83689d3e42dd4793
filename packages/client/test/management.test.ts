import { afterEach, describe, expect, it } from 'vitest';
import { createManagementClient, ManagementError } from '../src/index.js';
import { paginator } from '../src/paginate.js';
import { createTopic, type Platform, startPlatform } from './support/emulator.js';
import { type Received, type Reply, rejectionOf, startTestServer, type TestServer } from './support/http-server.js';

let platform: Platform;
let server: TestServer;
afterEach(async () => {
  await platform?.close();
  await server?.close();
});

/** The query of each request the test server received, as an object. */
const queries = () =>
  server.received.map((r) => Object.fromEntries(new URL(r.path, 'http://x').searchParams.entries()));

/** A test server answering each GET with `page(query)`, and a management client of it. */
async function listing(page: (query: URLSearchParams, request: Received) => Reply) {
  server = await startTestServer((request) => page(new URL(request.path, 'http://x').searchParams, request));
  return createManagementClient({ baseUrl: server.url, auth: { token: 't' } });
}

/** Items 1..total served page by page, `size` per page. */
const slice = (query: URLSearchParams, total: number, number = 'page', size = 'per_page') => {
  const perPage = Number(query.get(size));
  const start = (Number(query.get(number)) - 1) * perPage;
  return Array.from({ length: Math.max(0, Math.min(perPage, total - start)) }, (_, i) => ({ id: start + i + 1 }));
};

async function all<T>(items: AsyncIterable<T>): Promise<T[]> {
  const list: T[] = [];
  for await (const item of items) list.push(item);
  return list;
}

describe('paginate against the emulator', () => {
  it('reads every topic page by page ({ data, count }) and stops at the count', async () => {
    platform = await startPlatform();
    const ids = [];
    for (let i = 0; i < 5; i++) ids.push(await createTopic(platform));
    platform.sent.length = 0;
    const topics = await all(platform.management.paginate('/api/event_streams/topics', { pageSize: 2 }));
    expect(topics.map((t) => t.id)).toEqual(ids);
    const lists = platform.sent.filter((s) => s.path === '/api/event_streams/topics');
    expect(lists).toHaveLength(3);
  });

  it('reads the API keys of an API client (a path parameter) and stops after a short page', async () => {
    platform = await startPlatform();
    const { data: apiClient } = await platform.management.POST('/api/v2/api_clients', { body: { name: 'billing' } });
    const api_client_id = apiClient?.data.id ?? 0;
    for (const name of ['a', 'b', 'c', 'd']) {
      await platform.management.POST('/api/v2/api_clients/{api_client_id}/api_keys', {
        params: { path: { api_client_id } },
        body: { name },
      });
    }
    const keys = platform.management.paginate('/api/v2/api_clients/{api_client_id}/api_keys', {
      params: { path: { api_client_id } },
      pageSize: 3,
    });
    expect((await all(keys)).map((k) => k.name)).toEqual(['a', 'b', 'c', 'd']);
  });

  it('throws a ManagementError for an error answer', async () => {
    platform = await startPlatform();
    const keys = platform.management.paginate('/api/v2/api_clients/{api_client_id}/api_keys', {
      params: { path: { api_client_id: 999_999 } },
    });
    const error = await rejectionOf<ManagementError>(all(keys));
    expect(error).toBeInstanceOf(ManagementError);
    expect(error.status).toBe(404);
    expect(error.message).toMatch(/^GET \/api\/v2\/api_clients\/\{api_client_id\}\/api_keys failed with 404/);
  });
});

describe('paginate by the generated table', () => {
  it('sends page and per_page (the largest page size by default) and keeps the other query parameters', async () => {
    const management = await listing((query) => ({ status: 200, json: { items: slice(query, 3) } }));
    const recipes = await all(management.paginate('/api/recipes', { params: { query: { folder_id: 4 } } }));
    expect(recipes).toEqual([{ id: 1 }, { id: 2 }, { id: 3 }]);
    expect(queries()).toEqual([{ folder_id: '4', page: '1', per_page: '100' }]);
  });

  it('reads a bare array answer until an empty page', async () => {
    const management = await listing((query) => ({ status: 200, json: slice(query, 4) }));
    expect(await all(management.paginate('/api/folders', { pageSize: 2 }))).toHaveLength(4);
    expect(queries().map((q) => q.page)).toEqual(['1', '2', '3']);
  });

  it('finds the one array of an answer the spec does not describe, and refuses to guess between two', async () => {
    const management = await listing(() => ({ status: 200, json: { result: [{ id: 1 }], note: 'x' } }));
    expect(await all(management.paginate('/api/tags', { pageSize: 2 }))).toEqual([{ id: 1 }]);
    await server.close();
    const ambiguous = await listing(() => ({ status: 200, json: { a: [1], b: [2] } }));
    await expect(all(ambiguous.paginate('/api/tags'))).rejects.toThrow(
      'GET /api/tags: cannot find the list of items in the answer',
    );
  });

  it('follows the page[number] / page[size] style and a `total` count', async () => {
    const management = await listing((query) => ({
      status: 200,
      json: {
        data: slice(query, 5, 'page[number]', 'page[size]').map(({ id }) => ({ id: String(id) })),
        total: 5,
        page: {},
      },
    }));
    const grants = paginator(management, () => new Error('unexpected'), {
      '/api/projects/{id}/project_grants': {
        style: 'page',
        page: 'page[number]',
        size: 'page[size]',
        maxSize: 2,
        items: 'data',
        total: 'total',
      },
    })('/api/projects/{id}/project_grants', { params: { path: { id: 7 } } });
    expect((await all(grants)).map((g) => g.id)).toEqual(['1', '2', '3', '4', '5']);
    expect(queries()).toEqual([
      { 'page[number]': '1', 'page[size]': '2' },
      { 'page[number]': '2', 'page[size]': '2' },
      { 'page[number]': '3', 'page[size]': '2' },
    ]);
    expect(server.received[0]?.path).toMatch(/^\/api\/projects\/7\/project_grants\?/);
  });

  it('follows a page[after] cursor: the id of the last item read', async () => {
    const management = await listing((query) => {
      const after = Number(query.get('page[after]') ?? 0);
      const data = [after + 1, after + 2].filter((id) => id <= 5).map((id) => ({ id }));
      return { status: 200, json: { data, total: data.length } };
    });
    const logs = paginator(management, () => new Error('unexpected'), {
      '/api/activity_logs': {
        style: 'cursor',
        page: 'page[after]',
        size: 'page[size]',
        maxSize: 2,
        items: 'data',
        total: null,
      },
    })('/api/activity_logs');
    expect((await all(logs)).map((l) => (l as { id: number }).id)).toEqual([1, 2, 3, 4, 5]);
    expect(queries()).toEqual([
      { 'page[size]': '2' },
      { 'page[after]': '2', 'page[size]': '2' },
      { 'page[after]': '4', 'page[size]': '2' },
    ]);
  });
});

describe('throwOnError', () => {
  it('returns data for a success and throws a typed ManagementError for an error answer', async () => {
    platform = await startPlatform();
    const management = createManagementClient({
      baseUrl: platform.emulator.url,
      auth: platform.tokens,
      throwOnError: true,
    });
    const topic = await createTopic(platform);
    const { data } = await management.GET('/api/event_streams/topics/{topic_id}', {
      params: { path: { topic_id: topic } },
    });
    expect(data.id).toBe(topic);
    const error = await rejectionOf<ManagementError>(
      management.GET('/api/event_streams/topics/{topic_id}', { params: { path: { topic_id: 999_999 } } }),
    );
    expect(error).toBeInstanceOf(ManagementError);
    expect(error.is(404) && error.body.message).toMatch(/999999/);
    expect(error.response?.status).toBe(404);
  });

  it('throws only after the retries', async () => {
    let reads = 0;
    server = await startTestServer((request) =>
      request.method === 'GET' && ++reads > 1
        ? { status: 200, json: { id: 1 } }
        : { status: 500, json: { message: 'busy' } },
    );
    const management = createManagementClient({
      baseUrl: server.url,
      auth: { token: 't' },
      throwOnError: true,
      retry: { sleep: async () => undefined },
    });
    const { data } = await management.GET('/api/event_streams/topics/{topic_id}', {
      params: { path: { topic_id: 1 } },
    });
    expect(data).toEqual({ id: 1 });
    const refused = await rejectionOf<ManagementError>(
      management.DELETE('/api/event_streams/topics/{topic_id}', { params: { path: { topic_id: 1 } } }),
    );
    expect(refused.message).toBe('DELETE /api/event_streams/topics/{topic_id} failed with 500: busy');
    expect(server.received.map((r) => r.method)).toEqual(['GET', 'GET', 'DELETE']); // a write is not resent
  });
});
