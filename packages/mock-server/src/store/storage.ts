// Where one emulator keeps its state: the messages, the resources (everything else), and the commit
// that makes a turn's changes durable before its answers are written (group commit). Three engines:
// memory, a data dir (SQLite) and Redis, which several emulators share. Each keeps the tenants made at
// run time (workspaces) beside the default tenant, each tenant's state apart (TenantStorages).
import { readdirSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import type { Logger } from '../logger.js';
import { MemoryStore } from './memory/messages.js';
import { MemoryResourceStore } from './memory/resources.js';
import type { MessageStore } from './message-store.js';
import type { RedisConnection } from './redis/connection.js';
import type { ResourceStore } from './resource-store.js';
import type { SharedState } from './shared-state.js';
import type { Durability } from './sqlite/data-dir.js';

export interface Storage {
  messages: MessageStore;
  /**
   * The domain writes through without waiting for `put` and `delete`: an engine that answers later
   * must apply them in order, and fail `commit` when one failed.
   */
  resources: ResourceStore;
  /** True when nothing was stored before this start (memory, or a data dir just created). */
  fresh: boolean;
  /**
   * Commits every change so far; the held answers of a turn are written once what it returns has
   * settled (at once when it returns undefined).
   */
  commit(): Promise<void> | undefined;
  close(): Promise<void>;
  /** For a store that several emulators share (Redis): how this one keeps up with the others' changes. */
  shared?: SharedState;
}

/**
 * Where the tenants made at run time keep their state, each its own: opened (made when new) when a
 * workspace is made or found on record, freed when it is deleted.
 */
export interface TenantStorages {
  /**
   * Marks a workspace being made as live, before its environments are first opened (and its record
   * committed); `free` ends that first. Where several emulators share the storage (Redis), a workspace's
   * storage writes only while it is live.
   */
  markLive?(workspaceId: number): Promise<void>;
  open(workspaceId: number, environment: string, clock: () => number): Promise<Storage>;
  /** Frees everything the workspace held, once its tenants' storages are closed. */
  free(workspaceId: number): Promise<void>;
  /**
   * `listener` is told of each workspace whose storage refused a write (WorkspaceGone): another emulator
   * deleted it, and its announcement may not have come yet.
   */
  whenGone?(listener: (workspaceId: number) => void): void;
  /**
   * Frees what the workspaces not in `recorded` hold: made before a crash that came before their
   * record was committed, or deleted after theirs was. Only while one emulator holds the storage: a
   * data dir is locked; on Redis, only when this emulator is alone (SharedState.alone), as another
   * may be making a workspace whose record is not committed yet.
   */
  freeUnrecorded?(recorded: ReadonlySet<number>): Promise<void>;
  /** False where a change is kept once made (memory): then the group commit need not visit each workspace. */
  readonly commits: boolean;
}

/** The default tenant's storage, and where the tenants made at run time keep theirs. */
export interface EmulatorStorage extends Storage {
  workspaces: TenantStorages;
}

/** The default: everything in memory, gone when the process ends. */
export function memoryStorage(messages: MessageStore): EmulatorStorage {
  return { ...inMemory(messages), workspaces: memoryWorkspaces };
}

function inMemory(messages: MessageStore): Storage {
  return {
    messages,
    resources: new MemoryResourceStore(),
    fresh: true,
    commit: () => undefined,
    close: async () => {},
  };
}

const memoryWorkspaces: TenantStorages = {
  open: async (_workspaceId, _environment, clock) => inMemory(new MemoryStore(clock)),
  free: async () => {},
  commits: false,
};

/** Where a data dir keeps the workspaces made at run time: `workspaces/<id>/<environment>/`, a data dir each. */
export const WORKSPACES_DIR = 'workspaces';

/** Everything in the SQLite database of a data dir, which is locked until `close`. */
export async function dataDirStorage(
  dir: string,
  durability: Durability,
  clock: () => number,
): Promise<EmulatorStorage> {
  return { ...(await openDataDir(dir, durability, clock)), workspaces: dataDirWorkspaces(dir, durability) };
}

/**
 * Each tenant made at run time in a data dir of its own (its own database, lock and transaction, with
 * the emulator's durability) under the emulator's: the default tenant's database and layout stay as
 * they are, and a deleted workspace's files go with its directory.
 */
function dataDirWorkspaces(dir: string, durability: Durability): TenantStorages {
  const root = join(dir, WORKSPACES_DIR);
  const ofWorkspace = (workspaceId: number) => join(root, String(workspaceId));
  return {
    commits: true,
    open: (workspaceId, environment, clock) =>
      openDataDir(join(ofWorkspace(workspaceId), environment), durability, clock),
    free: async (workspaceId) => removeDirectory(ofWorkspace(workspaceId)),
    async freeUnrecorded(recorded) {
      let names: string[];
      try {
        names = readdirSync(root);
      } catch {
        // No workspace was ever made in this data dir.
        return;
      }
      for (const name of names) {
        if (!recorded.has(Number(name))) removeDirectory(join(root, name));
      }
    },
  };
}

/**
 * Removes a directory and all it holds, if it is there. Node 22 throws ENOTDIR when a parent is a file
 * (Node 24 does not, with `force`): then there is nothing of it to remove.
 */
function removeDirectory(path: string): void {
  try {
    rmSync(path, { recursive: true, force: true });
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOTDIR') throw error;
  }
}

async function openDataDir(dir: string, durability: Durability, clock: () => number): Promise<Storage> {
  // Loaded when used, as Redis's: an emulator in memory does without them (and node:sqlite).
  const [{ DataDir, explain }, { SqliteMessageStore }, { SqliteResourceStore }] = await Promise.all([
    import('./sqlite/data-dir.js'),
    import('./sqlite/messages.js'),
    import('./sqlite/resources.js'),
  ]);
  const dataDir = await DataDir.open(dir, durability);
  try {
    return {
      messages: new SqliteMessageStore(dataDir, clock),
      resources: new SqliteResourceStore(dataDir),
      fresh: dataDir.created,
      commit: () => dataDir.commit(),
      close: () => dataDir.close(),
    };
  } catch (error) {
    dataDir.db.close();
    throw explain(error, dataDir.path);
  }
}

/**
 * Everything in Redis, shared by every emulator given the same URL and prefix. Refused (RedisStorageError)
 * when Redis cannot be reached at start; once running, Redis is waited for when it goes away.
 */
export async function redisStorage(
  { url, prefix, replyTimeoutMs }: { url: string; prefix: string; replyTimeoutMs: number },
  clock: () => number,
  logger: Logger,
): Promise<EmulatorStorage> {
  // Loaded when used: an emulator in memory does without the client.
  const { RedisConnection } = await import('./redis/connection.js');
  const redis = await RedisConnection.open(url, prefix, logger, replyTimeoutMs);
  const storage = await onRedis(redis, clock, logger);
  return { ...storage, workspaces: redisWorkspaces(redis, storage.shared, logger) };
}

/**
 * A workspace's keys under the emulator's prefix and `{ws:<id>}`, a hash tag: on a Redis Cluster the
 * whole workspace is in one slot, so every script of its environments (whose keys all start so) runs
 * on one shard, and its keys go in a few commands when it is deleted. Its environments share the
 * emulator's connections; each has its own change feed.
 *
 * Its liveness key `{ws:<id>}:live`, in the same slot, is set before its first key and deleted before
 * the others: every script and write of its environments checks it atomically (connection.ts), so an
 * emulator that has not heard of a delete yet has its writes refused instead of recreating keys.
 */
function redisWorkspaces(redis: RedisConnection, shared: SharedState, logger: Logger): TenantStorages {
  const { prefix } = redis.keys;
  const ofWorkspace = (workspaceId: number) => `${prefix}{ws:${workspaceId}}:`;
  const liveKey = (workspaceId: number) => `${ofWorkspace(workspaceId)}live`;
  let goneListener = (_workspaceId: number) => {};
  const free = async (workspaceId: number) => {
    await redis.write(liveKey(workspaceId), ['DEL', liveKey(workspaceId)]);
    await redis.deleteUnder(ofWorkspace(workspaceId));
  };
  return {
    commits: true,
    async markLive(workspaceId) {
      await redis.write(liveKey(workspaceId), ['SET', liveKey(workspaceId), '1']);
    },
    async open(workspaceId, environment, clock) {
      const liveness = { key: liveKey(workspaceId), workspaceId, gone: () => goneListener(workspaceId) };
      return onRedis(await redis.scoped(`${ofWorkspace(workspaceId)}${environment}:`, liveness), clock, logger);
    },
    free,
    whenGone(listener) {
      goneListener = listener;
    },
    async freeUnrecorded(recorded) {
      if (!(await shared.alone())) return;
      const held = new Set<number>();
      for (const key of await redis.keysUnder(`${prefix}{ws:`)) {
        const id = /^\{ws:(\d+)\}/.exec(key.slice(prefix.length))?.[1];
        if (id !== undefined) held.add(Number(id));
      }
      for (const id of held) if (!recorded.has(id)) await free(id);
    },
  };
}

async function onRedis(
  redis: RedisConnection,
  clock: () => number,
  logger: Logger,
): Promise<Storage & { shared: SharedState }> {
  const [{ RedisFeed }, { RedisMessageStore }, { RedisResourceStore }] = await Promise.all([
    import('./redis/feed.js'),
    import('./redis/messages.js'),
    import('./redis/resources.js'),
  ]);
  const feed = await RedisFeed.start(redis, logger);
  return {
    messages: new RedisMessageStore(redis, clock),
    resources: new RedisResourceStore(redis),
    fresh: redis.created,
    commit: () => redis.commit(),
    close: () => feed.close(),
    shared: feed,
  };
}
