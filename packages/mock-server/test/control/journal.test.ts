// The request journal over HTTP: what an entry holds (credentials masked), the filters, the size
// bound, verification with near misses and waiting, and the live feed.
import { describe, expect, it } from 'vitest';
import { type AnsweredRequest, Journal } from '../../src/control/journal.js';
import { control, emulatorErrorOf, verificationFailureOf } from '../support/control/emulator-api.js';
import { call, start, token, withTopic } from '../support/helpers.js';

describe('the request journal', () => {
  it('keeps each answered request with its operation, client ID, bodies and status; credentials masked', async () => {
    const { server, accessToken, topicId, publish } = await withTopic();
    expect((await publish({ order_id: 'A-1' })).status).toBe(201);
    const form = await fetch(`${server.url}/oauth2/token`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({
        grant_type: 'client_credentials',
        client_id: server.clientId,
        client_secret: server.clientSecret,
      }),
    });
    expect(form.status).toBe(200);
    const key = await call(server, 'create_api_key', {
      token: accessToken,
      params: { api_client_id: 1 },
      body: { name: 'ci', scopes: ['event_streams:publish'] },
    });
    expect(key.status).toBe(200);

    const { body } = await control(server, 'list_requests');
    expect(body.total).toBe(5);
    const [jsonToken, createTopic, published, formToken, createdKey] = body.requests;
    expect(published).toMatchObject({
      method: 'POST',
      path: `/api/v1/topics/${topicId}/publish`,
      query: {},
      operation: 'publish_message',
      api: 'event-streams',
      client_id: server.clientId,
      request: { body: { order_id: 'A-1' }, headers: { authorization: 'Bearer ***' } },
      response: { status: 201, body: { message_id: expect.any(String) } },
    });
    expect(published?.duration_ms).toBeGreaterThanOrEqual(0);
    expect(Date.parse(published?.time ?? '')).toBeGreaterThan(Date.now() - 60_000);
    expect(createTopic?.operation).toBe('create_topic');
    // A token request is authenticated by the credentials it carries; the secret and the token are masked.
    for (const tokenRequest of [jsonToken, formToken]) {
      expect(tokenRequest).toMatchObject({
        operation: 'request_access_token',
        api: 'auth',
        client_id: server.clientId,
        request: { body: { client_id: server.clientId, client_secret: '***' } },
        response: { status: 200, body: { access_token: '***', token_type: 'bearer' } },
      });
    }
    expect(createdKey?.response.body).toMatchObject({ data: { auth_token: '***' } });
    const everything = JSON.stringify(body);
    for (const credential of [
      server.clientSecret,
      accessToken,
      (key.body as { data: { auth_token: string } }).data.auth_token,
    ]) {
      expect(everything).not.toContain(credential);
    }
    // Ids increase in answer order; one entry is read by its id.
    expect(body.requests.map((entry) => entry.id)).toEqual([1, 2, 3, 4, 5]);
    expect((await control(server, 'get_request', { params: { id: 3 } })).body).toEqual(published);
    const missing = await control(server, 'get_request', { params: { id: 99 } });
    expect([missing.status, emulatorErrorOf(missing).message]).toEqual([404, 'No journal entry 99']);
  });

  it('journals refused and unknown requests too, but not its own endpoints', async () => {
    const server = await start();
    expect((await fetch(`${server.url}/api/v1/topics/1/publish`, { method: 'POST' })).status).toBe(401);
    expect((await fetch(`${server.url}/nowhere?x=1&x=2`)).status).toBe(404);
    expect((await fetch(`${server.url}/oauth2/token`, { method: 'GET' })).status).toBe(405);
    await control(server, 'get_clock');
    const { body } = await control(server, 'list_requests');
    expect(
      body.requests.map((entry) => [entry.method, entry.path, entry.operation, entry.api, entry.response.status]),
    ).toEqual([
      ['POST', '/api/v1/topics/1/publish', 'publish_message', 'event-streams', 401],
      ['GET', '/nowhere', null, null, 404],
      ['GET', '/oauth2/token', null, 'auth', 405],
    ]);
    expect(body.requests[1]?.query).toEqual({ x: ['1', '2'] });
    expect(body.requests[0]?.client_id).toBeNull();
  });

  it('filters by operation, method, path (exact or prefix*), status, client ID and after; limit and total', async () => {
    const { server, publish } = await withTopic();
    for (const order_id of ['A', 'B', 'C']) await publish({ order_id });
    await publish({ wrong: true });
    const list = async (query: Record<string, string | number>) =>
      (await control(server, 'list_requests', { query })).body;
    expect((await list({ operation: 'publish_message' })).total).toBe(4);
    expect((await list({ operation: 'publish_message', status: 400 })).total).toBe(1);
    expect((await list({ method: 'post', path: '/api/v1/*' })).total).toBe(4);
    expect((await list({ path: '/api/event_streams/topics' })).total).toBe(1);
    expect((await list({ path: '/api/v1' })).total).toBe(0);
    expect((await list({ client_id: server.clientId })).total).toBe(6);
    expect((await list({ client_id: 'someone-else' })).total).toBe(0);
    const page = await list({ operation: 'publish_message', limit: 2 });
    expect([page.total, page.requests.length]).toEqual([4, 2]);
    const rest = await list({ operation: 'publish_message', after: page.requests[1]?.id ?? 0 });
    expect(rest.requests.map((entry) => entry.request.body)).toEqual([{ order_id: 'C' }, { wrong: true }]);
    const bad = await control(server, 'list_requests', { query: { limit: 1001 } });
    expect(bad.status).toBe(400);
    expect(emulatorErrorOf(bad).errors?.[0]?.pointer).toBe('/limit');
  });

  it('keeps the first 64 KiB of a longer body, as text', async () => {
    const { server, publish } = await withTopic();
    const order_id = 'x'.repeat(100_000);
    expect((await publish({ order_id })).status).toBe(201);
    const [entry] = (await control(server, 'list_requests', { query: { operation: 'publish_message' } })).body.requests;
    const kept = entry?.request.body;
    expect(typeof kept).toBe('string');
    expect(Buffer.byteLength(kept as string)).toBe(64 * 1024);
    expect((kept as string).startsWith('{"order_id":"xxx')).toBe(true);
  });

  it('keeps bodies and answers in any script exactly, and cuts one of 3-byte characters at 64 KiB', async () => {
    const { server, accessToken, publish } = await withTopic();
    const order_id = 'Zürich–東京 🚚';
    expect((await publish({ order_id })).status).toBe(201);
    const folder = await call(server, 'create_folder', { token: accessToken, body: { name: 'Ærø – 東京' } });
    expect(folder.status).toBe(200);
    expect((await publish({ order_id: '東'.repeat(30_000) })).status).toBe(201);
    const { requests } = (await control(server, 'list_requests')).body;
    const [small, created, long] = requests.filter((entry) =>
      ['publish_message', 'create_folder'].includes(entry.operation ?? ''),
    );
    expect(small?.request.body).toEqual({ order_id });
    expect(created?.response.body).toMatchObject({ name: 'Ærø – 東京' });
    const kept = long?.request.body as string;
    expect(Buffer.byteLength(kept)).toBeLessThanOrEqual(64 * 1024);
    expect(Buffer.byteLength(kept)).toBeGreaterThan(64 * 1024 - 3);
    expect(kept).toMatch(/^\{"order_id":"東+$/);
  });

  it('keeps the last --journal-size entries, empties on DELETE, and is off with 0', async () => {
    const { server, publish } = await withTopic({ journalSize: 3 });
    for (const order_id of ['A', 'B', 'C', 'D']) await publish({ order_id });
    const kept = (await control(server, 'list_requests')).body;
    expect(kept.requests.map((entry) => entry.request.body)).toEqual([
      { order_id: 'B' },
      { order_id: 'C' },
      { order_id: 'D' },
    ]);
    expect((await control(server, 'clear_requests')).status).toBe(204);
    expect((await control(server, 'list_requests')).body).toEqual({ requests: [], total: 0 });
    await publish({ order_id: 'E' });
    const after = (await control(server, 'list_requests')).body.requests;
    expect(after.map((entry) => entry.id)).toEqual([7]);

    const off = await withTopic({ journalSize: 0 });
    await off.publish({ order_id: 'A' });
    expect((await control(off.server, 'list_requests')).body).toEqual({ requests: [], total: 0 });
  });
});

describe('verification', () => {
  it('answers 200 with the matching requests when the count holds', async () => {
    const { server, publish } = await withTopic();
    await publish({ order_id: 'A-1', customer: { id: 7, email: 'a@example.com' } });
    await publish({ order_id: 'A-2' });
    const verified = await control(server, 'verify_requests', {
      body: { match: { operation: 'publish_message', body: { customer: { id: 7 } } }, count: { min: 1, max: 1 } },
    });
    expect(verified.status).toBe(200);
    expect(verified.body?.matched).toBe(1);
    expect(verified.body?.requests[0]?.request.body).toMatchObject({ order_id: 'A-1' });
    const none = await control(server, 'verify_requests', {
      body: { match: { operation: 'delete_topic' }, count: { min: 0, max: 0 } },
    });
    expect(none.status).toBe(200);
  });

  it('answers 409 with at most three near misses, each naming what differed', async () => {
    const { server, publish } = await withTopic();
    for (const order_id of ['A-1', 'A-2', 'A-3', 'A-4']) await publish({ order_id });
    const failed = await control(server, 'verify_requests', {
      body: { match: { operation: 'publish_message', status: 201, body: { order_id: 'NOPE' } } },
    });
    expect(failed.status).toBe(409);
    const failure = verificationFailureOf(failed);
    expect(failure.matched).toBe(0);
    expect(failure.message).toBe(
      'Expected at least 1 request matching {"operation":"publish_message","status":201,"body":{"order_id":"NOPE"}}; 0 requests match',
    );
    expect(failure.near_misses.map((miss) => miss.differences)).toEqual([
      ["body.order_id: 'A-4', want 'NOPE'"],
      ["body.order_id: 'A-3', want 'NOPE'"],
      ["body.order_id: 'A-2', want 'NOPE'"],
    ]);
    const tooMany = await control(server, 'verify_requests', {
      body: { match: { operation: 'publish_message' }, count: { max: 2 } },
    });
    expect([tooMany.status, verificationFailureOf(tooMany).matched]).toEqual([409, 4]);
    const absent = verificationFailureOf(
      await control(server, 'verify_requests', {
        body: { match: { operation: 'publish_message', body: { total: 1 } } },
      }),
    );
    expect(absent.near_misses[0]?.differences).toEqual(['body.total: absent, want 1']);
  });

  it('waits up to wait_ms for the requests to come', async () => {
    const { server, publish } = await withTopic();
    const waiting = control(server, 'verify_requests', {
      body: { match: { operation: 'publish_message', body: { order_id: 'LATE' } }, wait_ms: 30_000 },
    });
    // The verification is waiting once the journal is read; the publish then satisfies it.
    await control(server, 'list_requests');
    await publish({ order_id: 'LATE' });
    const answer = await waiting;
    expect([answer.status, answer.body?.matched]).toEqual([200, 1]);
  });

  it('refuses a malformed verification with a 400', async () => {
    const server = await start();
    for (const body of [{ wait_ms: 30_001 }, { match: { nope: 1 } }, { count: { min: -1 } }]) {
      const answer = await control(server, 'verify_requests', { body });
      expect(answer.status, JSON.stringify(body)).toBe(400);
      expect(emulatorErrorOf(answer).message).toMatch(/Request body is invalid/);
    }
    const notJson = await fetch(`${server.url}/_emulator/requests/verify`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: '{',
    });
    expect(notJson.status).toBe(400);
  });
});

