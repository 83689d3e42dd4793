import { describe, expect, it } from 'vitest';
import type { MockServer } from '../src/index.js';
import { defined } from './support/defined.js';
import {
  type Answer,
  assertConforms,
  call,
  createTopic,
  errorOf,
  managementErrorOf,
  oauthErrorOf,
  type SuccessBody,
  start,
  toAnswer,
  token,
} from './support/helpers.js';

async function tokenRequest(
  server: MockServer,
  init: { headers?: Record<string, string>; body?: BodyInit },
): Promise<Answer<SuccessBody<'request_access_token'>>> {
  const answer = await toAnswer<SuccessBody<'request_access_token'>>(
    await fetch(`${server.url}/oauth2/token`, { method: 'POST', ...init }),
  );
  assertConforms('request_access_token', answer);
  return answer;
}

const basic = (id: string, secret: string) => `Basic ${Buffer.from(`${id}:${secret}`).toString('base64')}`;

describe('token endpoint', () => {
  it('accepts the four request formats, each giving a new token', async () => {
    const server = await start();
    const { clientId, clientSecret } = server;
    const form = 'application/x-www-form-urlencoded';
    const multipart = new FormData();
    multipart.set('grant_type', 'client_credentials');
    multipart.set('client_id', clientId);
    multipart.set('client_secret', clientSecret);
    const answers = [
      await tokenRequest(server, {
        headers: { authorization: basic(clientId, clientSecret), 'content-type': form },
        body: 'grant_type=client_credentials',
      }),
      await tokenRequest(server, {
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ grant_type: 'client_credentials', client_id: clientId, client_secret: clientSecret }),
      }),
      await tokenRequest(server, {
        headers: { 'content-type': form },
        body: new URLSearchParams({
          grant_type: 'client_credentials',
          client_id: clientId,
          client_secret: clientSecret,
        }).toString(),
      }),
      await tokenRequest(server, { body: multipart }),
    ];
    for (const answer of answers) {
      expect(answer.status).toBe(200);
      expect(answer.body).toMatchObject({ token_type: 'bearer', expires_in: 3600 });
      expect(answer.headers.get('cache-control')).toBe('no-store');
      const topics = await call(server, 'list_topics', { token: answer.body.access_token });
      expect(topics.status).toBe(200);
    }
    expect(new Set(answers.map((a) => a.body.access_token)).size).toBe(4);
  });

  it('rejects a Content-Type that does not match the body, and bad parameters, with RFC 6749 errors', async () => {
    const server = await start();
    const json = JSON.stringify({
      grant_type: 'client_credentials',
      client_id: server.clientId,
      client_secret: server.clientSecret,
    });
    const form = new URLSearchParams({
      grant_type: 'client_credentials',
      client_id: server.clientId,
      client_secret: server.clientSecret,
    }).toString();
    const cases: Array<[{ headers?: Record<string, string>; body?: string }, number, string]> = [
      [{ headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: json }, 400, 'invalid_request'],
      [{ headers: { 'content-type': 'application/json' }, body: form }, 400, 'invalid_request'],
      [{ headers: { 'content-type': 'multipart/form-data; boundary=xyz' }, body: form }, 400, 'invalid_request'],
      [{ headers: { 'content-type': 'text/plain' }, body: form }, 400, 'invalid_request'],
      [
        { headers: { 'content-type': 'application/json' }, body: json.replace('client_credentials', 'password') },
        400,
        'unsupported_grant_type',
      ],
      [
        { headers: { 'content-type': 'application/json' }, body: json.replace(server.clientSecret, 'wrong') },
        400,
        'invalid_client',
      ],
      [
        { headers: { 'content-type': 'application/json' }, body: '{"grant_type":"client_credentials"}' },
        400,
        'invalid_request',
      ],
      [
        {
          headers: {
            authorization: basic(server.clientId, 'wrong'),
            'content-type': 'application/x-www-form-urlencoded',
          },
          body: 'grant_type=client_credentials',
        },
        401,
        'invalid_client',
      ],
    ];
    for (const [init, status, error] of cases) {
      const answer = await tokenRequest(server, init);
      expect([answer.status, oauthErrorOf(answer).error], JSON.stringify(init)).toEqual([status, error]);
    }
    const unauthorized = await tokenRequest(server, defined(cases.at(-1))[0]);
    expect(unauthorized.headers.get('www-authenticate')).toMatch(/^Basic/);
  });

  it('refuses a compressed body (Content-Encoding) instead of reading it as a form or JSON', async () => {
    const server = await start();
    const fields = { grant_type: 'client_credentials', client_id: server.clientId, client_secret: server.clientSecret };
    const send = (contentType: string, body: string, encoding: string) =>
      tokenRequest(server, { headers: { 'content-type': contentType, 'content-encoding': encoding }, body });
    for (const [contentType, body] of [
      ['application/x-www-form-urlencoded', new URLSearchParams(fields).toString()],
      ['application/json', JSON.stringify(fields)],
    ] as const) {
      const answer = await send(contentType, body, 'gzip');
      expect([answer.status, oauthErrorOf(answer).error], contentType).toEqual([400, 'invalid_request']);
      expect(oauthErrorOf(answer).error_description).toMatch(/Content-Encoding gzip/);
      expect((await send(contentType, body, 'identity')).status, contentType).toBe(200);
    }
  });

  it('reads a JSON body by the rules of every JSON body: UTF-8, in bytes and in its charset', async () => {
    const server = await start();
    const fields = `"grant_type":"client_credentials","client_id":"${server.clientId}","client_secret":"${server.clientSecret}"`;
    const send = (contentType: string, body: Buffer) =>
      tokenRequest(server, { headers: { 'content-type': contentType }, body: new Uint8Array(body) });
    const refusals = [
      await send('application/json; charset=latin1', Buffer.from(`{${fields}}`)),
      // A byte that is not UTF-8 would be read as U+FFFD: another value than was sent.
      await send('application/json', Buffer.from(`{${fields},"note":"\xff"}`, 'latin1')),
    ];
    expect(refusals.map((answer) => [answer.status, oauthErrorOf(answer).error_description])).toEqual([
      [400, 'A JSON body is UTF-8 (RFC 8259), not charset=latin1'],
      [400, 'The body is not UTF-8 (RFC 8259)'],
    ]);
    expect((await send('application/json; charset=utf-8', Buffer.from(`{${fields},"note":"é"}`))).status).toBe(200);
  });

  it('refuses a parameter sent twice in a form or multipart body (RFC 6749 3.2)', async () => {
    const server = await start();
    const credentials = `client_id=${server.clientId}&client_secret=${server.clientSecret}`;
    const form = await tokenRequest(server, {
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: `grant_type=password&grant_type=client_credentials&${credentials}`,
    });
    const multipart = new FormData();
    multipart.append('grant_type', 'client_credentials');
    multipart.append('client_id', server.clientId);
    multipart.append('client_secret', 'wrong');
    multipart.append('client_secret', server.clientSecret);
    for (const answer of [form, await tokenRequest(server, { body: multipart })]) {
      expect([answer.status, oauthErrorOf(answer).error]).toEqual([400, 'invalid_request']);
      expect(oauthErrorOf(answer).error_description).toMatch(/sent more than once/);
    }
  });

  it('treats a parameter sent without a value as omitted (RFC 6749 3.2), beside a Basic header too', async () => {
    const server = await start();
    const form = 'application/x-www-form-urlencoded';
    const authorization = basic(server.clientId, server.clientSecret);
    const multipart = new FormData();
    multipart.set('grant_type', 'client_credentials');
    multipart.set('client_id', '');
    multipart.set('client_secret', '');
    const granted = [
      await tokenRequest(server, {
        headers: { authorization, 'content-type': form },
        body: 'grant_type=client_credentials&client_id=&client_secret=',
      }),
      await tokenRequest(server, { headers: { authorization }, body: multipart }),
      await tokenRequest(server, {
        headers: { authorization, 'content-type': 'application/json' },
        body: JSON.stringify({ grant_type: 'client_credentials', client_id: '', client_secret: '' }),
      }),
    ];
    expect(granted.map((answer) => answer.status)).toEqual([200, 200, 200]);
    // A value in the body beside the header is still two ways of authenticating; none at all is none.
    const refused = [
      await tokenRequest(server, {
        headers: { authorization, 'content-type': form },
        body: `grant_type=client_credentials&client_id=&client_secret=${server.clientSecret}`,
      }),
      await tokenRequest(server, { headers: { 'content-type': form }, body: 'grant_type=&client_id=&client_secret=' }),
    ];
    expect(refused.map((answer) => [answer.status, oauthErrorOf(answer).error_description])).toEqual([
      [400, 'Send the client credentials in the Authorization header or in the body, not both'],
      [400, 'grant_type is required'],
    ]);
  });

  it('reads a Basic header both plain and form-encoded, so secrets with +, % or : work either way', async () => {
    // RFC 6749 2.3.1 form-encodes both parts first: a space becomes +.
    const formEncoded = (value: string) => encodeURIComponent(value).replace(/%20/g, '+');
    const status = async (server: MockServer, id: string, secret: string) =>
      (
        await tokenRequest(server, {
          headers: { 'content-type': 'application/x-www-form-urlencoded', authorization: basic(id, secret) },
          body: 'grant_type=client_credentials',
        })
      ).status;
    for (const secret of ['a+b%20c:d', 'p%zz', 'with space+plus', 'plain']) {
      const server = await start({ clientId: 'my-client', clientSecret: secret });
      expect([
        secret,
        await status(server, 'my-client', secret),
        await status(server, 'my-client', formEncoded(secret)),
        await status(server, 'my-client', `${secret}x`),
      ]).toEqual([secret, 200, 200, 401]);
    }
    // A colon in the client ID can only be sent form-encoded.
    const server = await start({ clientId: 'client:id', clientSecret: 's+s' });
    expect(await status(server, formEncoded('client:id'), formEncoded('s+s'))).toBe(200);
  });

  it('expires each token after its own TTL on the injected clock', async () => {
    let now = 1_800_000_000_000;
    const server = await start({ clock: () => now, tokenTtlSeconds: 60 });
    const first = await token(server);
    now += 30_000;
    const second = await token(server);
    now += 30_000;
    const expired = await call(server, 'list_topics', { token: first });
    expect([expired.status, managementErrorOf(expired).message]).toEqual([
      401,
      'The access token has expired; request a new one',
    ]);
    expect((await call(server, 'list_topics', { token: second })).status).toBe(200);
    now += 30_000;
    expect((await call(server, 'list_topics', { token: second })).status).toBe(401);
  });

  it('answers an injected 500 as the RFC 6749 server_error, then issues tokens again', async () => {
    const server = await start();
    const injected = await fetch(`${server.url}/_emulator/faults`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ operation: 'request_access_token', status: 500, times: 1 }),
    });
    expect(injected.status).toBe(204);
    const failed = await call(server, 'request_access_token', {
      body: { grant_type: 'client_credentials', client_id: server.clientId, client_secret: server.clientSecret },
    });
    expect([failed.status, oauthErrorOf(failed).error]).toEqual([500, 'server_error']);
    expect(await token(server)).toEqual(expect.any(String));
  });
});

