import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import {
  MATCHES as LINTED_MATCHES,
  OP_KINDS as LINTED_OP_KINDS,
  vocabulary,
} from '../../../spec/plugins/emulator-vocabulary.js';
import { createResourceEngine } from '../src/engine/engine.js';
import { customHandlers, derivationHooks } from '../src/engine/handlers.js';
import { MATCHES, OP_KINDS } from '../src/engine/vocabulary.js';
import { EMITTED_ERROR_CODES } from '../src/index.js';
import {
  assertSchema,
  call,
  createTopic,
  errorOf,
  exampleBody,
  exampleParameter,
  managementErrorOf,
  type OperationId,
  ORDER_SCHEMA,
  rawExchange,
  specs,
  start,
  token,
} from './support/helpers.js';

describe('topic management', () => {
  it('creates, lists, gets, updates and deletes topics, in both the current and the legacy form', async () => {
    const server = await start();
    const admin = await token(server);
    for (const prefix of ['', 'legacy_'] as const) {
      const created = await call(server, `${prefix}create_topic`, {
        token: admin,
        body: { name: `${prefix}orders`, schema: ORDER_SCHEMA },
      });
      expect(created.body).toMatchObject({ name: `${prefix}orders`, retention: 604800, description: null });
      const id = created.body.id;
      const updated = await call(server, `${prefix}update_topic`, {
        token: admin,
        params: { topic_id: id },
        body: { retention: 3600, description: 'd' },
      });
      expect(updated.body).toMatchObject({ id, retention: 3600, description: 'd', name: `${prefix}orders` });
      expect((await call(server, `${prefix}get_topic`, { token: admin, params: { topic_id: id } })).body).toEqual(
        updated.body,
      );
      const listed = await call(server, `${prefix}list_topics`, { token: admin, query: { per_page: 1 } });
      expect(listed.body.count).toBe(prefix ? 2 : 1);
      expect(listed.body.data).toHaveLength(1);
      expect((await call(server, `${prefix}delete_topic`, { token: admin, params: { topic_id: id } })).body).toEqual({
        success: true,
      });
      const gone = await call(server, `${prefix}get_topic`, { token: admin, params: { topic_id: id } });
      expect(gone.status).toBe(404);
      const publish = await call(server, 'publish_message', {
        token: admin,
        params: { topic_id: id },
        body: { order_id: 'A' },
      });
      expect(errorOf(publish).details.code).toBe('TOPIC_NOT_FOUND');
      await call(server, `${prefix}create_topic`, {
        token: admin,
        body: { name: `${prefix}kept`, schema: ORDER_SCHEMA },
      });
    }
  });

  it('answers 400 for an invalid body and 422 for a taken name or the 21st topic', async () => {
    const server = await start();
    const admin = await token(server);
    const invalid = await call(server, 'create_topic', {
      token: admin,
      body: { name: 'x', schema: [{ name: 'a', type: 'uuid' }] },
    });
    expect(invalid.status).toBe(400);
    expect(Object.keys(managementErrorOf(invalid).errors ?? {})).toEqual(['schema.0.type']);
    for (let i = 0; i < 20; i++) {
      expect(
        (await call(server, 'create_topic', { token: admin, body: { name: `t${i}`, schema: ORDER_SCHEMA } })).status,
      ).toBe(200);
    }
    const taken = await call(server, 'create_topic', { token: admin, body: { name: 't0', schema: ORDER_SCHEMA } });
    expect(taken.status).toBe(422);
    expect(managementErrorOf(taken).message).toMatch(/at most 20/);
    const renamed = await call(server, 'update_topic', { token: admin, params: { topic_id: 2 }, body: { name: 't0' } });
    expect([renamed.status, managementErrorOf(renamed).message]).toEqual([422, "A topic named 't0' already exists"]);
    const unauthorized = await call(server, 'list_topics', {});
    expect(unauthorized.status).toBe(401);
  });

  it('answers 400 naming the field, not 500, for a schema nested more than 32 levels deep', async () => {
    const server = await start();
    const admin = await token(server);
    const nested = (levels: number) => {
      let field: Record<string, unknown> = { name: 'leaf', type: 'string' };
      for (let level = 1; level < levels; level++) field = { name: 'f', type: 'object', properties: [field] };
      return [field];
    };
    const deepest = `schema${'.0.properties'.repeat(32)}`;
    for (const levels of [33, 1000]) {
      const created = await call(server, 'create_topic', {
        token: admin,
        body: { name: 'deep', schema: nested(levels) },
      });
      expect([created.status, Object.keys(managementErrorOf(created).errors ?? {})]).toEqual([400, [deepest]]);
    }
    const created = await call(server, 'create_topic', { token: admin, body: { name: 'deep', schema: nested(32) } });
    expect([created.status, created.body.id]).toEqual([200, 1]);
    const updated = await call(server, 'update_topic', {
      token: admin,
      params: { topic_id: created.body.id },
      body: { schema: nested(1000) },
    });
    expect([updated.status, Object.keys(managementErrorOf(updated).errors ?? {})]).toEqual([400, [deepest]]);
  });

  it('finds the topic, client or key the path names before reading the body: 404, not a 400 for the body', async () => {
    const server = await start();
    const admin = await token(server);
    const bad = { name: 5 };
    const answers = [
      await call(server, 'update_topic', { token: admin, params: { topic_id: 9 }, body: bad }),
      await call(server, 'legacy_update_topic', { token: admin, params: { topic_id: 9 }, body: bad }),
      await call(server, 'update_api_client', { token: admin, params: { api_client_id: 9 }, body: bad }),
      await call(server, 'create_api_key', { token: admin, params: { api_client_id: 9 }, body: bad }),
      await call(server, 'update_api_key', { token: admin, params: { api_client_id: 1, api_key_id: 9 }, body: bad }),
    ];
    expect(answers.map((answer) => answer.status)).toEqual([404, 404, 404, 404, 404]);
    const topicId = await createTopic(server, admin);
    const invalid = await call(server, 'update_topic', { token: admin, params: { topic_id: topicId }, body: bad });
    expect([invalid.status, Object.keys(managementErrorOf(invalid).errors ?? {})]).toEqual([400, ['name']]);
  });

  it('checks messages against the updated schema after an update', async () => {
    const server = await start();
    const admin = await token(server);
    const id = (await call(server, 'create_topic', { token: admin, body: { name: 'o', schema: ORDER_SCHEMA } })).body
      .id;
    await call(server, 'update_topic', {
      token: admin,
      params: { topic_id: id },
      body: { schema: [{ name: 'sku', type: 'string' }] },
    });
    const old = await call(server, 'publish_message', {
      token: admin,
      params: { topic_id: id },
      body: { order_id: 'A' },
    });
    expect(errorOf(old).details).toEqual({ code: 'SCHEMA_MISMATCH', field: 'sku' });
  });
});

