import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { afterEach, describe, expect, it } from 'vitest';
import {
  createEventStreamsClient,
  EventStreamsError,
  type Message,
  type MessageStream,
  PayloadTooLargeError,
} from '../src/index.js';
import { createTopic, numbered, type Platform, startPlatform } from './support/emulator.js';
import { rejectionOf } from './support/http-server.js';

let platform: Platform;
afterEach(() => platform?.close());

/** Processes messages until `limit` of them were processed (the last one is committed before leaving the loop). */
async function collect(stream: MessageStream, limit = Infinity): Promise<Message[]> {
  const messages: Message[] = [];
  for await (const message of stream) {
    messages.push(message);
    if (messages.length >= limit) {
      stream.commit();
      break;
    }
  }
  return messages;
}

/** A full garbage collection, as the next allocation might run one. */
function collectGarbage(): void {
  setFlagsFromString('--expose-gc');
  (runInNewContext('gc') as () => void)();
}

const ns = (messages: Message[]) => messages.map((m) => m.payload.n);
const consumeBodies = () => platform.sent.filter((s) => s.path.endsWith('/consume')).map((s) => JSON.parse(s.body));

describe('consume', () => {
  it('reads from the oldest message, following has_more across batches', async () => {
    platform = await startPlatform();
    const topic = await createTopic(platform);
    await platform.events.publishBatch(topic, numbered(7));
    const messages = await collect(platform.events.consume(topic, { batchSize: 3, timeoutSecs: 0, stopAtEnd: true }));
    expect(ns(messages)).toEqual([0, 1, 2, 3, 4, 5, 6]);
    expect(consumeBodies().map((b) => b.after_message_id)).toEqual([
      undefined,
      messages[2]?.message_id,
      messages[5]?.message_id,
    ]);
  });

  it('resumes after a saved checkpoint without repeating or skipping a message', async () => {
    platform = await startPlatform();
    const topic = await createTopic(platform);
    await platform.events.publishBatch(topic, numbered(5));
    const first = platform.events.consume(topic, { timeoutSecs: 0, stopAtEnd: true });
    expect(ns(await collect(first, 2))).toEqual([0, 1]);
    const checkpoint = first.lastMessageId;

    const resumed = platform.events.consume(topic, { afterMessageId: checkpoint, timeoutSecs: 0, stopAtEnd: true });
    expect(resumed.lastMessageId).toBe(checkpoint);
    const rest = await collect(resumed);
    expect(ns(rest)).toEqual([2, 3, 4]);
    expect(resumed.lastMessageId).toBe(rest.at(-1)?.message_id);
  });

  it('starts at since_time, then continues by message id', async () => {
    let now = Date.parse('2026-11-22T10:00:00Z');
    platform = await startPlatform({ clock: () => now });
    const topic = await createTopic(platform);
    await platform.events.publish(topic, { n: 0 });
    now += 10; // a later time stamp for the next ones
    await platform.events.publishBatch(topic, [{ n: 1 }, { n: 2 }]);
    const [, second] = await collect(platform.events.consume(topic, { timeoutSecs: 0, stopAtEnd: true }));
    const time = second?.time ?? '';
    platform.sent.length = 0;
    const stream = platform.events.consume(topic, {
      sinceTime: new Date(time),
      batchSize: 1,
      timeoutSecs: 0,
      stopAtEnd: true,
    });
    const messages = await collect(stream);
    expect(ns(messages)).toEqual([1, 2]);
    expect(consumeBodies()[0]).toMatchObject({ since_time: new Date(time).toISOString() });
    expect(
      consumeBodies()
        .slice(1)
        .every((b) => b.since_time === undefined && b.after_message_id),
    ).toBe(true);
  });

  it('long-polls and hands out a message published while it waits', async () => {
    platform = await startPlatform();
    const topic = await createTopic(platform);
    const stream = platform.events.consume(topic, { timeoutSecs: 5 });
    setTimeout(() => void platform.events.publish(topic, { n: 42 }), 100);
    expect(ns(await collect(stream, 1))).toEqual([42]);
    expect(consumeBodies()[0]).toMatchObject({ timeout_secs: 5 });
  });

  it('stops cleanly, without an error, when aborted during a long poll', async () => {
    platform = await startPlatform();
    const topic = await createTopic(platform);
    const controller = new AbortController();
    const stream = platform.events.consume(topic, { timeoutSecs: 30, signal: controller.signal });
    const collected = collect(stream);
    // Aborted once the long poll is on its way (the emulator holds it for up to 30 s), after a full
    // garbage collection: undici forgets to follow a signal whose Request was collected.
    await expect.poll(() => platform.sent.some((s) => s.path.endsWith('/consume'))).toBe(true);
    collectGarbage();
    controller.abort();
    await expect(collected).resolves.toEqual([]);
  });

  it('retries a 500 TIMEOUT and a 429 and goes on', async () => {
    platform = await startPlatform();
    const topic = await createTopic(platform);
    await platform.events.publishBatch(topic, numbered(3));
    platform.emulator.faults.failNext('consume_messages', { status: 500, code: 'TIMEOUT', times: 2 });
    platform.emulator.faults.failNext('consume_messages', { status: 429, retryAfter: 2 });
    const messages = await collect(platform.events.consume(topic, { timeoutSecs: 0, stopAtEnd: true }));
    expect(ns(messages)).toEqual([0, 1, 2]);
    expect(platform.waits).toEqual([250, 500, 2000]);
  });

  it('renews the token and replays after a 401', async () => {
    platform = await startPlatform();
    const topic = await createTopic(platform);
    await platform.events.publish(topic, { n: 1 });
    platform.emulator.faults.failNext('consume_messages', { status: 401 });
    const messages = await collect(platform.events.consume(topic, { timeoutSecs: 0, stopAtEnd: true }));
    expect(ns(messages)).toEqual([1]);
    expect(platform.sent.filter((s) => s.path === '/oauth2/token')).toHaveLength(2);
  });

  it('throws a typed error when the attempts run out or the request is refused', async () => {
    platform = await startPlatform({ retry: { maxAttempts: 2 } });
    const topic = await createTopic(platform);
    platform.emulator.faults.failNext('consume_messages', { status: 500, code: 'TIMEOUT', times: 2 });
    const error = await rejectionOf(collect(platform.events.consume(topic, { timeoutSecs: 0 })));
    expect(error).toBeInstanceOf(EventStreamsError);
    expect((error as EventStreamsError).status).toBe(500);

    const stream = platform.events.consume(topic, { afterMessageId: 'no-such-id', timeoutSecs: 0 });
    const unknown = await rejectionOf<EventStreamsError>(collect(stream));
    expect(unknown.is(400) && unknown.body.error.details.code).toBe('UNKNOWN_MESSAGE_ID');
  });
});

