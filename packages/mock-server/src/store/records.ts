// One type of the resource store with its items typed as the domain's records (topics, API clients,
// API keys: the management spec's generated types). The domain's indexes in memory are a cache of
// these: rebuilt from them at start, written through on every change, and following the changes
// other emulators announce. A record comes out as it went in: through `put`, or a state document
// checked against the spec's schema first.
import type { Awaitable } from '../awaitable.js';
import type { JsonObject, ResourceStore, StoredItem } from './resource-store.js';

/** A record of the domain: a JSON object with an integer id. */
export type DomainRecord = JsonObject & { readonly id: number };

export class StoredRecords<T extends DomainRecord> {
  constructor(
    private readonly store: ResourceStore,
    /** The store's type; prefixed (`emulator:`), so it never meets the resource engine's types. */
    readonly type: string,
    /** For a record that belongs to another (a key to its API client): that one's id. */
    private readonly parentOf?: (record: T) => number,
  ) {}

  async all(): Promise<T[]> {
    return (await this.store.list(this.type)).map((item) => this.recordOf(item));
  }

  /** The record an item of this type holds. */
  recordOf(item: StoredItem): T {
    return item.value as T;
  }

  nextId(): Awaitable<number> {
    return this.store.nextId(this.type);
  }

  /** Written through: a store that answers later applies the writes in order (see Storage.resources). */
  put(record: T): void {
    this.store.put(this.type, this.itemOf(record));
  }

  delete(id: number): void {
    this.store.delete(this.type, String(id));
  }

  /** Replaces every record of the type with these, and its id counter with their highest id. */
  replaceAll(records: readonly T[]): Awaitable<void> {
    const items = records.map((record) => this.itemOf(record));
    const last = Math.max(0, ...records.map((record) => record.id));
    return this.store.restore({ items: { [this.type]: items }, counters: { [this.type]: last } }, this.type);
  }

  private itemOf(record: T): StoredItem {
    const id = String(record.id);
    const parent = this.parentOf?.(record);
    return parent === undefined ? { id, value: record } : { id, parent: String(parent), value: record };
  }
}
