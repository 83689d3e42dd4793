import fc from 'fast-check';
import { afterEach, describe, expect, it } from 'vitest';
import {
  ConnectionError,
  clientCredentials,
  createEventStreamsClient,
  createManagementClient,
  EventStreamsError,
  type LogEvent,
  retryAfterMs,
  TimeoutError,
} from '../src/index.js';
import { retryPolicy } from '../src/retry.js';
import {
  errorBody,
  type Reply,
  rejectionOf,
  startTestServer,
  type TestServer,
  tokenReply,
} from './support/http-server.js';

let server: TestServer;
afterEach(() => server?.close());

const NOW = Date.parse('2026-11-22T10:00:00Z');
const created: Reply = { status: 201, json: { message_id: 'm-1' } };
const rateLimited = (retryAfter: string): Reply => ({
  status: 429,
  headers: { 'retry-after': retryAfter },
  json: errorBody('RATE_LIMITED'),
});
const internal = (code: 'TIMEOUT' | 'INTERNAL_SERVER_ERROR'): Reply => ({ status: 500, json: errorBody(code) });

/** Answers the Nth request with replies[N], then repeats the last one. */
async function answering(...replies: Reply[]) {
  const started = await startTestServer(
    () => replies[Math.min(started.received.length, replies.length) - 1] ?? { status: 500 },
  );
  server = started;
  return started;
}

/** A client whose waits are recorded instead of slept. */
function client(retry: { maxAttempts?: number; maxWaitMs?: number } = {}) {
  const waits: number[] = [];
  const events = createEventStreamsClient({
    baseUrl: server.url,
    auth: { token: 't' },
    retry: { ...retry, now: () => NOW, random: () => 0, sleep: async (ms) => void waits.push(ms) },
  });
  return { events, waits };
}

describe('429', () => {
  it('waits the RETRY-AFTER seconds and sends the request again', async () => {
    await answering(rateLimited('2'), created);
    const { events, waits } = client();
    await expect(events.publish(7, { n: 1 })).resolves.toBe('m-1');
    expect(waits).toEqual([2000]);
    expect(server.received.map((r) => r.body)).toEqual(['{"n":1}', '{"n":1}']);
  });

  it('waits until a RETRY-AFTER HTTP date', async () => {
    await answering(rateLimited(new Date(NOW + 3000).toUTCString()), created);
    const { events, waits } = client();
    await events.publish(7, {});
    expect(waits).toEqual([3000]);
  });

  it('stops after maxAttempts and throws the 429 with its retry-after', async () => {
    await answering(rateLimited('1'));
    const { events, waits } = client({ maxAttempts: 3 });
    const error = await rejectionOf(events.publish(7, {}));
    expect(server.received).toHaveLength(3);
    expect(waits).toEqual([1000, 1000]);
    expect(error).toBeInstanceOf(EventStreamsError);
    expect(error).toMatchObject({ status: 429, retryAfterMs: 1000, body: errorBody('RATE_LIMITED') });
  });

  it('does not wait longer than maxWaitMs', async () => {
    await answering(rateLimited('3600'), created);
    const { events, waits } = client({ maxWaitMs: 60_000 });
    await expect(events.publish(7, {})).rejects.toMatchObject({ status: 429, retryAfterMs: 3_600_000 });
    expect(waits).toEqual([]);
  });

  it('ends the wait when the request is aborted', async () => {
    const controller = new AbortController();
    // The caller aborts once the 429 asking for a 30 s wait is on its way (without the abort, the
    // test would run into its 10 s timeout).
    server = await startTestServer(() => {
      setImmediate(() => controller.abort());
      return rateLimited('30');
    });
    const events = createEventStreamsClient({ baseUrl: server.url, auth: { token: 't' } });
    await expect(events.publish(7, {}, { signal: controller.signal })).rejects.toMatchObject({ name: 'AbortError' });
    expect(server.received).toHaveLength(1);
  });
});

