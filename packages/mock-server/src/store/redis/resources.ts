// The resource store on Redis: items as JSON by type and id, their creation order, and the id counters
// (scripts.ts). Changes to the types the domain indexes in memory are announced on the change feed, in
// the script that makes them, with the item: other emulators apply them without reading Redis again.
import type { JsonObject, ResourceStore, StoredItem, StoreSnapshot } from '../resource-store.js';
import type { RedisConnection } from './connection.js';

/**
 * The domain's types (API clients, keys, tokens, topics): it keeps indexes of them in memory, which
 * follow the announced changes. The resource engine's types are read from Redis each time, unannounced.
 */
const ANNOUNCED_PREFIX = 'emulator:';

/** What a change announcement carries after its kind and origin (see feed.ts). */
export interface Change {
  type: string;
  id: string;
  /** Absent for a delete. */
  item?: StoredItem;
}

/** How an item is stored: everything but its id, which is the hash field. */
const stored = ({ parent, value }: StoredItem) => JSON.stringify(parent === undefined ? { value } : { parent, value });

function toItem(id: string, json: string): StoredItem {
  const { parent, value } = JSON.parse(json) as { parent?: string; value: JsonObject };
  return parent === undefined ? { id, value } : { id, parent, value };
}

export class RedisResourceStore implements ResourceStore {
  constructor(private readonly redis: RedisConnection) {}

  async get(type: string, id: string): Promise<StoredItem | undefined> {
    const items = this.redis.keys.items(type);
    const json = (await this.redis.send(items, ['HGET', items, id])) as string | null;
    return json === null ? undefined : toItem(id, json);
  }

  async list(type: string, parent?: string): Promise<StoredItem[]> {
    const flat = (await this.redis.run('listItems', this.typeKeys(type), [])) as string[];
    const items: StoredItem[] = [];
    for (let i = 0; i < flat.length; i += 2) items.push(toItem(flat[i] as string, flat[i + 1] as string));
    return parent === undefined ? items : items.filter((item) => item.parent === parent);
  }

  put(type: string, item: StoredItem): Promise<void> {
    const { keys } = this.redis;
    const args = [type, item.id, stored(item)];
    if (type.startsWith(ANNOUNCED_PREFIX)) args.push(this.announcement({ type, id: item.id, item }));
    return this.redis.unwaited(
      this.redis.run('putItem', [...this.typeKeys(type), keys.types, keys.positions, keys.changes], args),
    );
  }

  delete(type: string, id: string): Promise<void> {
    const args = [id];
    if (type.startsWith(ANNOUNCED_PREFIX)) args.push(this.announcement({ type, id }));
    return this.redis.unwaited(this.redis.run('deleteItem', [...this.typeKeys(type), this.redis.keys.changes], args));
  }

  async nextId(type: string): Promise<number> {
    const { counters } = this.redis.keys;
    return Number(await this.redis.write(counters, ['HINCRBY', counters, type, '1']));
  }

  async snapshot(prefix = ''): Promise<StoreSnapshot> {
    const { keys } = this.redis;
    const [flatItems, flatCounters] = (await this.redis.run(
      'snapshot',
      [keys.types, keys.counters],
      [keys.resources, prefix],
    )) as [string[], string[]];
    const items: StoreSnapshot['items'] = {};
    for (let i = 0; i < flatItems.length; i += 3) {
      const type = flatItems[i] as string;
      items[type] ??= [];
      items[type].push(toItem(flatItems[i + 1] as string, flatItems[i + 2] as string));
    }
    const counters: StoreSnapshot['counters'] = {};
    for (let i = 0; i < flatCounters.length; i += 2) counters[flatCounters[i] as string] = Number(flatCounters[i + 1]);
    return { items, counters };
  }

  restore({ items, counters }: StoreSnapshot, prefix = ''): Promise<void> {
    const { keys, origin } = this.redis;
    const countersFlat = Object.entries(counters).flatMap(([type, last]) => [type, String(last)]);
    const itemsFlat = Object.entries(items).flatMap(([type, ofType]) =>
      ofType.flatMap((item) => [type, item.id, stored(item)]),
    );
    // A restore that may replace the domain's types makes the other emulators re-read what they index.
    const announced = ANNOUNCED_PREFIX.startsWith(prefix) || prefix.startsWith(ANNOUNCED_PREFIX);
    const args = [keys.resources, prefix, announced ? `r${origin} ` : '', String(countersFlat.length / 2)];
    return this.redis.unwaited(
      this.redis.run(
        'restore',
        [keys.types, keys.counters, keys.positions, keys.changes],
        [...args, ...countersFlat, ...itemsFlat],
      ),
    );
  }

  private typeKeys(type: string): string[] {
    return [this.redis.keys.items(type), this.redis.keys.order(type)];
  }

  private announcement(change: Change): string {
    return `c${this.redis.origin} ${JSON.stringify(change)}`;
  }
}
