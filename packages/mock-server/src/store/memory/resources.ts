// The default resource store: items in maps in memory, by type and id.
import type { ResourceStore, StoredItem, StoreSnapshot } from '../resource-store.js';

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

  snapshot(prefix = ''): StoreSnapshot {
    const items = [...this.items].filter(([type]) => type.startsWith(prefix));
    return structuredClone({
      items: Object.fromEntries(items.map(([type, ofType]) => [type, [...ofType.values()]])),
      counters: Object.fromEntries([...this.counters].filter(([type]) => type.startsWith(prefix))),
    });
  }

  restore(snapshot: StoreSnapshot, prefix = ''): void {
    const copy = structuredClone(snapshot);
    for (const type of [...this.items.keys()]) if (type.startsWith(prefix)) this.items.delete(type);
    for (const type of [...this.counters.keys()]) if (type.startsWith(prefix)) this.counters.delete(type);
    for (const [type, items] of Object.entries(copy.items)) {
      this.items.set(type, new Map(items.map((item) => [item.id, item])));
    }
    for (const [type, last] of Object.entries(copy.counters)) this.counters.set(type, last);
  }
}