describe('numbers in parameters and bodies', () => {
  it('refuses an id that is not a decimal integer, or past 2^53, instead of reading it as another id', async () => {
    const server = await start();
    const admin = await token(server);
    const client = await call(server, 'create_api_client', { token: admin, body: { name: 'c' } });
    const clientId = client.body.data.id;
    expect((await call(server, 'get_api_client', { token: admin, params: { api_client_id: clientId } })).status).toBe(
      200,
    );
    const bad = ['0x2', ` ${clientId}`, `${clientId}.0`, '2e0', '1e400', 'Infinity', '9007199254740993'];
    for (const api_client_id of bad) {
      const answer = await call(server, 'get_api_client', { token: admin, params: { api_client_id } });
      expect([answer.status, managementErrorOf(answer).errors], api_client_id).toEqual([
        400,
        { api_client_id: [expect.stringMatching(/integer/)] },
      ]);
    }
    for (const page of ['0x1', '1e400', '1e20']) {
      const answer = await call(server, 'list_api_clients', { token: admin, query: { page } });
      expect([answer.status, Object.keys(managementErrorOf(answer).errors ?? {})], page).toEqual([400, ['page']]);
    }
    const listed = await call(server, 'list_api_clients', { token: admin, query: { cert_bundle_ids: ['1', '0x2'] } });
    expect([listed.status, Object.keys(managementErrorOf(listed).errors ?? {})]).toEqual([400, ['cert_bundle_ids.1']]);
    for (const topic_id of ['0x1', ' 1', '1.0', '1e0']) {
      const answer = await call(server, 'publish_message', {
        token: admin,
        params: { topic_id },
        body: { order_id: 'A' },
      });
      expect([answer.status, errorOf(answer).details.code], topic_id).toEqual([400, 'INVALID_TOPIC_ID']);
    }
  });

  it('refuses a number in a JSON body beyond the range of a double, instead of storing null', async () => {
    const server = await start();
    const admin = await token(server);
    const headers = { 'content-type': 'application/json' };
    const created = await call(server, 'create_api_client', {
      token: admin,
      rawBody: '{"name":"c","project_id":1e400}',
      headers,
    });
    expect([created.status, managementErrorOf(created).errors]).toEqual([400, { project_id: [expect.any(String)] }]);
    const listed = await call(server, 'list_api_clients', { token: admin });
    expect(listed.body.data.map((c) => c.name)).not.toContain('c');
  });
});

