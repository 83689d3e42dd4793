import { afterEach, describe, expect, it } from 'vitest';
import {
  type Checkpoint,
  EventStreamsError,
  type Message,
  type MessageStream,
  memoryCheckpointStore,
} from '../src/index.js';
import { createTopic, numbered, type Platform, startPlatform } from './support/emulator.js';
import { rejectionOf } from './support/http-server.js';

let platform: Platform;
afterEach(() => platform?.close());

const ns = (messages: readonly Message[]) => messages.map((m) => m.payload.n);
const options = { timeoutSecs: 0, stopAtEnd: true } as const;

/** Runs `handle` on each message of the stream until it throws; returns the messages it finished. */
async function process(stream: MessageStream, handle: (message: Message) => void): Promise<Message[]> {
  const done: Message[] = [];
  try {
    for await (const message of stream) {
      handle(message);
      done.push(message);
    }
  } catch {
    // The handler's failure ends the loop, as it would in a consumer.
  }
  return done;
}

/** Publishes messages n = 1..5 and returns their ids. */
async function fiveMessages(): Promise<{ topic: number; ids: string[] }> {
  const topic = await createTopic(platform);
  const ids = await platform.events.publishBatch(
    topic,
    numbered(6).filter((p) => p.n > 0),
  );
  return { topic, ids };
}

const failOn = (n: number) => (message: Message) => {
  if (message.payload.n === n) throw new Error(`cannot process message ${n}`);
};

describe('the consume iterator (at least once)', () => {
  it('keeps the checkpoint at message 2 when the loop throws on message 3; resuming delivers 3, 4, 5', async () => {
    platform = await startPlatform();
    const { topic, ids } = await fiveMessages();
    const stream = platform.events.consume(topic, options);
    expect(ns(await process(stream, failOn(3)))).toEqual([1, 2]);
    expect(stream.lastMessageId).toBe(ids[1]);
    expect(stream.checkpoint?.messageId).toBe(ids[1]);

    const resumed = platform.events.consume(topic, { ...options, checkpoint: stream.checkpoint });
    expect(ns(await process(resumed, () => undefined))).toEqual([3, 4, 5]);
  });

  it('checkpoints the last message when the loop ran to the end', async () => {
    platform = await startPlatform();
    const { topic, ids } = await fiveMessages();
    const stream = platform.events.consume(topic, options);
    expect(ns(await process(stream, () => undefined))).toEqual([1, 2, 3, 4, 5]);
    expect(stream.lastMessageId).toBe(ids[4]);
    expect(stream.checkpoint).toEqual({ messageId: ids[4], time: expect.any(String) });
  });

  it('does not count a message left with break as processed, unless commit() says so', async () => {
    platform = await startPlatform();
    const { topic, ids } = await fiveMessages();
    const stream = platform.events.consume(topic, options);
    for await (const message of stream) if (message.payload.n === 2) break;
    expect(stream.lastMessageId).toBe(ids[0]);

    const committed = platform.events.consume(topic, options);
    for await (const message of committed) {
      if (message.payload.n === 2) {
        committed.commit();
        break;
      }
    }
    expect(committed.lastMessageId).toBe(ids[1]);
  });

  it('moves the checkpoint to a message only when the loop asks for the next one', async () => {
    platform = await startPlatform();
    const { topic, ids } = await fiveMessages();
    const stream = platform.events.consume(topic, options);
    const iterator = stream[Symbol.asyncIterator]();
    await iterator.next();
    expect(stream.lastMessageId).toBeUndefined(); // message 1 handed out, not yet processed
    await iterator.next();
    expect(stream.lastMessageId).toBe(ids[0]);
    await iterator.return?.();
    expect(stream.lastMessageId).toBe(ids[0]);
  });
});

