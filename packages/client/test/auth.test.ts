import { inspect } from 'node:util';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { clientCredentials, createEventStreamsClient, TokenError, type TokenRequestFormat } from '../src/index.js';
import {
  defined,
  errorBody,
  type Received,
  rejectionOf,
  startTestServer,
  type TestServer,
  tokenReply,
} from './support/http-server.js';

const CLIENT_ID = 'client-7f3a';
const CLIENT_SECRET = 's3cr3t-Qv9XkLmP2zR8wT4+/=';

let server: TestServer;
afterEach(() => server?.close());

const isToken = (r: Received) => r.path === '/oauth2/token';
const tokenRequests = () => server.received.filter(isToken);
const created = { status: 201, json: { message_id: 'm-1' } };

/** A platform whose API accepts every token; `tokenDelayMs` slows the token endpoint. */
async function platform(tokenDelayMs = 0, expiresIn = 3600) {
  server = await startTestServer(async (request) => {
    if (!isToken(request)) return created;
    await new Promise((resolve) => setTimeout(resolve, tokenDelayMs));
    return tokenReply(server.received, expiresIn);
  });
}

function provider(extra: { now?: () => number; format?: TokenRequestFormat } = {}) {
  return clientCredentials({ authUrl: server.url, clientId: CLIENT_ID, clientSecret: CLIENT_SECRET, ...extra });
}

describe('clientCredentials', () => {
  it('requests one token and reuses it for later requests', async () => {
    await platform();
    const client = createEventStreamsClient({ baseUrl: server.url, auth: provider() });
    for (const n of [1, 2, 3]) await client.publish(7, { n });
    expect(tokenRequests()).toHaveLength(1);
    const apiCalls = server.received.filter((r) => !isToken(r));
    expect(apiCalls.map((r) => r.headers.authorization)).toEqual(Array(3).fill('Bearer token-1'));
  });

  it('renews the token before expires_in runs out', async () => {
    await platform();
    let now = 1_000_000;
    const tokens = provider({ now: () => now });
    expect(await tokens.getToken()).toBe('token-1');
    now += (3600 - 61) * 1000; // still 61 s left: more than the 60 s margin
    expect(await tokens.getToken()).toBe('token-1');
    now += 2000; // 59 s left
    expect(await tokens.getToken()).toBe('token-2');
    expect(tokenRequests()).toHaveLength(2);
  });

  it('keeps a short-lived token for half its lifetime', async () => {
    await platform(0, 30);
    let now = 0;
    const tokens = provider({ now: () => now });
    await tokens.getToken();
    now = 14_000;
    expect(await tokens.getToken()).toBe('token-1');
    now = 16_000;
    expect(await tokens.getToken()).toBe('token-2');
  });

  it('makes one token request for many concurrent callers', async () => {
    await platform(50);
    const client = createEventStreamsClient({ baseUrl: server.url, auth: provider() });
    const ids = await Promise.all(Array.from({ length: 20 }, (_, n) => client.publish(7, { n })));
    expect(ids).toHaveLength(20);
    expect(tokenRequests()).toHaveLength(1);
  });

  it('after a failed token request, the next caller tries again', async () => {
    let fail = true;
    server = await startTestServer((request) =>
      fail ? { status: 503, json: {} } : isToken(request) ? tokenReply(server.received) : created,
    );
    const tokens = provider();
    await expect(tokens.getToken()).rejects.toBeInstanceOf(TokenError);
    fail = false;
    await expect(tokens.getToken()).resolves.toMatch(/^token-/);
  });

  it.each<[TokenRequestFormat, string]>([
    ['basic', 'application/x-www-form-urlencoded'],
    ['form', 'application/x-www-form-urlencoded'],
    ['json', 'application/json'],
    ['multipart', 'multipart/form-data; boundary='],
  ])('sends the credentials in the %s format', async (format, contentType) => {
    await platform();
    await provider({ format }).getToken();
    const request = defined(tokenRequests()[0], 'a token request');
    const type = String(request.headers['content-type']);
    expect(type.startsWith(contentType)).toBe(true);
    const fields = Object.fromEntries(
      await new Response(request.body, { headers: { 'content-type': type } }).formData().then(
        (form) => form.entries(),
        () => Object.entries(JSON.parse(request.body) as Record<string, string>),
      ),
    );
    if (format === 'basic') {
      expect(fields).toEqual({ grant_type: 'client_credentials' });
      const encoded = String(request.headers.authorization).replace(/^Basic /, '');
      expect(Buffer.from(encoded, 'base64').toString()).toBe(`${CLIENT_ID}:${CLIENT_SECRET}`);
    } else {
      expect(fields).toEqual({ grant_type: 'client_credentials', client_id: CLIENT_ID, client_secret: CLIENT_SECRET });
      expect(request.headers.authorization).toBeUndefined();
    }
  });
});

