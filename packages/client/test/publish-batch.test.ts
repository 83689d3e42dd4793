import fc from 'fast-check';
import { afterEach, describe, expect, it } from 'vitest';
import { type Message, PayloadTooLargeError, PublishBatchError } from '../src/index.js';
import { splitBatches } from '../src/publish-batch.js';
import { createTopic, numbered, type Platform, startPlatform } from './support/emulator.js';
import { rejectionOf } from './support/http-server.js';

let platform: Platform;
afterEach(() => platform?.close());

/** The `n` of each payload of each batch publish request, in the order they were sent. */
const sentBatches = () =>
  platform.sent
    .filter((s) => s.path.startsWith('/api/v1/batch/'))
    .map((s) => (JSON.parse(s.body) as { payloads: { n: number }[] }).payloads.map((p) => p.n));

async function stored(topic: number): Promise<Message[]> {
  const messages: Message[] = [];
  for await (const m of platform.events.consume(topic, { timeoutSecs: 0, stopAtEnd: true })) messages.push(m);
  return messages;
}

/** Checks that every payload is stored exactly once, under the id publishBatch returned for its position. */
async function expectStoredOnce(topic: number, ids: readonly (string | undefined)[]) {
  const byId = new Map((await stored(topic)).map((m) => [m.message_id, m.payload.n]));
  expect(byId.size).toBe(ids.filter(Boolean).length);
  ids.forEach((id, position) => {
    if (id !== undefined) expect(byId.get(id)).toBe(position);
  });
}

describe('publishBatch', () => {
  it('splits more than 100 messages into batches of at most 100 and returns ids in input order', async () => {
    platform = await startPlatform();
    const topic = await createTopic(platform);
    const ids = await platform.events.publishBatch(topic, numbered(250));
    expect(sentBatches().map((b) => b.length)).toEqual([100, 100, 50]);
    expect(sentBatches().flat()).toEqual(numbered(250).map((p) => p.n));
    expect(ids).toHaveLength(250);
    await expectStoredOnce(topic, ids);
  });

  it('resends exactly the positions that failed or got no entry', async () => {
    platform = await startPlatform();
    const topic = await createTopic(platform);
    platform.emulator.faults.failBatchPositions([1, 3]);
    platform.emulator.faults.failBatchPositions([0], { omit: true }); // second request: its first message
    const ids = await platform.events.publishBatch(topic, numbered(5));
    expect(sentBatches()).toEqual([[0, 1, 2, 3, 4], [1, 3], [1]]);
    expect(ids.every((id) => typeof id === 'string')).toBe(true);
    await expectStoredOnce(topic, ids);
  });

  it('uses a smaller batch limit when asked', async () => {
    platform = await startPlatform();
    const topic = await createTopic(platform);
    await platform.events.publishBatch(topic, numbered(7), { maxBatchMessages: 3 });
    expect(sentBatches()).toEqual([[0, 1, 2], [3, 4, 5], [6]]);
  });

  it('lists each position that was not stored when the attempts run out', async () => {
    platform = await startPlatform();
    const topic = await createTopic(platform);
    platform.emulator.faults.failBatchPositions([2, 4]);
    platform.emulator.faults.failBatchPositions([0, 1], { times: 2 }); // the resends carry only those two
    const error = await rejectionOf<PublishBatchError>(
      platform.events.publishBatch(topic, numbered(105), { maxAttempts: 3 }),
    );

    expect(error).toBeInstanceOf(PublishBatchError);
    expect(sentBatches().map((b) => b.length)).toEqual([100, 2, 2]);
    expect(error.failures.slice(0, 2)).toEqual([
      { position: 2, reason: expect.any(String) },
      { position: 4, reason: expect.any(String) },
    ]);
    expect(error.failures.slice(2)).toEqual(
      [100, 101, 102, 103, 104].map((position) => ({ position, reason: 'not sent' })),
    );
    expect(error.message).toMatch(/^7 of 105 messages were not stored/);
    expect(error.messageIds.filter(Boolean)).toHaveLength(98);
    await expectStoredOnce(topic, error.messageIds);
  });

  it('stops at a refused request and keeps the ids stored before it', async () => {
    platform = await startPlatform();
    const topic = await createTopic(platform);
    await platform.events.publishBatch(topic, numbered(1)); // the next batch request is the second
    platform.sent.length = 0;
    platform.emulator.faults.failNext('publish_messages_batch', { status: 500, code: 'INTERNAL_SERVER_ERROR' });
    const error = await rejectionOf<PublishBatchError>(platform.events.publishBatch(topic, numbered(3)));
    expect(sentBatches()).toHaveLength(1); // a 500 is not resent: the messages may be stored
    expect(error.failures.map((f) => f.position)).toEqual([0, 1, 2]);
    expect(error.failures[0]?.reason).toMatch(/failed with 500: INTERNAL_SERVER_ERROR/);
    expect(error.cause).toMatchObject({ status: 500 });
  });

  it('sends nothing for no payloads', async () => {
    platform = await startPlatform();
    await expect(platform.events.publishBatch(1, [])).resolves.toEqual([]);
    expect(sentBatches()).toEqual([]);
  });
});