describe('subscribe (handler, checkpoint store)', () => {
  it('saves the checkpoint of message 2 when the handler throws on message 3; the next start delivers 3, 4, 5', async () => {
    platform = await startPlatform();
    const { topic, ids } = await fiveMessages();
    const store = memoryCheckpointStore();
    const handled: unknown[] = [];
    const failing = platform.events.subscribe(
      topic,
      (message) => {
        failOn(3)(message);
        handled.push(message.payload.n);
      },
      { ...options, store },
    );
    await expect(failing.done).rejects.toThrow('cannot process message 3');
    expect(handled).toEqual([1, 2]);
    expect(store.checkpoints.get(`topic-${topic}`)?.messageId).toBe(ids[1]);

    const resumed: unknown[] = [];
    await platform.events.subscribe(topic, (message) => void resumed.push(message.payload.n), { ...options, store })
      .done;
    expect(resumed).toEqual([3, 4, 5]);
    expect(store.checkpoints.get(`topic-${topic}`)?.messageId).toBe(ids[4]);
  });

  it('checkpoints a message only after its asynchronous handler resolved', async () => {
    platform = await startPlatform();
    const { topic, ids } = await fiveMessages();
    const store = memoryCheckpointStore();
    const seen: (string | undefined)[] = [];
    const subscription = platform.events.subscribe(
      topic,
      async (message) => {
        await new Promise((resolve) => setImmediate(resolve));
        seen.push(subscription.checkpoint?.messageId);
        expect(message.message_id).not.toBe(subscription.checkpoint?.messageId);
      },
      { ...options, store, saveEvery: { messages: 1 } },
    );
    await subscription.done;
    expect(seen).toEqual([undefined, ...ids.slice(0, 4)]);
  });

  it('saves after every `messages` processed messages and at the end', async () => {
    platform = await startPlatform();
    const { topic, ids } = await fiveMessages();
    const saves: string[] = [];
    const store = memoryCheckpointStore();
    const recording = { load: store.load, save: async (_key: string, c: Checkpoint) => void saves.push(c.messageId) };
    await platform.events.subscribe(topic, () => undefined, {
      ...options,
      store: recording,
      saveEvery: { messages: 2 },
    }).done;
    expect(saves).toEqual([ids[1], ids[3], ids[4]]);
  });

  it('saves once `ms` passed since the last save, on the client clock', async () => {
    let now = 0;
    platform = await startPlatform({ retry: { now: () => now } });
    const { topic, ids } = await fiveMessages();
    const saves: string[] = [];
    const store = {
      load: async () => undefined,
      save: async (_: string, c: Checkpoint) => void saves.push(c.messageId),
    };
    await platform.events.subscribe(
      topic,
      (message) => {
        if (message.payload.n === 3) now += 1000; // message 3 takes a second
      },
      { ...options, store, saveEvery: { messages: 100, ms: 1000 } },
    ).done;
    expect(saves).toEqual([ids[2], ids[4]]);
  });

  it('stops gracefully: the current handler finishes, its checkpoint is saved, no later message is handled', async () => {
    platform = await startPlatform();
    const { topic, ids } = await fiveMessages();
    const store = memoryCheckpointStore();
    const handled: unknown[] = [];
    const subscription = platform.events.subscribe(
      topic,
      async (message, { signal }) => {
        if (message.payload.n === 2) void subscription.stop();
        expect(signal.aborted).toBe(message.payload.n === 2);
        await new Promise((resolve) => setImmediate(resolve));
        handled.push(message.payload.n);
      },
      { ...options, store },
    );
    await subscription.done;
    expect(handled).toEqual([1, 2]);
    expect(store.checkpoints.get(`topic-${topic}`)?.messageId).toBe(ids[1]);
  });

  it('stops during a long poll when aborted, saving what it processed', async () => {
    platform = await startPlatform();
    const { topic, ids } = await fiveMessages();
    const store = memoryCheckpointStore();
    const controller = new AbortController();
    const subscription = platform.events.subscribe(
      topic,
      (message) => {
        if (message.payload.n === 5) setImmediate(() => controller.abort());
      },
      { store, timeoutSecs: 30, signal: controller.signal },
    );
    await subscription.done;
    expect(store.checkpoints.get(`topic-${topic}`)?.messageId).toBe(ids[4]);
  });
});

