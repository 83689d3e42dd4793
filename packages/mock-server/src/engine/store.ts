// Where the resource engine keeps its items. The interface is Promise-friendly: the engine awaits every
// call, so an engine backed by SQLite or Redis can answer asynchronously; the memory store answers at
// once. Items are plain JSON values, so any engine can keep them as text.

export type Awaitable<T> = T | Promise<T>;

/** A JSON object: an item, a request body, a state document. */
export type JsonObject = Record<string, unknown>;

export interface StoredItem {
  /** The id as text (integer ids too), as it appears in paths. */
  id: string;
  /** For an item of a sub-collection: the id of the item it belongs to. */
  parent?: string;
  value: JsonObject;
}

/** Everything a store holds, as the state document's `resources` and `counters` carry it. */
export interface StoreSnapshot {
  items: Record<string, StoredItem[]>;
  /** Per type, the last integer id given out (ids are never reused, also not after a delete). */
  counters: Record<string, number>;
}

export interface ResourceStore {
  get(type: string, id: string): Awaitable<StoredItem | undefined>;
  /** The items of a type in creation order; only those of `parent` when given. */
  list(type: string, parent?: string): Awaitable<StoredItem[]>;
  /** Inserts the item, or replaces the one with its id in place (it keeps its position in lists). */
  put(type: string, item: StoredItem): Awaitable<void>;
  delete(type: string, id: string): Awaitable<void>;
  /** The next integer id of a type: one more than the last one given out. */
  nextId(type: string): Awaitable<number>;
  snapshot(): Awaitable<StoreSnapshot>;
  /** Replaces everything with the snapshot; an empty snapshot empties the store. */
  restore(snapshot: StoreSnapshot): Awaitable<void>;
}

export class MemoryResourceStore implements ResourceStore {
  private items = new Map<string, Map<string, StoredItem>>();
  private counters = new Map<string, number>();

  get(type: string, id: string): StoredItem | undefined {
    return this.items.get(type)?.get(id);
  }

  list(type: string, parent?: string): StoredItem[] {
    const all = [...(this.items.get(type)?.values() ?? [])];
    return parent === undefined ? all : all.filter((item) => item.parent === parent);
  }

  put(type: string, item: StoredItem): void {
    const ofType = this.items.get(type) ?? new Map<string, StoredItem>();
    this.items.set(type, ofType);
    ofType.set(item.id, item);
  }

  delete(type: string, id: string): void {
    this.items.get(type)?.delete(id);
  }

  nextId(type: string): number {
    const next = (this.counters.get(type) ?? 0) + 1;
    this.counters.set(type, next);
    return next;
  }

  snapshot(): StoreSnapshot {
    return structuredClone({
      items: Object.fromEntries([...this.items].map(([type, ofType]) => [type, [...ofType.values()]])),
      counters: Object.fromEntries(this.counters),
    });
  }

  restore(snapshot: StoreSnapshot): void {
    const copy = structuredClone(snapshot);
    this.items = new Map(
      Object.entries(copy.items).map(([type, list]) => [type, new Map(list.map((item) => [item.id, item]))]),
    );
    this.counters = new Map(Object.entries(copy.counters));
  }
}
