// Memory stays bounded under endless distinct inputs: what the emulator remembers is capped, and what
// it compiles is released with its last user. Measured as entries counted, or as heap kept after a
// full garbage collection, never as time.
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { describe, expect, it } from 'vitest';
import { Journal } from '../src/control/journal.js';
import { RateLimiter } from '../src/domain/rate-limit.js';
import { BoundedMemo } from '../src/http/memo.js';
import type { TopicSchemaField } from '../src/spec/topic-schema.js';
import { call, withTopic } from './support/helpers.js';

setFlagsFromString('--expose-gc');
const collectGarbage = runInNewContext('gc') as () => void;

/** Bytes of heap in use once everything unreachable is collected. */
function heapKept(): number {
  collectGarbage();
  return process.memoryUsage().heapUsed;
}

/** Bytes of ArrayBuffers (Buffers included) kept once everything unreachable is collected. */
function buffersKept(): number {
  collectGarbage();
  return process.memoryUsage().arrayBuffers;
}

const MB = 1024 * 1024;

/** A flat schema of `count` optional fields, named after `prefix`: about 60 bytes of JSON per field. */
const wideSchema = (count: number, prefix = 'field'): TopicSchemaField[] =>
  Array.from({ length: count }, (_, i) => ({
    name: `${prefix}_${i}_padding`,
    type: i % 2 ? 'date_time' : 'integer',
    optional: true,
  }));

describe('compiled topic schemas', () => {
  it('300 updates of a topic to the same 14 KB schema keep no memory', async () => {
    // Without the request journal, which keeps each request's body (bounded by its size).
    const { server, accessToken, topicId } = await withTopic({ journalSize: 0 });
    const schema = wideSchema(230);
    expect(JSON.stringify(schema).length).toBeGreaterThan(14_000);
    const update = async () =>
      (await call(server, 'update_topic', { token: accessToken, params: { topic_id: topicId }, body: { schema } }))
        .status;
    expect(await update()).toBe(200);
    const before = heapKept();
    for (let i = 0; i < 300; i++) expect(await update()).toBe(200);
    expect((heapKept() - before) / MB).toBeLessThan(5);
  });

  it('150 updates of a topic to distinct schemas keep no memory', async () => {
    const { server, accessToken, topicId } = await withTopic({ journalSize: 0 });
    const update = async (i: number) => {
      const body = { schema: wideSchema(80, `distinct${i}`) };
      return (await call(server, 'update_topic', { token: accessToken, params: { topic_id: topicId }, body })).status;
    };
    for (let i = 0; i < 5; i++) expect(await update(i)).toBe(200);
    const before = heapKept();
    for (let i = 5; i < 155; i++) expect(await update(i)).toBe(200);
    expect((heapKept() - before) / MB).toBeLessThan(3);
  });
});

describe('the request journal', () => {
  it('keeps its last requests only: 2,000 requests of 200 KB in a journal of 10 keep a few MB', () => {
    const journal = new Journal(10);
    const body = 'x'.repeat(200_000);
    const before = buffersKept();
    for (let i = 0; i < 2000; i++) {
      journal.record({
        method: 'POST',
        url: '/api/v1/topics/1/publish',
        operationId: 'publish_message',
        api: 'event-streams',
        rawHeaders: ['Content-Type', 'application/json'],
        body: `{"order_id":"${i}","padding":"${body}"}`,
        clientId: 'client',
        status: 201,
        replyJson: '{"message_id":"00000000001"}',
        receivedAt: Date.now(),
        durationMs: 0.1,
      });
    }
    // Each kept request holds 64 KiB of its body; the chunks they are written in go once none is kept.
    expect((buffersKept() - before) / MB).toBeLessThan(20);
    expect([...journal.entries()].map((entry) => entry.id)).toEqual(Array.from({ length: 10 }, (_, i) => 1991 + i));
  });
});

describe('the request-target memo', () => {
  it('keeps at most 4096 targets, and none whose URL is longer than 512 characters', () => {
    const memo = new BoundedMemo<string>();
    for (let i = 0; i < 10_000; i++) memo.get(`/api/v1/topics/${i}/publish`, () => 'route');
    expect(memo.size).toBeLessThanOrEqual(4096);
    const long = new BoundedMemo<string>();
    for (let i = 0; i < 1000; i++) expect(long.get(`/${'x'.repeat(512)}${i}`, () => `route ${i}`)).toBe(`route ${i}`);
    expect(long.size).toBe(0);
  });
});

describe('rate-limit windows', () => {
  it('count the keys of the current minute only', () => {
    let now = Date.parse('2026-11-22T09:00:00Z');
    const limiter = new RateLimiter(10, () => now);
    for (let key = 0; key < 1000; key++) limiter.count(key);
    expect(limiter.size).toBe(1000);
    now += 60_000;
    limiter.count(1);
    expect(limiter.size).toBe(1);
  });
});
