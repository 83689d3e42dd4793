// The resource store of a data dir: items as JSON text in the `resources` table, by type and id, and
// the id counters in `counters`. Its changes join the data dir's open transaction, like the messages'.
import type { StatementSync } from 'node:sqlite';
import type { JsonObject, ResourceStore, StoredItem, StoreSnapshot } from '../resource-store.js';
import type { DataDir } from './data-dir.js';

interface ItemRow {
  type: string;
  id: string;
  parent: string | null;
  value: string;
}

/** node:sqlite types rows loosely (any column may be any SQLite value); these statements' columns are fixed. */
const itemRows = (rows: unknown[]) => rows as ItemRow[];

/** The types whose names start with the parameter (substr, not LIKE: a type may hold `_` or `%`). */
const OF_PREFIX = 'substr(type, 1, length(:prefix)) = :prefix';

const toItem = ({ id, parent, value }: ItemRow): StoredItem => ({
  id,
  ...(parent === null ? {} : { parent }),
  value: JSON.parse(value) as JsonObject,
});

export class SqliteResourceStore implements ResourceStore {
  private readonly getItem: StatementSync;
  private readonly listOfType: StatementSync;
  private readonly listOfParent: StatementSync;
  private readonly putItem: StatementSync;
  private readonly deleteItem: StatementSync;
  private readonly nextOfType: StatementSync;
  private readonly setCounter: StatementSync;

  constructor(private readonly dataDir: DataDir) {
    const { db } = dataDir;
    this.getItem = db.prepare('SELECT * FROM resources WHERE type = ? AND id = ?');
    this.listOfType = db.prepare('SELECT * FROM resources WHERE type = ? ORDER BY rowid');
    this.listOfParent = db.prepare('SELECT * FROM resources WHERE type = ? AND parent = ? ORDER BY rowid');
    this.putItem = db.prepare(
      'INSERT INTO resources (type, id, parent, value) VALUES (?, ?, ?, ?) ' +
        'ON CONFLICT (type, id) DO UPDATE SET parent = excluded.parent, value = excluded.value',
    );
    this.deleteItem = db.prepare('DELETE FROM resources WHERE type = ? AND id = ?');
    this.nextOfType = db.prepare(
      'INSERT INTO counters (type, last) VALUES (?, 1) ON CONFLICT (type) DO UPDATE SET last = last + 1 RETURNING last',
    );
    this.setCounter = db.prepare('INSERT OR REPLACE INTO counters (type, last) VALUES (?, ?)');
  }

  get(type: string, id: string): StoredItem | undefined {
    const row = this.getItem.get(type, id);
    return row && toItem(row as unknown as ItemRow);
  }

  list(type: string, parent?: string): StoredItem[] {
    const rows = parent === undefined ? this.listOfType.all(type) : this.listOfParent.all(type, parent);
    return itemRows(rows).map(toItem);
  }

  put(type: string, { id, parent, value }: StoredItem): void {
    this.dataDir.write();
    this.putItem.run(type, id, parent ?? null, JSON.stringify(value));
  }

  delete(type: string, id: string): void {
    this.dataDir.write();
    this.deleteItem.run(type, id);
  }

  nextId(type: string): number {
    this.dataDir.write();
    return Number(this.nextOfType.get(type)?.last);
  }

  snapshot(prefix = ''): StoreSnapshot {
    const items: StoreSnapshot['items'] = {};
    const rows = this.dataDir.db.prepare(`SELECT * FROM resources WHERE ${OF_PREFIX} ORDER BY rowid`).all({ prefix });
    for (const row of itemRows(rows)) {
      items[row.type] ??= [];
      items[row.type]?.push(toItem(row));
    }
    const counters = this.dataDir.db.prepare(`SELECT type, last FROM counters WHERE ${OF_PREFIX}`).all({ prefix }) as {
      type: string;
      last: number;
    }[];
    return { items, counters: Object.fromEntries(counters.map(({ type, last }) => [type, last])) };
  }

  restore({ items, counters }: StoreSnapshot, prefix = ''): void {
    this.dataDir.write();
    this.dataDir.db.prepare(`DELETE FROM resources WHERE ${OF_PREFIX}`).run({ prefix });
    this.dataDir.db.prepare(`DELETE FROM counters WHERE ${OF_PREFIX}`).run({ prefix });
    for (const [type, ofType] of Object.entries(items)) for (const item of ofType) this.put(type, item);
    for (const [type, last] of Object.entries(counters)) this.setCounter.run(type, last);
  }
}
