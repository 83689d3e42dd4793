// How the Redis message store talks to Redis: what the conformance suite (message-store.test.ts) cannot
// see, as every engine answers alike, but each publish's round trips depend on.
import { createClient } from '@redis/client';
import { describe, expect, it } from 'vitest';
import { RedisMessageStore } from '../../src/store/redis/messages.js';
import { NO_REDIS, sharedRedis } from '../support/redis-server.js';
import { openRedis } from '../support/store/engines.js';

/** How many times Redis has run scripts (EVALSHA) since `reset`, read on a connection of the test's own. */
async function scriptCounter() {
  const client = createClient({ url: (await sharedRedis()).url });
  await client.connect();
  return {
    reset: () => client.configResetStat(),
    async scripts(): Promise<number> {
      const stats = await client.info('commandstats');
      return Number(/^cmdstat_evalsha:calls=(\d+)/m.exec(stats)?.[1] ?? 0);
    },
    close: () => client.close(),
  };
}

describe.skipIf(NO_REDIS !== undefined)(`the Redis message store${NO_REDIS ? ` (skipped: ${NO_REDIS})` : ''}`, () => {
  it('sends the appends made together to a topic as one script, their ids consecutive in the order made', async () => {
    const store = new RedisMessageStore(await openRedis());
    await store.addTopic(1, 60_000);
    const counter = await scriptCounter();
    try {
      await counter.reset();
      const ids = await Promise.all([
        store.append(1, '{"n":1}'),
        store.appendBatch(1, ['{"n":2}', '{"n":3}']),
        store.append(1, '{"n":4}'),
      ]);
      expect(await counter.scripts()).toBe(1);
      expect(ids.flat()).toEqual(['1', '2', '3', '4'].map((n) => expect.stringMatching(new RegExp(`^0*${n}$`))));

      // Made apart (a turn later, while the first is on its way), they go as scripts of their own.
      await counter.reset();
      const first = store.append(1, '{"n":5}');
      await new Promise((resolve) => setImmediate(resolve));
      const second = store.append(1, '{"n":6}');
      const later = await Promise.all([first, second]);
      expect(await counter.scripts()).toBe(2);
      expect((await store.readAfter(1, ids[2] as string, 10))?.messages.map((m) => m.id)).toEqual(later);
    } finally {
      await counter.close();
    }
  });
});
