// The three storages the emulator API's state-bound endpoints are tested on.
import type { MockServerOptions } from '../../../src/index.js';
import { NO_REDIS, sharedRedis, uniquePrefix } from '../redis-server.js';
import { tempDir } from '../temp-dirs.js';

export const storages: { name: string; options: () => Promise<MockServerOptions>; skip?: string }[] = [
  { name: 'in memory', options: async () => ({}) },
  { name: 'with a data dir', options: async () => ({ dataDir: tempDir() }) },
  {
    name: 'on Redis',
    options: async () => ({ redisUrl: (await sharedRedis()).url, redisPrefix: uniquePrefix() }),
    skip: NO_REDIS,
  },
];
