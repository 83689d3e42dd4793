// What every message store engine owes the emulator, run against each engine.
import { describe, expect, it } from 'vitest';
import type { MessageStore } from '../../src/store/message-store.js';
import { defined } from '../defined.js';
import { messageStoreEngines, type Synchronous } from './engines.js';

const message = (i: number, size = 100) => JSON.stringify({ i, pad: 'é'.repeat(size) });

function readAll(store: Synchronous<MessageStore>, topicId: number): string[] {
  const payloads: string[] = [];
  let result = store.readOldest(topicId, 1000);
  for (;;) {
    payloads.push(...result.messages.map((m) => m.payload));
    if (!result.hasMore) return payloads;
    result = defined(store.readAfter(topicId, defined(result.messages.at(-1)).id, 1000));
  }
}

describe.each(messageStoreEngines)('$name', ({ open }) => {
  it('returns every message unchanged, including one larger than a memory slab (5 MiB)', async () => {
    const store = await open();
    store.addTopic(1, 60_000);
    const sent = Array.from({ length: 3000 }, (_, i) => message(i, 2000));
    sent.splice(1500, 0, message(-1, 5 * 1024 * 1024));
    for (const payload of sent) store.append(1, payload);
    expect(readAll(store, 1)).toEqual(sent);
  });

  it('stores the UTF-8 bytes a publish received as its payload, mixed with text-only appends', async () => {
    const store = await open();
    store.addTopic(1, 60_000);
    const sent = Array.from({ length: 3000 }, (_, i) => message(i, 2000));
    sent.splice(1500, 0, message(-1, 5 * 1024 * 1024));
    for (const [i, payload] of sent.entries()) {
      if (i % 2) store.append(1, payload);
      else store.append(1, payload, Buffer.from(payload));
    }
    expect(readAll(store, 1)).toEqual(sent);
  });

  it('drops expired messages from the front, and their ids become unknown', async () => {
    let now = 1_000_000;
    const store = await open(() => now);
    store.addTopic(1, 10_000);
    const ids: string[] = [];
    for (let i = 0; i < 10_000; i++) {
      ids.push(store.append(1, message(i)));
      if (i === 4999) now += 5_000;
    }
    now += 5_000; // the first 5000 are now 10 s old
    expect(defined(store.readOldest(1, 1).messages[0]).id).toBe(ids[5000]);
    expect(store.readAfter(1, defined(ids[4999]), 1)).toBeUndefined();
    expect(defined(store.readAfter(1, defined(ids[5000]), 1)).messages[0]?.payload).toBe(message(5001));
    expect(defined(store.readSince(1, 0, 1).messages[0]).id).toBe(ids[5000]);
    expect(readAll(store, 1)).toHaveLength(5000);
    now += 5_000;
    expect(store.readOldest(1, 10)).toEqual({ messages: [], hasMore: false });
    expect(store.readAfter(1, defined(ids[9999]), 1)).toBeUndefined();
    const next = store.append(1, message(10_000));
    expect(next > defined(ids[9999])).toBe(true);
    expect(readAll(store, 1)).toEqual([message(10_000)]);
  });

  it('keeps order and ids across many messages (memory index chunks) while the oldest expire', async () => {
    let now = 0;
    const store = await open(() => now);
    store.addTopic(1, 1_000);
    const ids = Array.from({ length: 30_000 }, (_, i) => {
      now = i < 20_000 ? 0 : 500;
      return store.append(1, `{"i":${i}}`);
    });
    now = 1_200; // the first 20000 are 1.2 s old, past the 1 s retention
    expect(store.readAfter(1, defined(ids[19_999]), 1)).toBeUndefined();
    const rest = defined(store.readAfter(1, defined(ids[20_000]), 20_000));
    expect(rest.messages.map((m) => m.id)).toEqual(ids.slice(20_001));
    expect(rest.messages.at(-1)?.payload).toBe('{"i":29999}');
    expect(defined(store.readSince(1, 0, 1).messages[0]).id).toBe(ids[20_000]);
    const next = store.append(1, '{"i":30000}');
    expect(defined(store.readAfter(1, defined(ids[29_999]), 1)).messages).toEqual([
      { id: next, payload: '{"i":30000}', time: 1_200 },
    ]);
  });

  it('issues fixed-width ids that sort in publish order as strings, and reads give the same ids', async () => {
    const store = await open();
    store.addTopic(1, 60_000);
    const ids = Array.from({ length: 1400 }, (_, i) => store.append(1, `{"i":${i}}`));
    expect(ids.every((id) => /^[0-9a-z]{11}$/.test(id))).toBe(true);
    expect(ids.every((id, i) => i === 0 || id > defined(ids[i - 1]))).toBe(true);
    expect(store.readOldest(1, 1400).messages.map((m) => m.id)).toEqual(ids);
    expect(defined(store.readAfter(1, defined(ids[34]), 3)).messages.map((m) => m.payload)).toEqual([
      '{"i":35}',
      '{"i":36}',
      '{"i":37}',
    ]);
  });

  it('knows only ids it issued for the topic', async () => {
    const store = await open();
    store.addTopic(1, 60_000);
    const id = store.append(1, message(0));
    expect(store.readAfter(1, id, 1)).toEqual({ messages: [], hasMore: false });
    for (const unknown of ['', '00000000002', '0000000001', 'ZZZZZZZZZZZ', `${id} `])
      expect(store.readAfter(1, unknown, 1)).toBeUndefined();
  });

  it('purges every message: their ids become unknown, and new ids follow the old ones', async () => {
    const store = await open();
    store.addTopic(1, 60_000);
    const purged = [store.append(1, '{"a":1}'), store.append(1, '{"a":2}')];
    store.purge(1);
    expect(store.readOldest(1, 10)).toEqual({ messages: [], hasMore: false });
    expect(store.readAfter(1, defined(purged[0]), 10)).toBeUndefined();
    const next = store.append(1, '{"a":3}');
    expect(next > defined(purged[1])).toBe(true);
    expect(store.readOldest(1, 10).messages.map((m) => m.id)).toEqual([next]);
  });

  it('keeps topics apart, and forgets a removed one', async () => {
    const store = await open();
    store.addTopic(1, 60_000);
    store.addTopic(2, 60_000);
    const first = store.append(1, '{"t":1}');
    expect(store.append(2, '{"t":2}')).toBe(first);
    store.removeTopic(1);
    expect(() => store.append(1, '{"t":1}')).toThrow('not in the store');
    expect(store.readOldest(2, 10).messages.map((m) => m.payload)).toEqual(['{"t":2}']);
  });

  it('stamps messages with the clock but never earlier than the last one, and reads since a time inclusively', async () => {
    let now = 1_000;
    const store = await open(() => now);
    store.addTopic(1, 60_000);
    store.append(1, '{"m":"a"}');
    now = 500;
    store.append(1, '{"m":"b"}');
    now = 2_000;
    store.append(1, '{"m":"c"}');
    expect(store.readOldest(1, 10).messages.map((m) => m.time)).toEqual([1_000, 1_000, 2_000]);
    expect(store.readSince(1, 1_000, 2)).toMatchObject({ messages: [{ payload: '{"m":"a"}' }, {}], hasMore: true });
    expect(store.readSince(1, 1_001, 10).messages.map((m) => m.payload)).toEqual(['{"m":"c"}']);
    expect(store.readSince(1, 2_001, 10)).toEqual({ messages: [], hasMore: false });
  });

  it('applies a shorter retention to the messages it already holds', async () => {
    let now = 0;
    const store = await open(() => now);
    store.addTopic(1, 10_000);
    const old = store.append(1, '{"m":"old"}');
    now = 5_000;
    store.append(1, '{"m":"young"}');
    now = 8_000;
    expect(store.readOldest(1, 10).messages).toHaveLength(2);
    store.setRetention(1, 4_000);
    expect(store.readOldest(1, 10).messages.map((m) => m.payload)).toEqual(['{"m":"young"}']);
    expect(store.readAfter(1, old, 10)).toBeUndefined();
  });
});