describe('other management operations', () => {
  it('are answered by Prism from the spec examples in --mode prism, behind the same bearer token check', async () => {
    const server = await start({ mode: 'prism' });
    const admin = await token(server);
    const folders = await call(server, 'list_folders', { token: admin });
    expect(folders.status).toBe(200);
    expect(folders.body.length).toBeGreaterThan(0);
    const unauthorized = await call(server, 'list_folders', {});
    expect(unauthorized.status).toBe(401);
    // A guard against a hang, not a speed goal: Prism parses the whole management spec before its
    // first answer (about 3 s alone, over 30 s beside the other suites on two busy cores).
  }, 120_000);

  it('leaves topics, API clients and keys stateful in --mode prism', async () => {
    const server = await start({ mode: 'prism' });
    const admin = await token(server);
    const topicId = await createTopic(server, admin);
    const published = await call(server, 'publish_message', {
      token: admin,
      params: { topic_id: topicId },
      body: { order_id: 'A' },
    });
    expect(published.status).toBe(201);
    const listed = await call(server, 'list_topics', { token: admin });
    expect([listed.body.count, listed.body.data.map((topic) => topic.id)]).toEqual([1, [topicId]]);
    const client = await call(server, 'create_api_client', { token: admin, body: { name: 'CI' } });
    const key = await call(server, 'create_api_key', {
      token: admin,
      params: { api_client_id: client.body.data.id },
      body: { name: 'ci', scopes: ['event_streams:consume'] },
    });
    const ci = await token(server, key.body.data.client_id, key.body.data.auth_token);
    expect((await call(server, 'list_topics', { token: ci })).status).toBe(403);
    const consumed = await call(server, 'consume_messages', { token: ci, params: { topic_id: topicId }, body: {} });
    expect(consumed.body.messages.map((message) => message.payload)).toEqual([{ order_id: 'A' }]);
  }, 120_000); // Prism's start, as above

  it.each(['engine', 'prism'] as const)(
    'every management operation answers, with its example request, a status and body its spec declares (--mode %s)',
    async (mode) => {
      const server = await start({ mode });
      const admin = await token(server);
      const notEmulated = new Set(
        createResourceEngine(specs)
          .operations.filter((op) => op.effect?.verb === 'unsupported')
          .map((op) => op.operation.operationId),
      );
      const statuses: number[] = [];
      for (const op of specs.operations.filter((o) => o.api === 'management')) {
        const params = Object.fromEntries(
          op.parameters.filter((p) => p.in === 'path').map((p) => [p.name, exampleParameter(p)]),
        );
        const query = Object.fromEntries(
          op.parameters.filter((p) => p.in === 'query' && p.required).map((p) => [p.name, exampleParameter(p)]),
        );
        const body = op.requestBody ? (exampleBody(op) ?? {}) : undefined;
        // call() fails the test when the status or body is not one the operation declares.
        const answer = await call(server, op.operationId as OperationId, { token: admin, params, query, body });
        // A 501 is the documented refusal of an operation the emulator cannot carry out (x-effect: unsupported).
        const refused = answer.status === 501 && notEmulated.has(op.operationId);
        expect(refused || answer.status < 500, `${op.operationId}: ${answer.status}`).toBe(true);
        statuses.push(answer.status);
      }
      // Prism answers most operations with success examples (the rest are 404s of the stateful resources
      // the domain keeps, which do not exist); the engine answers 404 for the example ids of an empty workspace.
      const succeeded = statuses.filter((status) => status < 300).length / statuses.length;
      if (mode === 'prism') expect(succeeded).toBeGreaterThan(0.8);
    },
    60_000,
  );
});

