// What every message store engine owes the emulator, run against each engine. Every call is awaited:
// the memory and SQLite engines answer at once, Redis through a promise.
import { expect, it } from 'vitest';
import type { MessageStore } from '../../src/store/message-store.js';
import { defined } from '../support/defined.js';
import { describeEngines, messageStoreEngines } from '../support/store/engines.js';

const message = (i: number, size = 100) => JSON.stringify({ i, pad: 'é'.repeat(size) });

async function readAll(store: MessageStore, topicId: number): Promise<string[]> {
  const payloads: string[] = [];
  let result = await store.readOldest(topicId, 1000);
  for (;;) {
    payloads.push(...result.messages.map((m) => m.payload));
    if (!result.hasMore) return payloads;
    result = defined(await store.readAfter(topicId, defined(result.messages.at(-1)).id, 1000));
  }
}

/** Appends in order; the calls go out together, as concurrent publishes do (one round trip for Redis). */
const appendEach = (store: MessageStore, topicId: number, payloads: string[]) =>
  Promise.all(payloads.map((payload) => store.append(topicId, payload)));

describeEngines(messageStoreEngines, ({ open }) => {
  it('returns every message unchanged, including one larger than a memory slab (5 MiB)', async () => {
    const store = await open();
    await store.addTopic(1, 60_000);
    const sent = Array.from({ length: 3000 }, (_, i) => message(i, 2000));
    sent.splice(1500, 0, message(-1, 5 * 1024 * 1024));
    await appendEach(store, 1, sent);
    expect(await readAll(store, 1)).toEqual(sent);
  });

  it('stores the UTF-8 bytes a publish received as its payload, mixed with text-only appends', async () => {
    const store = await open();
    await store.addTopic(1, 60_000);
    const sent = Array.from({ length: 3000 }, (_, i) => message(i, 2000));
    sent.splice(1500, 0, message(-1, 5 * 1024 * 1024));
    await Promise.all(
      sent.map((payload, i) => (i % 2 ? store.append(1, payload) : store.append(1, payload, Buffer.from(payload)))),
    );
    expect(await readAll(store, 1)).toEqual(sent);
  });

  it('drops expired messages from the front, and their ids become unknown', async () => {
    let now = 1_000_000;
    const store = await open(() => now);
    await store.addTopic(1, 10_000);
    const ids = await Promise.all(
      Array.from({ length: 10_000 }, (_, i) => {
        const id = store.append(1, message(i));
        if (i === 4999) now += 5_000;
        return id;
      }),
    );
    now += 5_000; // the first 5000 are now 10 s old
    expect(defined((await store.readOldest(1, 1)).messages[0]).id).toBe(ids[5000]);
    expect(await store.readAfter(1, defined(ids[4999]), 1)).toBeUndefined();
    expect(defined(await store.readAfter(1, defined(ids[5000]), 1)).messages[0]?.payload).toBe(message(5001));
    expect(defined((await store.readSince(1, 0, 1)).messages[0]).id).toBe(ids[5000]);
    expect(await readAll(store, 1)).toHaveLength(5000);
    now += 5_000;
    expect(await store.readOldest(1, 10)).toEqual({ messages: [], hasMore: false });
    expect(await store.readAfter(1, defined(ids[9999]), 1)).toBeUndefined();
    const next = await store.append(1, message(10_000));
    expect(next > defined(ids[9999])).toBe(true);
    expect(await readAll(store, 1)).toEqual([message(10_000)]);
  });

  it('keeps order and ids across many messages (memory index chunks) while the oldest expire', async () => {
    let now = 0;
    const store = await open(() => now);
    await store.addTopic(1, 1_000);
    const ids = await Promise.all(
      Array.from({ length: 30_000 }, (_, i) => {
        now = i < 20_000 ? 0 : 500;
        return store.append(1, `{"i":${i}}`);
      }),
    );
    now = 1_200; // the first 20000 are 1.2 s old, past the 1 s retention
    expect(await store.readAfter(1, defined(ids[19_999]), 1)).toBeUndefined();
    const rest = defined(await store.readAfter(1, defined(ids[20_000]), 20_000));
    expect(rest.messages.map((m) => m.id)).toEqual(ids.slice(20_001));
    expect(rest.messages.at(-1)?.payload).toBe('{"i":29999}');
    expect(defined((await store.readSince(1, 0, 1)).messages[0]).id).toBe(ids[20_000]);
    const next = await store.append(1, '{"i":30000}');
    expect(defined(await store.readAfter(1, defined(ids[29_999]), 1)).messages).toEqual([
      { id: next, payload: '{"i":30000}', time: 1_200 },
    ]);
  });

  it('issues fixed-width ids that sort in publish order as strings, and reads give the same ids', async () => {
    const store = await open();
    await store.addTopic(1, 60_000);
    const ids = await appendEach(
      store,
      1,
      Array.from({ length: 1400 }, (_, i) => `{"i":${i}}`),
    );
    expect(ids.every((id) => /^[0-9a-z]{11}$/.test(id))).toBe(true);
    expect(ids.every((id, i) => i === 0 || id > defined(ids[i - 1]))).toBe(true);
    expect((await store.readOldest(1, 1400)).messages.map((m) => m.id)).toEqual(ids);
    expect(defined(await store.readAfter(1, defined(ids[34]), 3)).messages.map((m) => m.payload)).toEqual([
      '{"i":35}',
      '{"i":36}',
      '{"i":37}',
    ]);
  });

  it('knows only ids it issued for the topic', async () => {
    const store = await open();
    await store.addTopic(1, 60_000);
    const id = await store.append(1, message(0));
    expect(await store.readAfter(1, id, 1)).toEqual({ messages: [], hasMore: false });
    for (const unknown of ['', '00000000002', '0000000001', 'ZZZZZZZZZZZ', `${id} `])
      expect(await store.readAfter(1, unknown, 1)).toBeUndefined();
  });

  it('purges every message: their ids become unknown, and new ids follow the old ones', async () => {
    const store = await open();
    await store.addTopic(1, 60_000);
    const purged = [await store.append(1, '{"a":1}'), await store.append(1, '{"a":2}')];
    await store.purge(1);
    expect(await store.readOldest(1, 10)).toEqual({ messages: [], hasMore: false });
    expect(await store.readAfter(1, defined(purged[0]), 10)).toBeUndefined();
    const next = await store.append(1, '{"a":3}');
    expect(next > defined(purged[1])).toBe(true);
    expect((await store.readOldest(1, 10)).messages.map((m) => m.id)).toEqual([next]);
  });

  it('keeps topics apart, and forgets a removed one', async () => {
    const store = await open();
    await store.addTopic(1, 60_000);
    await store.addTopic(2, 60_000);
    const first = await store.append(1, '{"t":1}');
    expect(await store.append(2, '{"t":2}')).toBe(first);
    await store.removeTopic(1);
    await expect(async () => store.append(1, '{"t":1}')).rejects.toThrow('not in the store');
    expect((await store.readOldest(2, 10)).messages.map((m) => m.payload)).toEqual(['{"t":2}']);
  });

  it('stamps messages with the clock but never earlier than the last one, and reads since a time inclusively', async () => {
    let now = 1_000;
    const store = await open(() => now);
    await store.addTopic(1, 60_000);
    await store.append(1, '{"m":"a"}');
    now = 500;
    await store.append(1, '{"m":"b"}');
    now = 2_000;
    await store.append(1, '{"m":"c"}');
    expect((await store.readOldest(1, 10)).messages.map((m) => m.time)).toEqual([1_000, 1_000, 2_000]);
    expect(await store.readSince(1, 1_000, 2)).toMatchObject({
      messages: [{ payload: '{"m":"a"}' }, {}],
      hasMore: true,
    });
    expect((await store.readSince(1, 1_001, 10)).messages.map((m) => m.payload)).toEqual(['{"m":"c"}']);
    expect(await store.readSince(1, 2_001, 10)).toEqual({ messages: [], hasMore: false });
  });

  it('applies a shorter retention to the messages it already holds', async () => {
    let now = 0;
    const store = await open(() => now);
    await store.addTopic(1, 10_000);
    const old = await store.append(1, '{"m":"old"}');
    now = 5_000;
    await store.append(1, '{"m":"young"}');
    now = 8_000;
    expect((await store.readOldest(1, 10)).messages).toHaveLength(2);
    await store.setRetention(1, 4_000);
    expect((await store.readOldest(1, 10)).messages.map((m) => m.payload)).toEqual(['{"m":"young"}']);
    expect(await store.readAfter(1, old, 10)).toBeUndefined();
  });
});