describe('bearer tokens on the event-streams API', () => {
  it('answers 401 UNAUTHORIZED, INVALID_TOKEN or TOKEN_EXPIRED', async () => {
    let now = 1_800_000_000_000;
    const server = await start({ clock: () => now, tokenTtlSeconds: 10 });
    const accessToken = await token(server);
    const topicId = await createTopic(server, accessToken);
    const consume = (headers: Record<string, string>) =>
      call(server, 'consume_messages', { params: { topic_id: topicId }, body: {}, headers });
    const code = (answer: Answer) => [answer.status, errorOf(answer).details.code];
    expect(code(await consume({}))).toEqual([401, 'UNAUTHORIZED']);
    expect(code(await consume({ authorization: `Basic ${accessToken}` }))).toEqual([401, 'UNAUTHORIZED']);
    expect(code(await consume({ authorization: 'Bearer not-a-token' }))).toEqual([401, 'INVALID_TOKEN']);
    expect((await consume({ authorization: `Bearer ${accessToken}` })).status).toBe(200);
    now += 10_000;
    expect(code(await consume({ authorization: `Bearer ${accessToken}` }))).toEqual([401, 'TOKEN_EXPIRED']);
  });
});

/** Creates an API client and a key with the given rights; returns the key, its secret and a token. */
async function keyWith(server: MockServer, adminToken: string, rights: Record<string, unknown>) {
  const client = await call(server, 'create_api_client', { token: adminToken, body: { name: 'order-sync' } });
  expect(client.status).toBe(200);
  const key = await call(server, 'create_api_key', {
    token: adminToken,
    params: { api_client_id: client.body.data.id },
    body: { name: 'publisher', ...rights },
  });
  expect(key.status).toBe(200);
  return {
    clientId: client.body.data.id,
    key: key.body.data,
    accessToken: await token(server, key.body.data.client_id, key.body.data.auth_token),
  };
}