describe('which operations Prism answers', () => {
  it('exactly those EXTENSIONS.md lists under "Operations left to Prism", each with its reason', () => {
    const extensions = readFileSync(
      fileURLToPath(new URL('../../../spec/management/EXTENSIONS.md', import.meta.url)),
      'utf8',
    );
    const section = extensions.split('## Operations left to Prism')[1] ?? '';
    const listed = new Set([...section.matchAll(/`([a-z_]+)`/g)].map((match) => match[1]));
    const engine = createResourceEngine(specs);
    const prism = specs.operations
      .filter((op) => op.api === 'management' && !engine.handles(op.operationId))
      .map((op) => op.operationId);
    expect(prism.filter((operationId) => !listed.has(operationId))).toEqual([]);
    const named = [...listed].filter((name) => specs.operations.some((op) => op.operationId === name));
    expect(named.sort()).toEqual([...prism].sort());
    const management = specs.operations.filter((op) => op.api === 'management').length;
    const domain = engine.operationIds.filter((operationId) => engine.domainScope(operationId) !== undefined).length;
    expect({ management, engine: engine.operationIds.length, domain }).toEqual({
      management: 245,
      engine: 245,
      domain: 24,
    });
  });

  it("registers exactly the hand-written handlers vocabulary.json documents, which the spec's lint checks names against", () => {
    expect(Object.keys(customHandlers).sort()).toEqual([...vocabulary.handlers].sort());
  });

  it('registers exactly the derivation hooks vocabulary.json documents', () => {
    expect(Object.keys(derivationHooks).sort()).toEqual([...vocabulary.hooks].sort());
  });

  it('reads the ops and filter matches the lint rule accepts', () => {
    expect([...OP_KINDS].sort()).toEqual([...LINTED_OP_KINDS].sort());
    expect([...MATCHES].sort()).toEqual([...LINTED_MATCHES].sort());
  });
});

