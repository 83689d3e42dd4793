// Snapshots: the database of a data dir copied into one file and back, consistent (VACUUM INTO writes
// a transaction's view of the whole database), so a team can commit a seed and start from it.
import { existsSync, mkdirSync } from 'node:fs';
import { join, resolve } from 'node:path';
import type { DatabaseSync } from 'node:sqlite';
import { checkIdentity, DATABASE_FILE, DataDir, DataDirError, explain, openDatabase } from './data-dir.js';

/** Copies the database of `dir` into `file` (which must not exist); refused while an emulator uses the dir. */
export async function snapshotDataDir(dir: string, file: string): Promise<void> {
  if (!existsSync(join(dir, DATABASE_FILE))) throw new DataDirError(`${dir} holds no emulator database`);
  if (existsSync(file)) throw new DataDirError(`${file} already exists: a snapshot is written to a new file`);
  const dataDir = await DataDir.open(dir, 'full');
  try {
    copyInto(dataDir.db, file);
  } finally {
    await dataDir.close();
  }
}

/** Copies a snapshot into the new data dir `dir`, after checking that it is a whole one of this version. */
export async function restoreDataDir(file: string, dir: string): Promise<void> {
  if (!existsSync(file)) throw new DataDirError(`There is no snapshot ${file}`);
  const target = join(dir, DATABASE_FILE);
  if (existsSync(target)) {
    throw new DataDirError(`${dir} already holds an emulator database: restore into a new or empty dir`);
  }
  const snapshot = await openDatabase(file, { readOnly: true });
  try {
    checkSnapshot(snapshot, file);
    mkdirSync(dir, { recursive: true });
    copyInto(snapshot, target);
  } finally {
    snapshot.close();
  }
}

function checkSnapshot(snapshot: DatabaseSync, file: string): void {
  try {
    if (checkIdentity(snapshot, file)) throw new DataDirError(`${file} is empty: not a snapshot of a data dir`);
    const problems = snapshot.prepare('PRAGMA integrity_check').all();
    if (problems.length !== 1 || problems[0]?.integrity_check !== 'ok') {
      throw new DataDirError(`${file} is corrupt: ${JSON.stringify(problems.slice(0, 3))}`);
    }
  } catch (error) {
    throw explain(error, file);
  }
}

function copyInto(db: DatabaseSync, file: string): void {
  try {
    db.prepare('VACUUM INTO ?').run(resolve(file));
  } catch (error) {
    throw explain(error, file);
  }
}
