// Opening a data dir: refused with a clear message when it cannot be used, and never misread.
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { DatabaseSync } from 'node:sqlite';
import { describe, expect, it } from 'vitest';
import { DATABASE_FILE, DataDir } from '../../src/store/sqlite/data-dir.js';
import { SqliteResourceStore } from '../../src/store/sqlite/resources.js';
import { restoreDataDir, snapshotDataDir } from '../../src/store/sqlite/snapshot.js';
import { closeDataDir, openDataDir } from '../support/store/engines.js';
import { tempDir } from '../support/temp-dirs.js';

/** A data dir whose database was written by this version, then changed with `sql`. */
async function alteredDataDir(sql: string): Promise<string> {
  const dir = tempDir();
  await closeDataDir(await openDataDir(dir));
  const db = new DatabaseSync(join(dir, DATABASE_FILE));
  db.exec(sql);
  db.close();
  return dir;
}

describe('DataDir.open', () => {
  it('refuses a dir held by another emulator until that one closes', async () => {
    const dir = tempDir();
    const first = await openDataDir(dir);
    await expect(DataDir.open(dir, 'full')).rejects.toThrow(/in use by another running emulator/);
    await closeDataDir(first);
    await closeDataDir(await openDataDir(dir));
  });

  it('refuses a dir it cannot write or create', async () => {
    // No process may create files in /proc/self, root included (a read-only mode does not stop root).
    await expect(DataDir.open('/proc/self', 'full')).rejects.toThrow('The data dir /proc/self is not writable');
    const file = join(tempDir(), 'a-file');
    writeFileSync(file, '');
    await expect(DataDir.open(join(file, 'data'), 'full')).rejects.toThrow(/not writable/);
  });

  it('refuses a corrupt database and another program’s database, and leaves them as they were', async () => {
    const corrupt = tempDir();
    writeFileSync(join(corrupt, DATABASE_FILE), 'not a database, though long enough to have a header'.repeat(100));
    await expect(DataDir.open(corrupt, 'full')).rejects.toThrow(/corrupt or not a database/);

    const foreign = tempDir();
    const other = new DatabaseSync(join(foreign, DATABASE_FILE));
    other.exec('CREATE TABLE messages (id TEXT); INSERT INTO messages VALUES (1)');
    other.close();
    const before = readFileSync(join(foreign, DATABASE_FILE));
    await expect(DataDir.open(foreign, 'full')).rejects.toThrow(/is not a database of platform-api-mock/);
    expect(readFileSync(join(foreign, DATABASE_FILE))).toEqual(before);
    expect(existsSync(join(foreign, `${DATABASE_FILE}-wal`))).toBe(false);
  });

  it('refuses a database of another schema version, older or newer, naming it', async () => {
    await expect(DataDir.open(await alteredDataDir('PRAGMA user_version = 0'), 'full')).rejects.toThrow(
      /written by an older version of platform-api-mock \(schema 0\); this version reads schema 1/,
    );
    await expect(DataDir.open(await alteredDataDir('PRAGMA user_version = 2'), 'full')).rejects.toThrow(
      /written by a newer version of platform-api-mock \(schema 2\)/,
    );
  });
});

describe('snapshots', () => {
  it('copies a data dir into a file and back into a new data dir', async () => {
    const dir = tempDir();
    const dataDir = await openDataDir(dir);
    new SqliteResourceStore(dataDir).put('key', { id: '1', value: { name: 'seeded' } });
    await expect(snapshotDataDir(dir, join(tempDir(), 'seed.db'))).rejects.toThrow(/in use by another/);
    await closeDataDir(dataDir);

    const seed = join(tempDir(), 'seed.db');
    await snapshotDataDir(dir, seed);
    await expect(snapshotDataDir(dir, seed)).rejects.toThrow(/already exists/);
    const restored = join(tempDir(), 'restored');
    await restoreDataDir(seed, restored);
    await expect(restoreDataDir(seed, restored)).rejects.toThrow(/already holds an emulator database/);
    expect(new SqliteResourceStore(await openDataDir(restored)).get('key', '1')?.value).toEqual({ name: 'seeded' });
  });

  it('refuses to restore what is not a whole snapshot of this version', async () => {
    const garbage = join(tempDir(), 'garbage.db');
    writeFileSync(garbage, 'x'.repeat(4096));
    await expect(restoreDataDir(garbage, join(tempDir(), 'a'))).rejects.toThrow(/corrupt or not a database/);
    const newer = join(await alteredDataDir('PRAGMA user_version = 2'), DATABASE_FILE);
    await expect(restoreDataDir(newer, join(tempDir(), 'b'))).rejects.toThrow(/newer version/);
    const empty = join(tempDir(), 'empty.db');
    new DatabaseSync(empty).close();
    await expect(restoreDataDir(empty, join(tempDir(), 'c'))).rejects.toThrow(/empty: not a snapshot/);
    await expect(restoreDataDir(join(tempDir(), 'missing.db'), join(tempDir(), 'd'))).rejects.toThrow(/no snapshot/);
  });
});
