// Where an emulator keeps its state, for the suites that run on each storage: in memory, in a data dir,
// on Redis and on a Redis Cluster (skipped, saying why, without redis-server). Spawned (`args`) or in
// this process (`options`).
import type { MockServerOptions } from '../../src/index.js';
import {
  NO_REDIS,
  NO_REDIS_CLUSTER,
  type RedisServer,
  sharedRedis,
  sharedRedisCluster,
  uniquePrefix,
} from './redis-server.js';
import { tempDir } from './temp-dirs.js';

export interface Storage {
  name: string;
  /** Why the storage cannot run here; undefined when it can. */
  missing?: string;
  /** The command-line flags of a new emulator on it (a new data dir, a new Redis prefix). */
  args(): Promise<string[]>;
  /** The options of a new emulator in this process on it (a new data dir, a new Redis prefix). */
  options(): Promise<MockServerOptions>;
}

const onRedis = (redis: () => Promise<RedisServer>) => async (): Promise<MockServerOptions> => ({
  redisUrl: (await redis()).url,
  redisPrefix: uniquePrefix(),
});

const asArgs = (options: () => Promise<MockServerOptions>) => async () => {
  const { redisUrl, redisPrefix } = await options();
  return ['--redis-url', String(redisUrl), '--redis-prefix', String(redisPrefix)];
};

const redis = onRedis(sharedRedis);
const redisCluster = onRedis(sharedRedisCluster);

export const STORAGES: Storage[] = [
  { name: 'in memory', args: async () => [], options: async () => ({}) },
  {
    name: 'with a data dir',
    args: async () => ['--data-dir', tempDir(), '--durability', 'relaxed'],
    options: async () => ({ dataDir: tempDir(), durability: 'relaxed' }),
  },
  { name: 'on Redis', missing: NO_REDIS, args: asArgs(redis), options: redis },
  { name: 'on a Redis Cluster', missing: NO_REDIS_CLUSTER, args: asArgs(redisCluster), options: redisCluster },
];

/** The title of a suite on the storage, saying why it is skipped when it is. */
export const onStorage = (title: string, { name, missing }: Storage) =>
  `${title}, ${name}${missing === undefined ? '' : ` (skipped: ${missing})`}`;