describe('the live feed', () => {
  it('sends each answered request as an event: request with the entry as data', async () => {
    const { server, publish } = await withTopic();
    const stream = await fetch(`${server.url}/_emulator/requests/stream`);
    expect([stream.status, stream.headers.get('content-type')]).toEqual([200, 'text/event-stream; charset=utf-8']);
    const reader = (stream.body as ReadableStream<Uint8Array>).getReader();
    const decoder = new TextDecoder();
    await publish({ order_id: 'LIVE' });
    let text = '';
    while (!/event: request\nid: \d+\ndata: .*\n\n/.test(text)) {
      text += decoder.decode((await reader.read()).value, { stream: true });
    }
    const [, id, data] = /event: request\nid: (\d+)\ndata: (.*)\n\n/.exec(text) ?? [];
    const entry = JSON.parse(data ?? '{}');
    expect(entry).toMatchObject({
      id: Number(id),
      operation: 'publish_message',
      request: { body: { order_id: 'LIVE' } },
    });
    await reader.cancel();
  });
});

describe('the emulator API', () => {
  it('answers bad input to every endpoint with a status it declares, never a 500', async () => {
    const server = await start();
    const bad = [
      { body: '{', type: 'application/json' },
      { body: '[1,2]', type: 'application/json' },
      { body: 'x=1', type: 'application/x-www-form-urlencoded' },
      { body: `{"a":"${'x'.repeat(70_000)}"}`, type: 'application/json' },
    ];
    const targets = [
      ['POST', '/_emulator/faults'],
      ['PUT', '/_emulator/state'],
      ['POST', '/_emulator/requests/verify'],
      ['PUT', '/_emulator/clock'],
      ['GET', '/_emulator/requests?limit=abc&status=x&after=-1'],
      ['GET', '/_emulator/requests/abc'],
      ['GET', '/_emulator/spec/..%2Fpackage.json'],
      ['POST', '/_emulator/topics/1/messages'],
      ['GET', '/_emulator/topics/0/messages?limit=0'],
      ['POST', '/_emulator/resources/folder'],
      ['DELETE', '/_emulator/resources/folder/1?parent=x'],
    ];
    for (const [method, path] of targets) {
      for (const { body, type } of bad) {
        const hasBody = method !== 'GET';
        const answer = await fetch(`${server.url}${path}`, {
          method,
          headers: hasBody ? { 'content-type': type } : {},
          body: hasBody ? body : undefined,
        });
        const text = await answer.text();
        expect([400, 404, 413], `${method} ${path} ${body.slice(0, 20)}: ${text.slice(0, 200)}`).toContain(
          answer.status,
        );
        expect(JSON.parse(text).message).toEqual(expect.any(String));
      }
    }
  });

  it('serves the loaded bundles, answers 405 with Allow and 400 in its EmulatorError shape', async () => {
    const server = await start();
    for (const api of ['event-streams', 'auth', 'management', 'emulator']) {
      const answer = await control(server, 'get_spec', { params: { api } });
      expect(answer.status).toBe(200);
      expect(answer.body?.openapi).toBe('3.1.0');
    }
    const unknown = await control(server, 'get_spec', { params: { api: 'billing' } });
    expect([unknown.status, emulatorErrorOf(unknown).errors?.[0]?.pointer]).toEqual([400, '/api']);
    const clock = await fetch(`${server.url}/_emulator/clock`, { method: 'POST' });
    expect([clock.status, clock.headers.get('allow')]).toEqual([405, 'GET, HEAD, PUT, DELETE']);
    expect(await clock.json()).toEqual({
      message: 'This path has no POST operation; it allows GET, HEAD, PUT, DELETE',
    });
    const wrongType = await fetch(`${server.url}/_emulator/clock`, { method: 'PUT', body: '{}' });
    expect(wrongType.status).toBe(400);
    expect(await token(server)).toEqual(expect.any(String));
  });
});

