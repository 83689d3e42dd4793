import { afterEach, describe, expect, it } from 'vitest';
import { createEventStreamsClient, createManagementClient, EventStreamsError, retryAfterMs } from '../src/index.js';
import { errorBody, type Reply, rejectionOf, startTestServer, type TestServer } from './support/http-server.js';

let server: TestServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

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
  const started = await startTestServer(() => replies[Math.min(started.received.length, replies.length) - 1]!);
  server = started;
  return started;
}

/** A client whose waits are recorded instead of slept. */
function client(retry: { maxAttempts?: number; maxWaitMs?: number } = {}) {
  const waits: number[] = [];
  const events = createEventStreamsClient({
    baseUrl: server!.url,
    auth: { token: 't' },
    retry: { ...retry, now: () => NOW, sleep: async (ms) => void waits.push(ms) },
  });
  return { events, waits };
}

describe('429', () => {
  it('waits the RETRY-AFTER seconds and sends the request again', async () => {
    await answering(rateLimited('2'), created);
    const { events, waits } = client();
    await expect(events.publish(7, { n: 1 })).resolves.toBe('m-1');
    expect(waits).toEqual([2000]);
    expect(server!.received.map((r) => r.body)).toEqual(['{"n":1}', '{"n":1}']);
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
    expect(server!.received).toHaveLength(3);
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
    await answering(rateLimited('30'), created);
    const events = createEventStreamsClient({ baseUrl: server!.url, auth: { token: 't' } });
    const controller = new AbortController();
    setTimeout(() => controller.abort(), 50);
    const started = performance.now();
    await expect(events.publish(7, {}, { signal: controller.signal })).rejects.toMatchObject({ name: 'AbortError' });
    expect(performance.now() - started).toBeLessThan(2000);
    expect(server!.received).toHaveLength(1);
  });
});

describe('500', () => {
  it('is not retried for publish: the message may have been stored', async () => {
    await answering(internal('TIMEOUT'), created);
    const { events, waits } = client();
    const error = await rejectionOf(events.publish(7, {}));
    expect(server!.received).toHaveLength(1);
    expect(waits).toEqual([]);
    expect(error).toBeInstanceOf(EventStreamsError);
    const apiError = error as EventStreamsError;
    expect(apiError.is(500) && apiError.body.error.details.code).toBe('TIMEOUT');
    expect(apiError.message).toBe('POST /api/v1/topics/{topic_id}/publish failed with 500: TIMEOUT - TIMEOUT');
  });

  function management(waits: number[]) {
    return createManagementClient({
      baseUrl: server!.url,
      auth: { token: 't' },
      retry: { sleep: async (ms) => void waits.push(ms) },
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
    expect(server!.received).toHaveLength(1);
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

  it('are not retried for publish', async () => {
    await answering(dropped, created);
    const { events, waits } = client();
    await expect(events.publish(7, {})).rejects.toThrow(TypeError);
    expect(server!.received).toHaveLength(1);
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
