// Where the emulator keeps everything but messages: items of a type by id, as JSON values, and a
// counter of ids per type. The domain keeps its API clients, keys, tokens and topics here (its indexes
// in memory are a cache of them, see records.ts), and the management API's resource engine has the
// same shape, so one database can hold both. Every method may answer at once or with a
// promise, as in the message store.
import type { Awaitable } from '../awaitable.js';

export type JsonObject = Record<string, unknown>;

export interface StoredItem {
  /** The id as text (integer ids too), as it appears in paths. */
  id: string;
  /** For an item that belongs to another (a key to its API client): that item's id. */
  parent?: string;
  value: JsonObject;
}

/** Everything a resource store holds. */
export interface StoreSnapshot {
  items: Record<string, StoredItem[]>;
  /** Per type, the last integer id given out. */
  counters: Record<string, number>;
}

/** `Type`: the names of the types it is asked about; the resource engine's handlers name only those of the spec. */
export interface ResourceStore<Type extends string = string> {
  get(type: Type, id: string): Awaitable<StoredItem | undefined>;
  /** The items of a type in creation order; only those of `parent` when given. */
  list(type: Type, parent?: string): Awaitable<StoredItem[]>;
  /** Inserts the item, or replaces the one with its id in place (it keeps its position in lists). */
  put(type: Type, item: StoredItem): Awaitable<void>;
  delete(type: Type, id: string): Awaitable<void>;
  /** The next integer id of a type, from 1: ids are never reused, also not after a delete. */
  nextId(type: Type): Awaitable<number>;
  /** The items and counters of the types whose names start with `prefix` (default: all). */
  snapshot(prefix?: string): Awaitable<StoreSnapshot>;
  /**
   * Replaces the types whose names start with `prefix` (default: all) with the snapshot's, which
   * holds only such types; an empty snapshot empties them.
   */
  restore(snapshot: StoreSnapshot, prefix?: string): Awaitable<void>;
}

/**
 * A store's types under `prefix`, seen without it: the resource engine's part of the one store the
 * domain shares, whose snapshot and restore leave the domain's types alone.
 */
export function scopedResources(store: ResourceStore, prefix: string): ResourceStore {
  const renamed = (snapshot: StoreSnapshot, rename: (type: string) => string): StoreSnapshot => ({
    items: Object.fromEntries(Object.entries(snapshot.items).map(([type, items]) => [rename(type), items])),
    counters: Object.fromEntries(Object.entries(snapshot.counters).map(([type, last]) => [rename(type), last])),
  });
  const unprefixed = (type: string) => type.slice(prefix.length);
  return {
    get: (type, id) => store.get(prefix + type, id),
    list: (type, parent) => store.list(prefix + type, parent),
    put: (type, item) => store.put(prefix + type, item),
    delete: (type, id) => store.delete(prefix + type, id),
    nextId: (type) => store.nextId(prefix + type),
    snapshot: async (inner = '') => renamed(await store.snapshot(prefix + inner), unprefixed),
    restore: (snapshot, inner = '') =>
      store.restore(
        renamed(snapshot, (type) => prefix + type),
        prefix + inner,
      ),
  };
}