describe('500', () => {
  it('is not retried for publish: the message may have been stored', async () => {
    await answering(internal('TIMEOUT'), created);
    const { events, waits } = client();
    const error = await rejectionOf(events.publish(7, {}));
    expect(server.received).toHaveLength(1);
    expect(waits).toEqual([]);
    expect(error).toBeInstanceOf(EventStreamsError);
    const apiError = error as EventStreamsError;
    expect(apiError.is(500) && apiError.body.error.details.code).toBe('TIMEOUT');
    expect(apiError.message).toBe('POST /api/v1/topics/{topic_id}/publish failed with 500: TIMEOUT - TIMEOUT');
  });

  function management(waits: number[]) {
    return createManagementClient({
      baseUrl: server.url,
      auth: { token: 't' },
      retry: { random: () => 0, sleep: async (ms) => void waits.push(ms) },
    });
  }

  it('is retried with backoff for reads of the management API', async () => {
    await answering(internal('INTERNAL_SERVER_ERROR'), internal('TIMEOUT'), { status: 200, json: [] });
    const waits: number[] = [];
    const { response } = await management(waits).GET('/api/event_streams/topics');
    expect(response.status).toBe(200);
    expect(waits).toEqual([250, 500]);
  });

  it('is not retried for writes of the management API', async () => {
    await answering(internal('INTERNAL_SERVER_ERROR'), { status: 200, json: {} });
    const waits: number[] = [];
    const path = { topic_id: 1 };
    const { error, response } = await management(waits).DELETE('/api/event_streams/topics/{topic_id}', {
      params: { path },
    });
    expect(response.status).toBe(500);
    expect(error).toEqual(errorBody('INTERNAL_SERVER_ERROR'));
    expect(server.received).toHaveLength(1);
  });
});

describe('network errors', () => {
  const dropped: Reply = { drop: true, status: 0 };

  it('are retried for consume', async () => {
    const message = { message_id: 'm-1', payload: { n: 1 }, time: '2026-11-22T10:00:00Z' };
    await answering(dropped, { status: 200, json: { messages: [message], has_more: false } });
    const { events, waits } = client();
    const messages = [];
    for await (const m of events.consume(7, { timeoutSecs: 0, stopAtEnd: true })) messages.push(m);
    expect(messages).toEqual([message]);
    expect(waits).toEqual([250]);
  });

  it('are not retried for publish, and fail with a ConnectionError', async () => {
    await answering(dropped, created);
    const { events, waits } = client();
    const error = await rejectionOf<ConnectionError>(events.publish(7, {}));
    expect(error).toBeInstanceOf(ConnectionError);
    expect(error.message).toMatch(/^POST \/api\/v1\/topics\/\{topic_id\}\/publish got no answer: /);
    expect(error.cause).toBeInstanceOf(TypeError);
    expect(server.received).toHaveLength(1);
    expect(waits).toEqual([]);
  });
});

describe('retryAfterMs', () => {
  const after = (value?: string) =>
    retryAfterMs(new Response(null, { headers: value === undefined ? {} : { 'retry-after': value } }), () => NOW);

  it('reads delay-seconds and HTTP dates, and ignores what it cannot read', () => {
    expect(after('0')).toBe(0);
    expect(after(' 120 ')).toBe(120_000);
    expect(after('Sun, 22 Nov 2026 10:00:30 GMT')).toBe(30_000);
    expect(after('Sun, 22 Nov 2026 09:00:00 GMT')).toBe(0);
    expect(after('soon')).toBeUndefined();
    expect(after('-5')).toBeUndefined();
    expect(after()).toBeUndefined();
  });
});

describe('timeouts', () => {
  /** A server that never answers the first `silent` requests (they wait until it closes), then answers `reply`. */
  async function silentFor(silent: number, reply: Reply) {
    server = await startTestServer(() =>
      server.received.length <= silent ? new Promise<Reply>(() => undefined) : reply,
    );
  }

  it('fail a publish with a TimeoutError after timeoutMs, without resending it', async () => {
    await silentFor(1, created);
    // Long enough for the server to take the request on a loaded machine before the client gives up.
    const events = createEventStreamsClient({ baseUrl: server.url, auth: { token: 't' }, timeoutMs: 1000 });
    const error = await rejectionOf<TimeoutError>(events.publish(7, {}));
    expect(error).toBeInstanceOf(TimeoutError);
    expect(error).toBeInstanceOf(ConnectionError);
    expect(error).toMatchObject({ timeoutMs: 1000, method: 'POST', path: '/api/v1/topics/{topic_id}/publish' });
    expect(error.message).toBe('POST /api/v1/topics/{topic_id}/publish got no answer: no response within 1000 ms');
    expect(server.received).toHaveLength(1);
  });

  it('are retried for reads, with a per-request timeout replacing the client one', async () => {
    await silentFor(2, { status: 200, json: { data: [], count: 0 } });
    const waits: number[] = [];
    const management = createManagementClient({
      baseUrl: server.url,
      auth: { token: 't' },
      timeoutMs: 60_000,
      retry: { random: () => 0, sleep: async (ms) => void waits.push(ms) },
    });
    // Long enough for the answering attempt on a loaded machine; the silent ones never answer.
    const { response } = await management.GET('/api/event_streams/topics', { timeoutMs: 500 });
    expect(response.status).toBe(200);
    expect(server.received).toHaveLength(3);
    expect(waits).toEqual([250, 500]);
  });

  it('do not apply to the long poll of consume', async () => {
    const message = { message_id: 'm-1', payload: {}, time: '2026-11-22T10:00:00Z' };
    server = await startTestServer(async () => {
      await new Promise((resolve) => setTimeout(resolve, 60)); // longer than timeoutMs, within the long poll
      return { status: 200, json: { messages: [message], has_more: false } };
    });
    const events = createEventStreamsClient({ baseUrl: server.url, auth: { token: 't' }, timeoutMs: 20 });
    const messages = [];
    for await (const m of events.consume(7, { timeoutSecs: 1, stopAtEnd: true })) messages.push(m);
    expect(messages).toEqual([message]);
  });
});

