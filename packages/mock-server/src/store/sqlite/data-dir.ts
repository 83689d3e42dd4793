// A data dir: one SQLite database (node:sqlite, WAL journal) that holds every piece of the emulator's
// state. Opening it checks that it is this emulator's, in the schema this version reads, and locks it
// for this process; the stores write into one transaction that `commit` ends (group commit).
import { accessSync, constants, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import type { DatabaseSync } from 'node:sqlite';

/**
 * `full`: a commit counts once the WAL is on disk (synchronous=FULL: fsync); `relaxed`: once
 * it is written to the WAL (synchronous=NORMAL), which survives a crash of the process but not of
 * the machine.
 */
export type Durability = 'full' | 'relaxed';

export const DATABASE_FILE = 'emulator.db';
/** Marks the database as this emulator's ('PAMK'), so another program's SQLite file is never misread. */
const APPLICATION_ID = 0x50414d4b;
/** Raised with every change of the tables below; a database of another version is refused, not misread. */
export const SCHEMA_VERSION = 1;

const SCHEMA = `
  CREATE TABLE message_topics (
    topic_id INTEGER PRIMARY KEY,
    retention_ms INTEGER NOT NULL,
    -- No message of the topic below this sequence remains (they were purged or expired).
    first_sequence INTEGER NOT NULL,
    -- The time of the newest message when the older ones were deleted: times never go backwards.
    last_time INTEGER NOT NULL
  );
  CREATE TABLE messages (
    topic_id INTEGER NOT NULL,
    sequence INTEGER NOT NULL,
    time INTEGER NOT NULL,
    payload TEXT NOT NULL,
    PRIMARY KEY (topic_id, sequence)
  ) WITHOUT ROWID;
  -- Items of the ResourceStore; the rowid keeps creation order (an upsert keeps it).
  CREATE TABLE resources (
    type TEXT NOT NULL,
    id TEXT NOT NULL,
    parent TEXT,
    value TEXT NOT NULL,
    UNIQUE (type, id)
  );
  CREATE INDEX resources_by_parent ON resources (type, parent);
  CREATE TABLE counters (type TEXT PRIMARY KEY, last INTEGER NOT NULL);
`;

/** A data dir that cannot be used, with what to do about it. */
export class DataDirError extends Error {}

/** The first Node.js that has node:sqlite without a flag (the package's engines say the same when published). */
const SQLITE_NODE_VERSION = '22.13';

/** node:sqlite is loaded when a data dir is opened: an emulator in memory does without it. */
export async function openDatabase(path: string, options: { readOnly?: boolean } = {}): Promise<DatabaseSync> {
  const { DatabaseSync } = await loadSqlite();
  try {
    return new DatabaseSync(path, options);
  } catch (error) {
    throw explain(error, path);
  }
}

/** On an older Node (or 22.5-22.12 without --experimental-sqlite) the import fails with a bare "No such built-in module". */
async function loadSqlite(): Promise<typeof import('node:sqlite')> {
  try {
    return await import('node:sqlite');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ERR_UNKNOWN_BUILTIN_MODULE') throw error;
    throw new DataDirError(
      `a data dir needs Node.js ${SQLITE_NODE_VERSION} or later (for node:sqlite); this is Node.js ${process.version}. ` +
        'Run it on a newer Node, or leave out the data dir to keep the state in memory.',
    );
  }
}

/**
 * The database of a data dir and its transaction. The changes of a turn of the event loop are one
 * transaction (group commit); for `full` durability SQLite syncs the WAL before COMMIT returns
 * (synchronous=FULL), so a turn's answers are written once its changes are on disk. The sync blocks
 * the event loop meanwhile; the requests that arrive are read together in the next turn, whose commit
 * covers them all (BENCHMARKS.md compares this with syncing in the thread pool).
 */
export class DataDir {
  private inTransaction = false;

  private constructor(
    readonly db: DatabaseSync,
    readonly path: string,
    /** The database was made by this open (the directory held none). */
    readonly created: boolean,
  ) {}

  /** Creates the directory and the database when missing; refuses one in use, corrupt or of another version. */
  static async open(dir: string, durability: Durability): Promise<DataDir> {
    prepareDirectory(dir);
    const path = join(dir, DATABASE_FILE);
    const db = await openDatabase(path);
    try {
      // The lock is held until close: another emulator on the same dir is refused (busy_timeout 0:
      // at once), and WAL needs no shared memory file.
      db.exec('PRAGMA busy_timeout = 0; PRAGMA locking_mode = EXCLUSIVE');
      const empty = checkIdentity(db, path);
      db.exec(`PRAGMA journal_mode = WAL; PRAGMA synchronous = ${durability === 'full' ? 'FULL' : 'NORMAL'}`);
      if (empty) createSchema(db);
      return new DataDir(db, path, empty);
    } catch (error) {
      db.close();
      throw explain(error, path);
    }
  }

  /** Called before every change: the changes until the next commit form one transaction. */
  write(): void {
    if (this.inTransaction) return;
    this.db.exec('BEGIN');
    this.inTransaction = true;
  }

  /** Commits the changes since the last commit together (group commit), durably for `full` durability. */
  commit(): undefined {
    if (this.inTransaction) {
      this.inTransaction = false;
      this.db.exec('COMMIT');
    }
    return undefined;
  }

  async close(): Promise<void> {
    this.commit();
    this.db.close();
  }
}

function prepareDirectory(dir: string): void {
  try {
    mkdirSync(dir, { recursive: true });
    accessSync(dir, constants.W_OK);
  } catch (error) {
    throw new DataDirError(`The data dir ${dir} is not writable: ${(error as Error).message}`);
  }
}

/** True for a new, empty database; refuses another program's database and another schema version. */
export function checkIdentity(db: DatabaseSync, path: string): boolean {
  const number = (sql: string) => Number(Object.values(db.prepare(sql).get() ?? {})[0]);
  if (number('SELECT count(*) FROM sqlite_schema') === 0) return true;
  const pragma = (name: string) => number(`PRAGMA ${name}`);
  if (pragma('application_id') !== APPLICATION_ID) {
    throw new DataDirError(`${path} is not a database of platform-api-mock; use an empty data dir`);
  }
  const version = pragma('user_version');
  if (version !== SCHEMA_VERSION) {
    const writer = version < SCHEMA_VERSION ? 'an older' : 'a newer';
    throw new DataDirError(
      `${path} was written by ${writer} version of platform-api-mock (schema ${version}); this version reads ` +
        `schema ${SCHEMA_VERSION}. Use that version, or start from an empty data dir.`,
    );
  }
  return false;
}

function createSchema(db: DatabaseSync): void {
  db.exec(
    `BEGIN; ${SCHEMA}; PRAGMA application_id = ${APPLICATION_ID}; PRAGMA user_version = ${SCHEMA_VERSION}; COMMIT`,
  );
}

/** SQLite's primary result codes this maps to advice; others keep SQLite's own message. */
const ADVICE: Record<number, string> = {
  5: 'it is in use by another running emulator (or another program)',
  6: 'it is in use by another running emulator (or another program)',
  8: 'the data dir is not writable',
  11: 'it is corrupt or not a database',
  // Also when the process has as many files open as it may: each data dir keeps two (the database, its WAL).
  14: 'it cannot be opened or created: is the data dir writable, and the limit of open files (ulimit -n) not reached?',
  26: 'it is corrupt or not a database',
};

/** The error as a DataDirError that names the file and says what is wrong. */
export function explain(error: unknown, path: string): Error {
  if (error instanceof DataDirError) return error;
  const { errcode, message } = error as { errcode?: number; message: string };
  const advice = errcode === undefined ? undefined : ADVICE[errcode & 0xff];
  return new DataDirError(`Cannot use ${path}: ${advice ?? message}${advice ? ` (${message})` : ''}`);
}
