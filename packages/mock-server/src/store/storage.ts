// Where one emulator keeps its state: the messages, the resources (everything else), and the commit
// that makes a turn's changes durable before its answers are written (group commit). Three engines:
// memory, a data dir (SQLite) and Redis, which several emulators share.
import type { Logger } from 'pino';
import type { MessageStore } from './message-store.js';
import { MemoryResourceStore, type ResourceStore, type StoredItem } from './resource-store.js';
import { DataDir, type Durability, explain } from './sqlite/data-dir.js';
import { SqliteMessageStore } from './sqlite/messages.js';
import { SqliteResourceStore } from './sqlite/resources.js';

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
 * The domain keeps indexes of its resources in memory. With a shared store, every emulator announces
 * its changes, and the others apply them to their indexes.
 */
export interface SharedState {
  /**
   * Has `follower` load everything (its `reload`), then passes it the changes other emulators announce;
   * those announced while it loads are passed once it has, so none is lost. Fails when the load does.
   */
  follow(follower: Follower): Promise<void>;
  /**
   * Settles once every change announced before the call (by any emulator) has been passed on: what
   * another emulator acknowledged is then in this one's indexes.
   */
  catchUp(): Promise<void>;
  /**
   * Waits until no other emulator is starting on this state, and marks this one as starting until the
   * returned function is called: starts run one at a time, so a second emulator finds the bootstrap key
   * (and seed) the first one made instead of making its own.
   */
  startAlone(): Promise<() => Promise<void>>;
  /**
   * A consumer is about to wait on the topic: from when this settles (at once when undefined), the
   * others' appends to it reach the follower's `appended`. Until then, an emulator hears of no append.
   */
  watch(topicId: number): Promise<void> | undefined;
}

export interface Follower {
  /** Another emulator put (item) or deleted (undefined) an item of a type the domain indexes. */
  changed(type: string, id: string, item: StoredItem | undefined): void;
  /** Another emulator stored messages in a topic that is watched (SharedState.watch). */
  appended(topicId: number): void;
  /** Whether consumers wait on the topic now: its watch lasts while they do. */
  waiting(topicId: number): boolean;
  /** Announcements may have been missed (the store was out of reach) or replaced everything: re-read all. */
  reload(): Promise<void>;
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
  // Loaded when used, like node:sqlite: an emulator in memory does without the client.
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