describe('publish', () => {
  it('is not retried after a 500, and the error says so with the typed body', async () => {
    platform = await startPlatform();
    const topic = await createTopic(platform);
    platform.emulator.faults.failNext('publish_message', { status: 500, code: 'INTERNAL_SERVER_ERROR' });
    const error = await rejectionOf<EventStreamsError>(platform.events.publish(topic, { n: 1 }));
    expect(error.is(500) && error.body.error.details.code).toBe('INTERNAL_SERVER_ERROR');
    expect(platform.sent.filter((s) => s.path.endsWith('/publish'))).toHaveLength(1);
    expect(platform.waits).toEqual([]);
  });

  it('waits out 429s and stores the message once', async () => {
    platform = await startPlatform();
    const topic = await createTopic(platform);
    platform.emulator.faults.failNext('publish_message', { status: 429, retryAfter: 1, times: 2 });
    await platform.events.publish(topic, { n: 9 });
    expect(platform.waits).toEqual([1000, 1000]);
    expect(ns(await collect(platform.events.consume(topic, { timeoutSecs: 0, stopAtEnd: true })))).toEqual([9]);
  });

  it('refuses a message over the size limit before sending it', async () => {
    platform = await startPlatform();
    const topic = await createTopic(platform);
    const error = await rejectionOf<PayloadTooLargeError>(
      platform.events.publish(topic, { n: 1, pad: 'x'.repeat(1_100_000) }),
    );
    expect(error).toBeInstanceOf(PayloadTooLargeError);
    expect(error).toMatchObject({ size: 1_100_016, maxSize: 1_048_576, position: undefined });
    expect(platform.sent.filter((s) => s.path.endsWith('/publish'))).toEqual([]);
  });

  it("reports the platform's 413 with max_size and current_size when its limit is lower than the client's", async () => {
    platform = await startPlatform();
    const topic = await createTopic(platform);
    const events = createEventStreamsClient({
      baseUrl: platform.emulator.url,
      auth: platform.tokens,
      limits: { maxMessageBytes: 2_000_000 },
    });
    const error = await rejectionOf<EventStreamsError>(events.publish(topic, { n: 1, pad: 'x'.repeat(1_100_000) }));
    expect(error.is(413)).toBe(true);
    if (error.is(413)) expect(error.body.current_size).toBeGreaterThan(error.body.max_size);
  });

  it('gives the raw response of a publish, and of an error', async () => {
    platform = await startPlatform();
    const topic = await createTopic(platform);
    const { data, response } = await platform.events.publish(topic, { n: 1 }).withResponse();
    expect(response.status).toBe(201);
    expect(typeof data).toBe('string');
    const error = await rejectionOf<EventStreamsError>(platform.events.publish(topic, { n: 'one' }));
    expect(error.response?.status).toBe(400);
    expect(error.is(400) && error.body.error.details.code).toBe('SCHEMA_MISMATCH');
  });
});
