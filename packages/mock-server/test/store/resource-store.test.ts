// What every resource store engine owes the emulator and the management engine, run against each.
// Every call is awaited: the memory and SQLite engines answer at once, Redis through a promise.
import { describe, expect, it } from 'vitest';
import { scopedResources } from '../../src/store/resource-store.js';
import { SqliteResourceStore } from '../../src/store/sqlite/resources.js';
import { closeDataDir, describeEngines, openDataDir, resourceStoreEngines } from '../support/store/engines.js';
import { tempDir } from '../support/temp-dirs.js';

describeEngines(resourceStoreEngines, ({ open }) => {
  it('gets, lists in creation order (all, or of one parent), replaces in place and deletes', async () => {
    const store = await open();
    await store.put('key', { id: '1', parent: '7', value: { name: 'a' } });
    await store.put('key', { id: '2', parent: '8', value: { name: 'b' } });
    await store.put('key', { id: '3', parent: '7', value: { name: 'c' } });
    await store.put('client', { id: '1', value: { name: 'not a key' } });
    await store.put('key', { id: '1', parent: '7', value: { name: 'a2', nested: { list: [1, null] } } });
    expect(await store.get('key', '1')).toEqual({
      id: '1',
      parent: '7',
      value: { name: 'a2', nested: { list: [1, null] } },
    });
    expect(await store.get('client', '1')).toEqual({ id: '1', value: { name: 'not a key' } });
    expect((await store.list('key')).map((item) => item.value.name)).toEqual(['a2', 'b', 'c']);
    expect((await store.list('key', '7')).map((item) => item.id)).toEqual(['1', '3']);
    await store.delete('key', '1');
    expect(await store.get('key', '1')).toBeUndefined();
    expect((await store.list('key')).map((item) => item.id)).toEqual(['2', '3']);
    expect(await store.list('nothing')).toEqual([]);
  });

  it('gives out ids per type from 1, never again after a delete', async () => {
    const store = await open();
    expect([await store.nextId('key'), await store.nextId('key'), await store.nextId('client')]).toEqual([1, 2, 1]);
    await store.put('key', { id: '2', value: {} });
    await store.delete('key', '2');
    expect(await store.nextId('key')).toBe(3);
  });

  it('snapshots everything, and a restore replaces what it holds', async () => {
    const store = await open();
    await store.put('key', { id: '1', parent: '7', value: { name: 'a' } });
    await store.nextId('key');
    const snapshot = await store.snapshot();
    expect(snapshot).toEqual({
      items: { key: [{ id: '1', parent: '7', value: { name: 'a' } }] },
      counters: { key: 1 },
    });
    await store.put('other', { id: 'x', value: {} });
    await store.nextId('key');
    await store.restore(snapshot);
    expect(await store.snapshot()).toEqual(snapshot);
    expect(await store.nextId('key')).toBe(2);
    await store.restore({ items: {}, counters: {} });
    expect(await store.snapshot()).toEqual({ items: {}, counters: {} });
  });

  it('snapshots and restores the types of a prefix only, through a scoped view', async () => {
    const store = await open();
    await store.put('emulator:topic', { id: '1', value: { name: 'orders' } });
    await store.nextId('emulator:topic');
    const engine = scopedResources(store, 'management:');
    await engine.put('recipe', { id: String(await engine.nextId('recipe')), value: { name: 'sync' } });
    expect(await engine.snapshot()).toEqual({
      items: { recipe: [{ id: '1', value: { name: 'sync' } }] },
      counters: { recipe: 1 },
    });
    expect((await store.get('management:recipe', '1'))?.value).toEqual({ name: 'sync' });

    await engine.restore({ items: { folder: [{ id: '9', value: {} }] }, counters: { folder: 9 } });
    expect(await store.snapshot()).toEqual({
      items: {
        'emulator:topic': [{ id: '1', value: { name: 'orders' } }],
        'management:folder': [{ id: '9', value: {} }],
      },
      counters: { 'emulator:topic': 1, 'management:folder': 9 },
    });
    // A prefix is matched as text: `_` and `%` are no wildcards.
    await store.put('a_b', { id: '1', value: {} });
    expect(Object.keys((await store.snapshot('a_')).items)).toEqual(['a_b']);
    expect((await store.snapshot('a%')).items).toEqual({});
  });
});

describe('SqliteResourceStore', () => {
  it('keeps items, their order and the counters across a reopen', async () => {
    const dir = tempDir();
    const first = await openDataDir(dir);
    const before = new SqliteResourceStore(first);
    before.put('key', { id: '2', value: { n: 2 } });
    before.put('key', { id: '1', parent: '9', value: { n: 1 } });
    before.nextId('key');
    await closeDataDir(first);
    const after = new SqliteResourceStore(await openDataDir(dir));
    expect(after.list('key')).toEqual([
      { id: '2', value: { n: 2 } },
      { id: '1', parent: '9', value: { n: 1 } },
    ]);
    expect(after.nextId('key')).toBe(2);
  });
});