describe('routes outside the specs', () => {
  it('answers 404 NOT_FOUND in the ErrorResponse shape', async () => {
    const server = await start();
    const response = await fetch(`${server.url}/nothing/here`);
    expect(response.status).toBe(404);
    const body = await response.json();
    assertSchema('event-streams', 'ErrorResponse', body);
    expect(body.error.details.code).toBe('NOT_FOUND');
  });

  it("answers a method a path does not have 405, with Allow and the error body of the path's API", async () => {
    const server = await start();
    const answer = async (method: string, path: string) => {
      const response = await fetch(`${server.url}${path}`, { method });
      return { status: response.status, allow: response.headers.get('allow'), body: await response.json() };
    };
    const publish = await answer('GET', '/api/v1/topics/1/publish');
    expect([publish.status, publish.allow, publish.body.error.details.code]).toEqual([
      405,
      'POST',
      'METHOD_NOT_ALLOWED',
    ]);
    assertSchema('event-streams', 'ErrorResponse', publish.body);
    const topic = await answer('POST', '/api/event_streams/topics/1');
    expect([topic.status, topic.allow]).toEqual([405, 'GET, HEAD, PUT, DELETE']);
    assertSchema('management', 'ManagementError', topic.body);
    const tokenEndpoint = await answer('DELETE', '/oauth2/token');
    expect([tokenEndpoint.status, tokenEndpoint.allow, tokenEndpoint.body.error]).toEqual([
      405,
      'POST',
      'invalid_request',
    ]);
    assertSchema('auth', 'OAuthError', tokenEndpoint.body);
    const faults = await fetch(`${server.url}/_emulator/faults`, { method: 'PUT' });
    expect([faults.status, faults.headers.get('allow')]).toEqual([405, 'GET, HEAD, POST, DELETE']);
    const docs = await fetch(`${server.url}/docs/`, { method: 'POST' });
    expect([docs.status, docs.headers.get('allow')]).toEqual([405, 'GET, HEAD']);
  });

  it('answers HEAD where a path has GET: the GET answer without its body', async () => {
    const server = await start();
    const admin = await token(server);
    await createTopic(server, admin);
    const authorization = `Bearer ${admin}`;
    const get = await fetch(`${server.url}/api/event_streams/topics`, { headers: { authorization } });
    const head = await fetch(`${server.url}/api/event_streams/topics`, { method: 'HEAD', headers: { authorization } });
    expect([head.status, head.headers.get('content-type'), head.headers.get('content-length')]).toEqual([
      200,
      get.headers.get('content-type'),
      String((await get.arrayBuffer()).byteLength),
    ]);
    expect(await head.text()).toBe('');
    const unauthorized = await fetch(`${server.url}/api/event_streams/topics`, { method: 'HEAD' });
    expect(unauthorized.status).toBe(401);
    const publish = await fetch(`${server.url}/api/v1/topics/1/publish`, {
      method: 'HEAD',
      headers: { authorization },
    });
    expect([publish.status, publish.headers.get('allow')]).toEqual([405, 'POST']);
  });

  it('answers a request node cannot parse with the JSON ErrorResponse, then closes the connection', async () => {
    const server = await start();
    // The Content-Length covers `{}`: the rest is parsed as the next request, whose method is `{"grant_type"...`.
    const shortLength = await rawExchange(
      server,
      'POST /oauth2/token HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 2\r\n\r\n' +
        '{}{"grant_type":"client_credentials"}',
    );
    const headerTooLarge = await rawExchange(
      server,
      `GET /api/v2/api_clients HTTP/1.1\r\nX: ${'x'.repeat(20_000)}\r\n\r\n`,
    );
    for (const answer of [shortLength, headerTooLarge]) {
      expect([answer.status, answer.headers.get('content-type')]).toEqual([400, 'application/json; charset=utf-8']);
      assertSchema('event-streams', 'ErrorResponse', answer.body);
      expect(errorOf(answer).details.code).toBe('INVALID_REQUEST');
    }
    expect(errorOf(headerTooLarge).message).toMatch(/headers are larger/);
  });

  it('serves the built docs under /docs/, and a 404 naming the folder given when it holds no build', async () => {
    const docsDir = mkdtempSync(join(tmpdir(), 'docs-'));
    writeFileSync(join(docsDir, 'index.html'), '<h1>API</h1>');
    const withDocs = await start({ docsDir });
    const page = await fetch(`${withDocs.url}/docs/`);
    expect([page.status, page.headers.get('content-type'), await page.text()]).toEqual([
      200,
      'text/html; charset=utf-8',
      '<h1>API</h1>',
    ]);
    expect((await fetch(`${withDocs.url}/docs/..%2f..%2fetc%2fpasswd`)).status).toBe(404);
    const without = await start({ docsDir: join(docsDir, 'missing') });
    const missing = await fetch(`${without.url}/docs/`);
    expect(missing.status).toBe(404);
    expect(await missing.text()).toMatch(
      /^The API documentation is not served: .*missing \(--docs-dir, docsDir\) holds no index.html/,
    );
  });
});

describe('error codes', () => {
  it('are exactly the documented x-error-codes of the event-streams spec', () => {
    const documented = Object.keys(specs.documents['event-streams'].info['x-error-codes'] ?? {});
    expect([...EMITTED_ERROR_CODES].sort()).toEqual([...documented].sort());
  });
});