describe('API keys and rights', () => {
  it('answers 403 FORBIDDEN without the scope or outside topic_ids', async () => {
    const server = await start();
    const admin = await token(server);
    const allowed = await createTopic(server, admin);
    const other = await createTopic(server, admin);
    const { accessToken } = await keyWith(server, admin, { scopes: ['event_streams:publish'], topic_ids: [allowed] });
    const publish = (topic_id: number) =>
      call(server, 'publish_message', { token: accessToken, params: { topic_id }, body: { order_id: 'A' } });
    expect((await publish(allowed)).status).toBe(201);
    const wrongTopic = await publish(other);
    expect([wrongTopic.status, errorOf(wrongTopic).details.code]).toEqual([403, 'FORBIDDEN']);
    const noConsume = await call(server, 'consume_messages', {
      token: accessToken,
      params: { topic_id: allowed },
      body: {},
    });
    expect([noConsume.status, errorOf(noConsume).details.code]).toEqual([403, 'FORBIDDEN']);
    const noManage = await call(server, 'create_topic', {
      token: accessToken,
      body: { name: 'x', schema: [{ name: 'a', type: 'string' }] },
    });
    expect(noManage.status).toBe(403);
    expect((await call(server, 'list_api_clients', { token: accessToken })).status).toBe(403);
  });

  it('refresh_secret invalidates the old secret and revokes its tokens; disable refuses tokens; enable allows new ones', async () => {
    const server = await start();
    const admin = await token(server);
    const { clientId, key, accessToken } = await keyWith(server, admin, {});
    const keyParams = { api_client_id: clientId, api_key_id: key.id };

    const refreshed = await call(server, 'refresh_api_key_secret', { token: admin, params: keyParams });
    expect(refreshed.status).toBe(200);
    expect(refreshed.body.data.auth_token).not.toBe(key.auth_token);
    const revoked = await call(server, 'list_topics', { token: accessToken });
    expect(revoked.status).toBe(401);
    const oldSecret = await tokenRequest(server, {
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({
        grant_type: 'client_credentials',
        client_id: key.client_id,
        client_secret: key.auth_token,
      }),
    });
    expect([oldSecret.status, oauthErrorOf(oldSecret).error]).toEqual([400, 'invalid_client']);
    const fresh = await token(server, key.client_id, refreshed.body.data.auth_token);

    const disabled = await call(server, 'disable_api_key', { token: admin, params: keyParams });
    expect(disabled.body).toEqual({ success: true });
    const disabledKey = await call(server, 'list_api_keys', { token: admin, params: { api_client_id: clientId } });
    expect(disabledKey.body.data[0]).toMatchObject({ active: false, active_since: null });
    expect((await call(server, 'list_topics', { token: fresh })).status).toBe(401);
    const refused = await tokenRequest(server, {
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({
        grant_type: 'client_credentials',
        client_id: key.client_id,
        client_secret: refreshed.body.data.auth_token,
      }),
    });
    expect(oauthErrorOf(refused).error).toBe('invalid_client');

    const enabled = await call(server, 'enable_api_key', { token: admin, params: keyParams });
    expect(enabled.body).toEqual({ success: true });
    expect(
      (await call(server, 'list_topics', { token: await token(server, key.client_id, refreshed.body.data.auth_token) }))
        .status,
    ).toBe(200);
  });

  it('lists API clients by project and by certificate bundles, one or several (the parameter repeated)', async () => {
    const server = await start();
    const admin = await token(server);
    const create = async (body: Record<string, unknown>) =>
      (await call(server, 'create_api_client', { token: admin, body: { name: 'c', ...body } })).body.data.id;
    const first = await create({ project_id: 7, cert_bundle_ids: [12, 13] });
    const second = await create({ cert_bundle_ids: [14] });
    const listed = async (query: Record<string, number | number[]>) => {
      const answer = await call(server, 'list_api_clients', { token: admin, query });
      expect(answer.status, JSON.stringify(query)).toBe(200);
      return answer.body.data.map((client) => client.id);
    };
    expect(await listed({ cert_bundle_ids: 13 })).toEqual([first]);
    expect(await listed({ cert_bundle_ids: [14, 12] })).toEqual([first, second]);
    expect(await listed({ cert_bundle_ids: [99] })).toEqual([]);
    expect(await listed({ project_id: 7 })).toEqual([first]);
  });

  it('manages API clients and keys', async () => {
    const server = await start();
    const admin = await token(server);
    const { clientId, key } = await keyWith(server, admin, { topic_ids: [1] });
    expect((await call(server, 'list_api_clients', { token: admin })).body.count).toBe(2);
    const updated = await call(server, 'update_api_client', {
      token: admin,
      params: { api_client_id: clientId },
      body: { name: 'renamed' },
    });
    expect(updated.body.data.name).toBe('renamed');
    expect(
      (await call(server, 'get_api_client', { token: admin, params: { api_client_id: clientId } })).body.data.name,
    ).toBe('renamed');
    const keys = await call(server, 'list_api_keys', { token: admin, params: { api_client_id: clientId } });
    expect(keys.body).toMatchObject({ count: 1, page: 1, per_page: 100, data: [{ id: key.id, topic_ids: [1] }] });
    const listedKey: Record<string, unknown> | undefined = keys.body.data[0];
    expect(listedKey?.auth_token).toBe('********');
    const keyParams = { api_client_id: clientId, api_key_id: key.id };
    const changed = await call(server, 'update_api_key', {
      token: admin,
      params: keyParams,
      body: { scopes: ['event_streams:consume'] },
    });
    expect(changed.body.data.scopes).toEqual(['event_streams:consume']);
    const invalid = await call(server, 'update_api_key', {
      token: admin,
      params: keyParams,
      body: { scopes: ['everything'] },
    });
    expect(invalid.status).toBe(400);
    expect((await call(server, 'delete_api_key', { token: admin, params: keyParams })).body).toEqual({ success: true });
    expect((await call(server, 'enable_api_key', { token: admin, params: keyParams })).status).toBe(404);
    expect(
      (await call(server, 'delete_api_client', { token: admin, params: { api_client_id: clientId } })).status,
    ).toBe(200);
    expect((await call(server, 'get_api_client', { token: admin, params: { api_client_id: clientId } })).status).toBe(
      404,
    );
  });
});

describe('rate limit', () => {
  it('answers 429 with RETRY-AFTER past the per-key limit, until the next minute', async () => {
    let now = Date.parse('2026-11-22T09:00:10Z');
    const server = await start({ clock: () => now, limits: { rateLimitPerMinute: 2 } });
    const accessToken = await token(server);
    const topicId = await createTopic(server, accessToken);
    const publish = () =>
      call(server, 'publish_message', { token: accessToken, params: { topic_id: topicId }, body: { order_id: 'A' } });
    expect((await publish()).status).toBe(201);
    expect((await publish()).status).toBe(201);
    const limited = await publish();
    expect([limited.status, errorOf(limited).details.code]).toEqual([429, 'RATE_LIMITED']);
    expect(limited.headers.get('retry-after')).toBe('50');
    now += 50_000;
    expect((await publish()).status).toBe(201);
  });
});
