// The store engines the conformance suites run against: each opens a fresh store, closed after the test.
// The Redis engines share one redis-server per test file, each store under a prefix of its own.
import { pino } from 'pino';
import { beforeAll, describe } from 'vitest';
import { MemoryStore } from '../../../src/store/memory/messages.js';
import { MemoryResourceStore } from '../../../src/store/memory/resources.js';
import type { MessageStore } from '../../../src/store/message-store.js';
import { RedisConnection } from '../../../src/store/redis/connection.js';
import { RedisMessageStore } from '../../../src/store/redis/messages.js';
import { RedisResourceStore } from '../../../src/store/redis/resources.js';
import type { ResourceStore } from '../../../src/store/resource-store.js';
import { DataDir } from '../../../src/store/sqlite/data-dir.js';
import { SqliteMessageStore } from '../../../src/store/sqlite/messages.js';
import { SqliteResourceStore } from '../../../src/store/sqlite/resources.js';
import {
  NO_REDIS,
  NO_REDIS_CLUSTER,
  type RedisServer,
  sharedRedis,
  sharedRedisCluster,
  uniquePrefix,
} from '../redis-server.js';
import { tempDir } from '../temp-dirs.js';

const open: DataDir[] = [];
const connections: RedisConnection[] = [];
/** Closes the data dirs and Redis connections a test opened (test/support/setup.ts, after each test). */
export async function closeOpened(): Promise<void> {
  for (const dataDir of open.splice(0)) await dataDir.close();
  for (const redis of connections.splice(0)) await redis.close();
}

/** A data dir closed after the current test; `dir` reopens one (after closing the last). */
export async function openDataDir(dir = tempDir()): Promise<DataDir> {
  const dataDir = await DataDir.open(dir, 'relaxed');
  open.push(dataDir);
  return dataDir;
}

export async function closeDataDir(dataDir: DataDir): Promise<void> {
  open.splice(open.indexOf(dataDir), 1);
  await dataDir.close();
}

/** A connection to the file's redis-server (or cluster), under a new prefix; closed after the current test. */
export async function openRedis(server: Promise<RedisServer> = sharedRedis()): Promise<RedisConnection> {
  const redis = await RedisConnection.open((await server).url, uniquePrefix(), pino({ level: 'silent' }));
  connections.push(redis);
  return redis;
}

export interface Engine<Store> {
  name: string;
  /** Why the engine cannot run here (its server is not installed); its suite is then skipped, saying so. */
  missing?: string;
  /** Starts the server the engine uses before its suite, outside the time of any one test. */
  server?: () => Promise<RedisServer>;
  open(clock?: () => number): Promise<Store>;
}

export const messageStoreEngines: Engine<MessageStore>[] = [
  { name: 'MemoryStore', open: async (clock) => new MemoryStore(clock) },
  { name: 'SqliteMessageStore', open: async (clock) => new SqliteMessageStore(await openDataDir(), clock) },
  {
    name: 'RedisMessageStore',
    missing: NO_REDIS,
    server: sharedRedis,
    open: async (clock) => new RedisMessageStore(await openRedis(), clock),
  },
  {
    name: 'RedisMessageStore on a cluster',
    missing: NO_REDIS_CLUSTER,
    server: sharedRedisCluster,
    open: async (clock) => new RedisMessageStore(await openRedis(sharedRedisCluster()), clock),
  },
];

export const resourceStoreEngines: Engine<ResourceStore>[] = [
  { name: 'MemoryResourceStore', open: async () => new MemoryResourceStore() },
  { name: 'SqliteResourceStore', open: async () => new SqliteResourceStore(await openDataDir()) },
  {
    name: 'RedisResourceStore',
    missing: NO_REDIS,
    server: sharedRedis,
    open: async () => new RedisResourceStore(await openRedis()),
  },
  {
    name: 'RedisResourceStore on a cluster',
    missing: NO_REDIS_CLUSTER,
    server: sharedRedisCluster,
    open: async () => new RedisResourceStore(await openRedis(sharedRedisCluster())),
  },
];

/** A suite per engine; an engine that cannot run here gets a skipped suite whose name says why. */
export function describeEngines<Store>(engines: Engine<Store>[], suite: (engine: Engine<Store>) => void): void {
  for (const engine of engines) {
    const name = engine.missing ? `${engine.name} (skipped: ${engine.missing})` : engine.name;
    describe.skipIf(engine.missing !== undefined)(name, () => {
      // A guard, not a goal: a cluster's three servers start and agree within moments.
      if (engine.server) beforeAll(async () => void (await engine.server?.()), 60_000);
      suite(engine);
    });
  }
}