describe('publishBatch limits', () => {
  it('splits batches by bytes as well as by count', async () => {
    platform = await startPlatform({ limits: { maxMessageBytes: 100 } });
    const topic = await createTopic(platform, [
      { name: 'n', type: 'integer' },
      { name: 'pad', type: 'string' },
    ]);
    // Each payload is 40 bytes of JSON: two (and a comma) fit in 100 bytes, three do not.
    const payloads = numbered(5).map(({ n }) => ({ n, pad: 'x'.repeat(24) }));
    expect(JSON.stringify(payloads[0])).toHaveLength(40);
    const ids = await platform.events.publishBatch(topic, payloads);
    expect(sentBatches()).toEqual([[0, 1], [2, 3], [4]]);
    await expectStoredOnce(topic, ids);
  });

  it('refuses a message over the size limit before sending anything', async () => {
    platform = await startPlatform({ limits: { maxMessageBytes: 100 } });
    const topic = await createTopic(platform);
    const payloads = [{ n: 0 }, { n: 1, pad: 'x'.repeat(100) }];
    const error = await rejectionOf<PayloadTooLargeError>(platform.events.publishBatch(topic, payloads));
    expect(error).toBeInstanceOf(PayloadTooLargeError);
    expect(error).toMatchObject({ position: 1, size: 116, maxSize: 100 });
    expect(error.message).toBe('Message 1 is 116 bytes of JSON; the platform accepts at most 100');
    expect(sentBatches()).toEqual([]);
  });

  it("refuses more messages per batch than the platform's limit", async () => {
    platform = await startPlatform({ limits: { maxBatchMessages: 3 } });
    const topic = await createTopic(platform);
    await platform.events.publishBatch(topic, numbered(4));
    expect(sentBatches().map((b) => b.length)).toEqual([3, 1]);
    await expect(platform.events.publishBatch(topic, numbered(4), { maxBatchMessages: 4 })).rejects.toThrow(
      new RangeError('maxBatchMessages must be an integer from 1 to 3, got 4'),
    );
  });

  it('reports each request to onSend: the positions it carries and its attempt', async () => {
    platform = await startPlatform();
    const topic = await createTopic(platform);
    platform.emulator.faults.failBatchPositions([1, 3]);
    const calls: [readonly number[], number][] = [];
    const { data, responses } = await platform.events
      .publishBatch(topic, numbered(5), { onSend: (positions, attempt) => void calls.push([positions, attempt]) })
      .withResponse();
    expect(calls).toEqual([
      [[0, 1, 2, 3, 4], 1],
      [[1, 3], 2],
    ]);
    expect(data).toHaveLength(5);
    expect(responses.map((r) => r.status)).toEqual([201, 201]);
  });
});

describe('splitBatches', () => {
  it('keeps order and every position, within the count and byte limits (a larger message alone)', () => {
    fc.assert(
      fc.property(
        fc.array(fc.integer({ min: 2, max: 300 }), { maxLength: 60 }),
        fc.integer({ min: 1, max: 10 }),
        fc.integer({ min: 2, max: 500 }),
        (sizes, maxMessages, maxBytes) => {
          const batches = splitBatches(sizes, maxMessages, maxBytes);
          expect(batches.flat()).toEqual(sizes.map((_, position) => position));
          for (const batch of batches) {
            const bytes = batch.reduce((sum, position) => sum + (sizes[position] ?? 0), batch.length - 1);
            expect(batch.length).toBeGreaterThan(0);
            expect(batch.length).toBeLessThanOrEqual(maxMessages);
            if (batch.length > 1) expect(bytes).toBeLessThanOrEqual(maxBytes);
          }
          // Greedy: the next message would not have fitted into the batch before it.
          batches.slice(1).forEach((batch, index) => {
            const previous = batches[index] ?? [];
            const bytes = previous.reduce((sum, position) => sum + (sizes[position] ?? 0), previous.length);
            const next = sizes[batch[0] ?? 0] ?? 0;
            expect(previous.length === maxMessages || bytes + next > maxBytes).toBe(true);
          });
        },
      ),
    );
  });
});
