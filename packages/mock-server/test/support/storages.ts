// Where a spawned emulator keeps its state, for the black-box suites that run on each storage: in
// memory, in a data dir, on Redis and on a Redis Cluster (skipped, saying why, without redis-server).
import { NO_REDIS, NO_REDIS_CLUSTER, sharedRedis, sharedRedisCluster, uniquePrefix } from './redis-server.js';
import { tempDir } from './temp-dirs.js';

export interface Storage {
  name: string;
  /** Why the storage cannot run here; undefined when it can. */
  missing?: string;
  /** The command-line flags of a new emulator on it (a new data dir, a new Redis prefix). */
  args(): Promise<string[]>;
}

export const STORAGES: Storage[] = [
  { name: 'in memory', args: async () => [] },
  { name: 'with a data dir', args: async () => ['--data-dir', tempDir(), '--durability', 'relaxed'] },
  {
    name: 'on Redis',
    missing: NO_REDIS,
    args: async () => ['--redis-url', (await sharedRedis()).url, '--redis-prefix', uniquePrefix()],
  },
  {
    name: 'on a Redis Cluster',
    missing: NO_REDIS_CLUSTER,
    args: async () => ['--redis-url', (await sharedRedisCluster()).url, '--redis-prefix', uniquePrefix()],
  },
];
