// What every resource store engine owes the emulator and the management engine, run against each.
import { describe, expect, it } from 'vitest';
import { scopedResources } from '../../src/store/resource-store.js';
import { SqliteResourceStore } from '../../src/store/sqlite/resources.js';
import { tempDir } from '../temp-dirs.js';
import { closeDataDir, openDataDir, resourceStoreEngines } from './engines.js';

describe.each(resourceStoreEngines)('$name', ({ open }) => {
  it('gets, lists in creation order (all, or of one parent), replaces in place and deletes', async () => {
    const store = await open();
    store.put('key', { id: '1', parent: '7', value: { name: 'a' } });
    store.put('key', { id: '2', parent: '8', value: { name: 'b' } });
    store.put('key', { id: '3', parent: '7', value: { name: 'c' } });
    store.put('client', { id: '1', value: { name: 'not a key' } });
    store.put('key', { id: '1', parent: '7', value: { name: 'a2', nested: { list: [1, null] } } });
    expect(store.get('key', '1')).toEqual({ id: '1', parent: '7', value: { name: 'a2', nested: { list: [1, null] } } });
    expect(store.get('client', '1')).toEqual({ id: '1', value: { name: 'not a key' } });
    expect(store.list('key').map((item) => item.value.name)).toEqual(['a2', 'b', 'c']);
    expect(store.list('key', '7').map((item) => item.id)).toEqual(['1', '3']);
    store.delete('key', '1');
    expect(store.get('key', '1')).toBeUndefined();
    expect(store.list('key').map((item) => item.id)).toEqual(['2', '3']);
    expect(store.list('nothing')).toEqual([]);
  });

  it('gives out ids per type from 1, never again after a delete', async () => {
    const store = await open();
    expect([store.nextId('key'), store.nextId('key'), store.nextId('client')]).toEqual([1, 2, 1]);
    store.put('key', { id: '2', value: {} });
    store.delete('key', '2');
    expect(store.nextId('key')).toBe(3);
  });

  it('snapshots everything, and a restore replaces what it holds', async () => {
    const store = await open();
    store.put('key', { id: '1', parent: '7', value: { name: 'a' } });
    store.nextId('key');
    const snapshot = store.snapshot();
    expect(snapshot).toEqual({
      items: { key: [{ id: '1', parent: '7', value: { name: 'a' } }] },
      counters: { key: 1 },
    });
    store.put('other', { id: 'x', value: {} });
    store.nextId('key');
    store.restore(snapshot);
    expect(store.snapshot()).toEqual(snapshot);
    expect(store.nextId('key')).toBe(2);
    store.restore({ items: {}, counters: {} });
    expect(store.snapshot()).toEqual({ items: {}, counters: {} });
  });

  it('snapshots and restores the types of a prefix only, through a scoped view', async () => {
    const store = await open();
    store.put('emulator:topic', { id: '1', value: { name: 'orders' } });
    store.nextId('emulator:topic');
    const engine = scopedResources(store, 'management:');
    await engine.put('recipe', { id: String(await engine.nextId('recipe')), value: { name: 'sync' } });
    expect(await engine.snapshot()).toEqual({
      items: { recipe: [{ id: '1', value: { name: 'sync' } }] },
      counters: { recipe: 1 },
    });
    expect(store.get('management:recipe', '1')?.value).toEqual({ name: 'sync' });

    await engine.restore({ items: { folder: [{ id: '9', value: {} }] }, counters: { folder: 9 } });
    expect(store.snapshot()).toEqual({
      items: {
        'emulator:topic': [{ id: '1', value: { name: 'orders' } }],
        'management:folder': [{ id: '9', value: {} }],
      },
      counters: { 'emulator:topic': 1, 'management:folder': 9 },
    });
    // A prefix is matched as text: `_` and `%` are no wildcards.
    store.put('a_b', { id: '1', value: {} });
    expect(Object.keys(store.snapshot('a_').items)).toEqual(['a_b']);
    expect(store.snapshot('a%').items).toEqual({});
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