describe('401 from the API', () => {
  it('renews the token once and replays the request with the same body', async () => {
    server = await startTestServer((request) => {
      if (isToken(request)) return tokenReply(server.received);
      return request.headers.authorization === 'Bearer token-1'
        ? { status: 401, json: errorBody('INVALID_TOKEN') }
        : created;
    });
    const client = createEventStreamsClient({ baseUrl: server.url, auth: provider() });
    const payload = { order_id: 'ORD-1', total: 149.9, lines: [{ sku: 'A', qty: 2 }] };
    await expect(client.publish(7, payload)).resolves.toBe('m-1');
    const [first, replay] = server.received.filter((r) => !isToken(r));
    expect(replay?.headers.authorization).toBe('Bearer token-2');
    expect(JSON.parse(replay?.body ?? '')).toEqual(payload);
    expect(replay?.body).toBe(first?.body);
    expect(tokenRequests()).toHaveLength(2);
  });

  it('renews once for many requests refused at the same time', async () => {
    server = await startTestServer((request) => {
      if (isToken(request)) return tokenReply(server.received);
      return request.headers.authorization === 'Bearer token-1'
        ? { status: 401, json: errorBody('INVALID_TOKEN') }
        : created;
    });
    const client = createEventStreamsClient({ baseUrl: server.url, auth: provider() });
    await Promise.all(Array.from({ length: 10 }, (_, n) => client.publish(7, { n })));
    expect(tokenRequests()).toHaveLength(2);
  });

  it('gives up after one renewal when the new token is refused too', async () => {
    server = await startTestServer((request) =>
      isToken(request) ? tokenReply(server.received) : { status: 401, json: errorBody('INVALID_TOKEN') },
    );
    const client = createEventStreamsClient({ baseUrl: server.url, auth: provider() });
    await expect(client.publish(7, {})).rejects.toMatchObject({ status: 401, body: errorBody('INVALID_TOKEN') });
    expect(server.received.filter((r) => !isToken(r))).toHaveLength(2);
  });

  it('does not retry a refused static token', async () => {
    server = await startTestServer(() => ({ status: 401, json: errorBody('INVALID_TOKEN') }));
    const client = createEventStreamsClient({ baseUrl: server.url, auth: { token: 'static-token' } });
    await expect(client.publish(7, {})).rejects.toMatchObject({ status: 401 });
    expect(server.received).toHaveLength(1);
    expect(server.received[0]?.headers.authorization).toBe('Bearer static-token');
  });
});

describe('a token error as printed', () => {
  it('is its message (request, status, code, description), stack, status and body; the Response is kept but not printed', async () => {
    server = await startTestServer(() => ({
      status: 401,
      json: { error: 'invalid_client', error_description: 'Client authentication failed' },
    }));
    const client = createEventStreamsClient({ baseUrl: server.url, auth: provider() });
    const error = (await rejectionOf(client.publish(7, {}))) as TokenError;

    const printed = inspect(error);
    expect(printed.split('\n')[0]).toBe(
      'TokenError: POST /oauth2/token failed with 401: invalid_client - Client authentication failed',
    );
    // What Node prints for an uncaught throw too: the stack, then the enumerable properties.
    const properties = printed.slice(printed.indexOf(' {\n') + 3);
    expect(properties.replace(/\s+/g, ' ').trim()).toBe(
      "status: 401, body: { error: 'invalid_client', error_description: 'Client authentication failed' }, retryAfterMs: undefined }",
    );
    expect(error.response?.status).toBe(401);
    expect(error.body).toEqual({ error: 'invalid_client', error_description: 'Client authentication failed' });
  });
});

describe('secrets', () => {
  afterEach(() => vi.restoreAllMocks());

  it('never appear in errors, their messages, stacks or inspected objects, nor in logs', async () => {
    const logged = vi.spyOn(console, 'log');
    const warned = vi.spyOn(console, 'warn');
    const errored = vi.spyOn(console, 'error');
    server = await startTestServer(() => ({
      status: 401,
      headers: { 'www-authenticate': 'Basic realm="oauth2"' },
      json: { error: 'invalid_client', error_description: 'Client authentication failed' },
    }));
    const tokens = provider();
    const client = createEventStreamsClient({ baseUrl: server.url, auth: tokens });
    const error = await rejectionOf(client.publish(7, {}));

    expect(error).toBeInstanceOf(TokenError);
    const tokenError = error as TokenError;
    expect(tokenError.is(401) && tokenError.body.error).toBe('invalid_client');
    const basic = Buffer.from(`${CLIENT_ID}:${CLIENT_SECRET}`).toString('base64');
    const visible = [
      String(error),
      tokenError.stack,
      JSON.stringify(error),
      inspect(error, { depth: 10, showHidden: true }),
      inspect(tokens, { depth: 10, showHidden: true }),
      inspect(client, { depth: 10, showHidden: true }),
    ].join('\n');
    expect(visible).not.toContain(CLIENT_SECRET);
    expect(visible).not.toContain(basic);
    expect(visible).toContain('invalid_client');
    expect([...logged.mock.calls, ...warned.mock.calls, ...errored.mock.calls]).toEqual([]);
  });
});
