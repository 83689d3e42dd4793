import { describe, expect, it } from 'vitest';
import { MemoryStore } from '../../src/index.js';
import { defined } from '../defined.js';

const message = (i: number, size = 100) => JSON.stringify({ i, pad: 'é'.repeat(size) });

function readAll(store: MemoryStore, topicId: number): string[] {
  const payloads: string[] = [];
  let result = store.readOldest(topicId, 1000);
  for (;;) {
    payloads.push(...result.messages.map((m) => m.payload));
    if (!result.hasMore) return payloads;
    result = defined(store.readAfter(topicId, defined(result.messages.at(-1)).id, 1000));
  }
}

describe('MemoryStore', () => {
  it('returns every message unchanged across slab boundaries, including one larger than a slab', () => {
    const store = new MemoryStore();
    store.addTopic(1, 60_000);
    const sent = Array.from({ length: 3000 }, (_, i) => message(i, 2000));
    sent.splice(1500, 0, message(-1, 5 * 1024 * 1024));
    for (const payload of sent) store.append(1, payload);
    expect(readAll(store, 1)).toEqual(sent);
  });

  it('stores the UTF-8 bytes a publish received as its payload, mixed with text-only appends', () => {
    const store = new MemoryStore();
    store.addTopic(1, 60_000);
    const sent = Array.from({ length: 3000 }, (_, i) => message(i, 2000));
    sent.splice(1500, 0, message(-1, 5 * 1024 * 1024));
    for (const [i, payload] of sent.entries()) {
      if (i % 2) store.append(1, payload);
      else store.append(1, payload, Buffer.from(payload));
    }
    expect(readAll(store, 1)).toEqual(sent);
  });

  it('drops expired messages from the front, and their ids become unknown, also after compaction', () => {
    let now = 1_000_000;
    const store = new MemoryStore(() => now);
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

  it('keeps order and ids across many index chunks while expiry frees the oldest ones', () => {
    let now = 0;
    const store = new MemoryStore(() => now);
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

  it('issues fixed-width ids that sort in publish order as strings, and reads give the same ids', () => {
    const store = new MemoryStore();
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

  it('knows only ids it issued for the topic', () => {
    const store = new MemoryStore();
    store.addTopic(1, 60_000);
    const id = store.append(1, message(0));
    expect(store.readAfter(1, id, 1)).toEqual({ messages: [], hasMore: false });
    for (const unknown of ['', '00000000002', '0000000001', 'ZZZZZZZZZZZ', `${id} `])
      expect(store.readAfter(1, unknown, 1)).toBeUndefined();
  });
});