describe("the journal's memory", () => {
  const request = (id: number, body: Buffer): AnsweredRequest => ({
    method: 'POST',
    url: `/api/v1/batch/topics/1/publish?n=${id}`,
    operationId: 'publish_messages',
    api: 'event-streams',
    rawHeaders: ['Content-Type', 'application/json'],
    body,
    clientId: 'ci',
    status: 201,
    replyJson: '{"message_ids":[]}',
    receivedAt: 0,
    durationMs: 1,
  });

  it("keeps the request's headers as node read them (a byte past ASCII is its character) and the reply's own", () => {
    const journal = new Journal(10);
    journal.record({
      ...request(1, Buffer.from('{"a":1}')),
      rawHeaders: ['Content-Type', 'application/json', 'X-Name', 'caf\u00e9 \u00ff', 'x-name', 'second'],
      status: 429,
      replyHeaders: { 'Retry-After': '7', Allow: 'GET, POST' },
    });
    journal.record({ ...request(2, Buffer.alloc(0)), rawHeaders: [], replyJson: '' });
    const [first, second] = journal.list({}, 10).requests;
    expect(first?.request.headers).toEqual({
      'content-type': 'application/json',
      'x-name': 'caf\u00e9 \u00ff, second',
    });
    expect(first?.response).toMatchObject({
      status: 429,
      headers: { 'content-type': expect.any(String), 'retry-after': '7', allow: 'GET, POST' },
      body: { message_ids: [] },
    });
    expect(first).toMatchObject({ method: 'POST', path: '/api/v1/batch/topics/1/publish', client_id: 'ci' });
    expect(second?.request).toEqual({ headers: {}, body: null });
    expect(second?.response).toEqual({ status: 201, headers: {}, body: null });
  });

  it("shows each slot's newest request once the ring has come round, even where the older one was read", () => {
    const journal = new Journal(3);
    const record = (id: number) => journal.record(request(id, Buffer.from(`{"n":${id}}`)));
    const listed = () => journal.list({}, 10).requests.map((entry) => [entry.id, entry.query.n, entry.request.body]);
    for (let id = 1; id <= 3; id++) record(id);
    expect(listed()).toEqual([
      [1, '1', { n: 1 }],
      [2, '2', { n: 2 }],
      [3, '3', { n: 3 }],
    ]);
    record(4);
    record(5);
    expect(journal.get(1)).toBeUndefined();
    expect(listed()).toEqual([
      [3, '3', { n: 3 }],
      [4, '4', { n: 4 }],
      [5, '5', { n: 5 }],
    ]);
    journal.clear();
    expect(journal.list({}, 10)).toEqual({ requests: [], total: 0 });
    record(6);
    expect(listed()).toEqual([[6, '6', { n: 6 }]]);
  });

  it('drops the oldest requests once its chunks hold more than its bytes, however few it holds', () => {
    const journal = new Journal(10_000, 16 * 1024 * 1024);
    const body = Buffer.from(JSON.stringify({ messages: ['x'.repeat(60_000)] }));
    for (let id = 1; id <= 1_000; id++) journal.record(request(id, body));
    const { requests, total } = journal.list({}, 1_000);
    // 16 MiB of 60 KB requests, give or take a chunk.
    expect(total).toBeGreaterThan(190);
    expect(total).toBeLessThan(300);
    expect(requests.at(-1)?.query).toEqual({ n: '1000' });
    expect(requests.map((entry) => entry.id)).toEqual(requests.map((_, i) => 1_001 - total + i));
    expect(journal.get(1)).toBeUndefined();
    expect(journal.get(1_000)?.request.body).toEqual({ messages: ['x'.repeat(60_000)] });
  });
});
