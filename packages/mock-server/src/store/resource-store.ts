// Where the emulator keeps everything but messages: items of a type by id, as JSON values, and a
// counter of ids per type. The domain keeps its API clients, keys, tokens and topics here (it holds
// its own indexes in memory and writes every change through), and the management API's resource
// engine has the same shape, so one database can hold both. Every method may answer at once or with a
// promise, as in the message store.
import type { Awaitable } from './message-store.js';

export type JsonObject = Record<string, unknown>;

/** A record (an interface without an index signature) as the JSON object it is stored as. */
export const asJsonObject = (value: object) => value as JsonObject;

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

export interface ResourceStore {
  get(type: string, id: string): Awaitable<StoredItem | undefined>;
  /** The items of a type in creation order; only those of `parent` when given. */
  list(type: string, parent?: string): Awaitable<StoredItem[]>;
  /** Inserts the item, or replaces the one with its id in place (it keeps its position in lists). */
  put(type: string, item: StoredItem): Awaitable<void>;
  delete(type: string, id: string): Awaitable<void>;
  /** The next integer id of a type, from 1: ids are never reused, also not after a delete. */
  nextId(type: string): Awaitable<number>;
  snapshot(): Awaitable<StoreSnapshot>;
  /** Replaces everything with the snapshot; an empty snapshot empties the store. */
  restore(snapshot: StoreSnapshot): Awaitable<void>;
}

/** The default: maps in memory, holding the items it is given (not copies). */
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
    let ofType = this.items.get(type);
    if (!ofType) {
      ofType = new Map();
      this.items.set(type, ofType);
    }
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
      Object.entries(copy.items).map(([type, items]) => [type, new Map(items.map((item) => [item.id, item]))]),
    );
    this.counters = new Map(Object.entries(copy.counters));
  }
}