describe('an expired checkpoint (400 UNKNOWN_MESSAGE_ID)', () => {
  /** Messages 1, 2 published at 0 s, 3 at 8 s, 4 and 5 at 9 s on a topic that keeps them 10 s; read at 12 s. */
  async function expiredCheckpoint() {
    let now = Date.parse('2026-11-22T10:00:00Z');
    platform = await startPlatform({ clock: () => now });
    const topic = await createTopic(platform, undefined, undefined, 10);
    const early = await platform.events.publishBatch(topic, [{ n: 1 }, { n: 2 }]);
    now += 8000;
    await platform.events.publish(topic, { n: 3 });
    now += 1000;
    await platform.events.publishBatch(topic, [{ n: 4 }, { n: 5 }]);
    const [, second, , fourth] = await collectAll(topic);
    now += 3000; // messages 1 and 2 are now 12 s old: past the retention
    return { topic, expired: { messageId: early[1] ?? '', time: second?.time ?? '' }, fourth };
  }

  async function collectAll(topic: number, from: Partial<Parameters<Platform['events']['consume']>[1]> = {}) {
    const messages: Message[] = [];
    for await (const message of platform.events.consume(topic, { ...options, ...from })) messages.push(message);
    return messages;
  }

  it('fails by default, with the typed error', async () => {
    const { topic, expired } = await expiredCheckpoint();
    const error = await rejectionOf<EventStreamsError>(collectAll(topic, { checkpoint: expired }));
    expect(error).toBeInstanceOf(EventStreamsError);
    expect(error.is(400) && error.body.error.details.code).toBe('UNKNOWN_MESSAGE_ID');
  });

  it("resumes from the oldest retained message with 'oldest'", async () => {
    const { topic, expired } = await expiredCheckpoint();
    expect(ns(await collectAll(topic, { checkpoint: expired, onExpiredCheckpoint: 'oldest' }))).toEqual([3, 4, 5]);
    expect(platform.logged).toContainEqual({
      type: 'checkpoint-expired',
      topicId: topic,
      messageId: expired.messageId,
      resumeFrom: 'oldest',
    });
  });

  it("resumes from the checkpoint's time with 'since-time'", async () => {
    const { topic, expired, fourth } = await expiredCheckpoint();
    expect(ns(await collectAll(topic, { checkpoint: expired, onExpiredCheckpoint: 'since-time' }))).toEqual([3, 4, 5]);
    // A checkpoint the topic never had, dated at message 4: 'since-time' starts there, 'oldest' would not.
    const unknown = { messageId: `${fourth?.message_id}-unknown`, time: fourth?.time ?? '' };
    expect(ns(await collectAll(topic, { checkpoint: unknown, onExpiredCheckpoint: 'since-time' }))).toEqual([4, 5]);
    const sent = platform.sent.filter((s) => s.path.endsWith('/consume')).map((s) => JSON.parse(s.body));
    expect(sent.slice(-2)).toEqual([
      expect.objectContaining({ after_message_id: unknown.messageId }),
      expect.objectContaining({ since_time: fourth?.time }),
    ]);
  });

  it('applies the policy in subscribe too, and saves the new checkpoint', async () => {
    const { topic, expired } = await expiredCheckpoint();
    const store = memoryCheckpointStore([[`topic-${topic}`, expired]]);
    const handled: unknown[] = [];
    await platform.events.subscribe(topic, (message) => void handled.push(message.payload.n), {
      ...options,
      store,
      onExpiredCheckpoint: 'since-time',
    }).done;
    expect(handled).toEqual([3, 4, 5]);
    expect(store.checkpoints.get(`topic-${topic}`)?.messageId).not.toBe(expired.messageId);
  });
});