describe('per-request retry options', () => {
  it('replace the client policy for that request only', async () => {
    await answering(rateLimited('1'), created, rateLimited('1'), created);
    const { events, waits } = client({ maxAttempts: 4 });
    await expect(events.publish(7, {}, { retry: { maxAttempts: 1 } })).rejects.toMatchObject({ status: 429 });
    expect(await events.publish(7, {})).toBe('m-1');
    await expect(events.publish(7, {})).resolves.toBe('m-1');
    expect(waits).toEqual([1000]);
  });
});

describe('backoff', () => {
  it('is full jitter: a uniform wait up to 250 ms doubling per retry, at most 8 s', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 30 }),
        fc.double({ min: 0, max: 1, maxExcluded: true, noNaN: true }),
        (retry, r) => {
          const wait = retryPolicy({ random: () => r }).backoffMs(retry);
          const ceiling = Math.min(250 * 2 ** (retry - 1), 8000);
          expect(wait).toBeGreaterThanOrEqual(0);
          expect(wait).toBeLessThanOrEqual(ceiling);
          expect(wait).toBe(Math.round(ceiling * (1 - r)));
        },
      ),
    );
  });

  it('draws a new random wait for each retry', async () => {
    await answering(internal('TIMEOUT'), internal('TIMEOUT'), { status: 200, json: [] });
    const waits: number[] = [];
    const draws = [0.5, 0.25];
    const management = createManagementClient({
      baseUrl: server.url,
      auth: { token: 't' },
      retry: { random: () => draws.shift() ?? 0, sleep: async (ms) => void waits.push(ms) },
    });
    await management.GET('/api/event_streams/topics');
    expect(waits).toEqual([125, 375]);
  });
});

describe('logger', () => {
  it('tells each attempt, retry and token renewal, and never a token or a secret', async () => {
    const secret = 'client-secret-9f8e7d';
    let calls = 0;
    server = await startTestServer((request) => {
      if (request.path === '/oauth2/token') return tokenReply(server.received);
      calls += 1;
      if (calls === 1) return { status: 401, json: errorBody('INVALID_TOKEN') };
      if (calls === 2) return rateLimited('0');
      return created;
    });
    const logged: LogEvent[] = [];
    const logger = (event: LogEvent) => void logged.push(event);
    const auth = clientCredentials({ authUrl: server.url, clientId: 'id-1', clientSecret: secret, logger });
    const events = createEventStreamsClient({ baseUrl: server.url, auth, logger, retry: { now: () => NOW } });
    await events.publish(7, { n: 1 });
    const path = '/api/v1/topics/{topic_id}/publish';
    expect(logged).toEqual([
      { type: 'token', reason: 'first', expiresInSeconds: 3600 },
      { type: 'request', method: 'POST', path, attempt: 1, status: 401, durationMs: 0 },
      { type: 'retry', method: 'POST', path, attempt: 1, waitMs: 0, reason: '401' },
      { type: 'token', reason: 'rejected', expiresInSeconds: 3600 },
      { type: 'request', method: 'POST', path, attempt: 1, status: 429, durationMs: 0 },
      { type: 'retry', method: 'POST', path, attempt: 2, waitMs: 0, reason: '429' },
      { type: 'request', method: 'POST', path, attempt: 2, status: 201, durationMs: 0 },
    ]);
    const text = JSON.stringify(logged);
    expect(text).not.toContain(secret);
    expect(text).not.toContain('token-');
  });

  it('tells a network failure and a timeout apart', async () => {
    await answering({ drop: true, status: 0 }, { status: 200, json: [] });
    const logged: LogEvent[] = [];
    const management = createManagementClient({
      baseUrl: server.url,
      auth: { token: 't' },
      logger: (event) => void logged.push(event),
      retry: { sleep: async () => undefined, now: () => NOW },
    });
    await management.GET('/api/event_streams/topics');
    expect(logged.map((e) => (e.type === 'request' ? (e.error ?? e.status) : e.type))).toEqual([
      'network',
      'retry',
      200,
    ]);
  });
});
