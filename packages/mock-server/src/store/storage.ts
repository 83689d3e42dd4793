// Where one emulator keeps its state: the messages, the resources (everything else), and the commit
// that makes a turn's changes durable before its answers are written (group commit). Three engines:
// memory, a data dir (SQLite) and Redis, which several emulators share.
import type { Logger } from '../logger.js';
import { MemoryResourceStore } from './memory/resources.js';
import type { MessageStore } from './message-store.js';
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

/** The default: everything in memory, gone when the process ends. */
export function memoryStorage(messages: MessageStore): Storage {
  return {
    messages,
    resources: new MemoryResourceStore(),
    fresh: true,
    commit: () => undefined,
    close: async () => {},
  };
}

/** Everything in the SQLite database of a data dir, which is locked until `close`. */
export async function dataDirStorage(dir: string, durability: Durability, clock: () => number): Promise<Storage> {
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
): Promise<Storage> {
  // Loaded when used: an emulator in memory does without the client.
  const [{ RedisConnection }, { RedisFeed }, { RedisMessageStore }, { RedisResourceStore }] = await Promise.all([
    import('./redis/connection.js'),
    import('./redis/feed.js'),
    import('./redis/messages.js'),
    import('./redis/resources.js'),
  ]);
  const redis = await RedisConnection.open(url, prefix, logger, replyTimeoutMs);
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
