// Several emulators on one Redis serve one platform: a token, topic, API key or resource made through
// one is served by the others at once; concurrent publishers on both lose nothing and both read one
// order; a consumer waiting on one wakes for a publish on another; Redis lost answers 500s (in each API's shape), and its
// return recovers everything.
import { pino } from 'pino';
import { beforeAll, describe, expect, it } from 'vitest';
import type { MockServer, MockServerOptions } from '../src/index.js';
import { RedisConnection } from '../src/store/redis/connection.js';
import { defined } from './support/defined.js';
import {
  assertConforms,
  call,
  createTopic,
  errorOf,
  managementErrorOf,
  oauthErrorOf,
  start,
  toAnswer,
  token,
} from './support/helpers.js';
import { REDIS_KINDS, type RedisServer, uniquePrefix } from './support/redis-server.js';

const CREDENTIALS = { clientId: 'shared', clientSecret: 'shared-secret' };

/** Two emulators on one Redis prefix, with the same bootstrap credentials. */
async function pair(redis: RedisServer): Promise<[MockServer, MockServer, MockServerOptions]> {
  const options = { redisUrl: redis.url, redisPrefix: uniquePrefix(), ...CREDENTIALS };
  return [await start(options), await start(options), options];
}

const publish = (server: MockServer, accessToken: string, topicId: number, payload: object) =>
  call(server, 'publish_message', { token: accessToken, params: { topic_id: topicId }, body: payload });

const consume = (server: MockServer, accessToken: string, topicId: number, body: object = {}) =>
  call(server, 'consume_messages', { token: accessToken, params: { topic_id: topicId }, body });

/** Every message of the topic through `server`, oldest first, in batches of 50. */
async function readAll(server: MockServer, accessToken: string, topicId: number) {
  const all: { message_id: string; label: string }[] = [];
  let offset = {};
  for (;;) {
    const { messages, has_more } = (await consume(server, accessToken, topicId, offset)).body;
    all.push(...messages.map((m) => ({ message_id: m.message_id, label: String(m.payload.order_id) })));
    const last = messages.at(-1);
    if (!has_more || !last) return all;
    offset = { after_message_id: last.message_id };
  }
}

for (const { name, skipped, start: startRedis, shared: sharedRedis } of REDIS_KINDS) {
  describe.skipIf(skipped !== undefined)(`two emulators on ${name}${skipped ? ` (skipped: ${skipped})` : ''}`, () => {
    // Outside the time of any one test; a guard, not a goal: a cluster's servers start within moments.
    beforeAll(async () => void (await sharedRedis()), 60_000);

    it('started at once on a new prefix, make one bootstrap key and load a seed once', async () => {
      const seed = { version: 1, resources: { folder: [{ id: 7, name: 'Seeded' }] } };
      const options = { redisUrl: (await sharedRedis()).url, redisPrefix: uniquePrefix(), ...CREDENTIALS, seed };
      const emulators = await Promise.all([start(options), start(options), start(options)]);
      const accessToken = await token(defined(emulators[0], 'an emulator'));
      for (const emulator of emulators) {
        const clients = await call(emulator, 'list_api_clients', { token: accessToken });
        expect(clients.body.data.map((client) => client.name)).toEqual(['Local emulator']);
        const folders = await call(emulator, 'list_folders', { token: accessToken });
        expect(folders.body.map((folder) => folder.name)).toEqual(['Seeded']);
      }
    });

    it('share tokens, topics, API clients and keys, and the resource engine: made on one, served by the other', async () => {
      const [a, b] = await pair(await sharedRedis());
      const fromA = await token(a);
      // Issued by A, accepted by B at once (B looks it up when it has not heard of it yet).
      const topicId = await createTopic(b, fromA);
      expect((await call(a, 'get_topic', { token: fromA, params: { topic_id: topicId } })).status).toBe(200);
      expect((await call(a, 'list_topics', { token: fromA })).body).toEqual(
        (await call(b, 'list_topics', { token: fromA })).body,
      );

      const client = (await call(a, 'create_api_client', { token: fromA, body: { name: 'ci', auth_type: 'token' } }))
        .body.data;
      const key = (
        await call(b, 'create_api_key', {
          token: fromA,
          params: { api_client_id: client.id },
          body: { name: 'consumer', scopes: ['event_streams:consume'], topic_ids: [topicId] },
        })
      ).body.data;
      // The key's secret gets a token on A, and is a static bearer token on both.
      const keyToken = await token(a, key.client_id, key.auth_token);
      expect((await consume(b, keyToken, topicId)).status).toBe(200);
      expect((await consume(b, defined(key.auth_token), topicId)).status).toBe(200);
      expect(errorOf(await publish(b, keyToken, topicId, { order_id: 'X' })).details.code).toBe('FORBIDDEN');

      // Disabled on B: its tokens stop working on A too, once A has heard of it (changes reach the other
      // emulators as announcements, in milliseconds on an idle machine; a loaded one takes longer).
      await call(b, 'disable_api_key', { token: fromA, params: { api_client_id: client.id, api_key_id: key.id } });
      const refusal = async (bearer: string) => {
        const answer = await consume(a, bearer, topicId);
        return answer.status === 200 ? 'accepted' : errorOf(answer).details.code;
      };
      await expect.poll(() => refusal(keyToken), { timeout: 60_000 }).toBe('INVALID_TOKEN');
      await expect.poll(() => refusal(defined(key.auth_token)), { timeout: 60_000 }).toBe('INVALID_TOKEN');

      // A management resource of the engine, made on A, is B's too.
      const folder = await fetch(`${a.url}/api/folders`, {
        method: 'POST',
        headers: { authorization: `Bearer ${fromA}`, 'content-type': 'application/json' },
        body: JSON.stringify({ name: 'shared folder' }),
      });
      expect(folder.status).toBe(200);
      const listed = await fetch(`${b.url}/api/folders`, { headers: { authorization: `Bearer ${fromA}` } });
      expect(JSON.stringify(await listed.json())).toContain('shared folder');

      // Deleted on A: gone on B.
      await call(a, 'delete_topic', { token: fromA, params: { topic_id: topicId } });
      expect(errorOf(await publish(b, fromA, topicId, { order_id: 'Y' })).details.code).toBe('TOPIC_NOT_FOUND');
    });

    it('take publishes from both at once: nothing is lost, ids are given once, and both read the same order', async () => {
      const [a, b] = await pair(await sharedRedis());
      const accessToken = await token(a);
      const topicId = await createTopic(a, accessToken);
      const acknowledged = new Map<string, string>();
      const publisher = async (server: MockServer, name: string, batch: boolean) => {
        const mine: string[] = [];
        for (let n = 0; n < 40; n++) {
          const labels = Array.from({ length: batch ? 5 : 1 }, (_, i) => `${name}-${n}-${i}`);
          if (batch) {
            const answer = await call(server, 'publish_messages_batch', {
              token: accessToken,
              params: { topic_id: topicId },
              body: { payloads: labels.map((order_id) => ({ order_id })) },
            });
            expect(answer.body.is_partial_error).toBe(false);
            labels.forEach((label, i) => {
              const result = answer.body.message_ids[String(i)];
              acknowledged.set(label, result && 'message_id' in result ? result.message_id : 'failed');
            });
          } else {
            const answer = await publish(server, accessToken, topicId, { order_id: labels[0] });
            acknowledged.set(defined(labels[0]), answer.body.message_id);
          }
          mine.push(...labels.map((label) => defined(acknowledged.get(label))));
        }
        // One publisher's messages were sent one after another: their ids increase.
        expect(mine).toEqual([...mine].sort());
      };
      await Promise.all(
        [a, b].flatMap((server, s) => [
          publisher(server, `single${s}a`, false),
          publisher(server, `single${s}b`, false),
          publisher(server, `batch${s}`, true),
        ]),
      );

      const throughA = await readAll(a, accessToken, topicId);
      expect(await readAll(b, accessToken, topicId)).toEqual(throughA);
      const ids = throughA.map((m) => m.message_id);
      expect(ids).toEqual([...new Set(ids)].sort());
      expect(throughA).toHaveLength(acknowledged.size);
      expect(new Map(throughA.map((m) => [m.label, m.message_id]))).toEqual(acknowledged);
    });

    it('wake a consumer waiting on one for a publish on the other, and for a delete there (404)', async () => {
      const [a, b] = await pair(await sharedRedis());
      const accessToken = await token(a);
      const topicId = await createTopic(a, accessToken);
      const first = (await publish(a, accessToken, topicId, { order_id: 'A' })).body.message_id;
      const waiting = consume(a, accessToken, topicId, { after_message_id: first, timeout_secs: 30 });
      // The consumer is waiting once A's read found nothing; a publish before that is found by the read.
      const next = (await publish(b, accessToken, topicId, { order_id: 'B' })).body.message_id;
      expect((await waiting).body.messages.map((m) => m.message_id)).toEqual([next]);

      const another = await createTopic(b, accessToken);
      // Whether B is waiting yet or reads after the delete, its consumer gets the 404.
      const onDeleted = consume(b, accessToken, another, { timeout_secs: 30 });
      await call(a, 'delete_topic', { token: accessToken, params: { topic_id: another } });
      expect(errorOf(await onDeleted).details.code).toBe('TOPIC_NOT_FOUND');
    });

    it("hear of a topic's publishes only while a consumer of their own waits on it: no fan-out", async () => {
      const redis = await sharedRedis();
      const [a, b, options] = await pair(redis);
      const accessToken = await token(a);
      const topicId = await createTopic(a, accessToken);
      // Asked of Redis itself (on a cluster, of the topic's shard): who listens to the topic's appends.
      const probe = await RedisConnection.open(redis.url, defined(options.redisPrefix), pino({ level: 'silent' }));
      const channel = probe.keys.appended(topicId);
      const listeners = async () => {
        const [, count] = (await probe.send(channel, ['PUBSUB', 'SHARDNUMSUB', channel])) as [string, number];
        return count;
      };
      try {
        const first = (await publish(a, accessToken, topicId, { order_id: 'unheard' })).body.message_id;
        await consume(b, accessToken, topicId); // a read without waiting subscribes to nothing
        expect(await listeners()).toBe(0);

        const waiting = consume(b, accessToken, topicId, { after_message_id: first, timeout_secs: 30 });
        await expect.poll(listeners, { timeout: 60_000 }).toBe(1);
        const next = (await publish(a, accessToken, topicId, { order_id: 'heard' })).body.message_id;
        expect((await waiting).body.messages.map((m) => m.message_id)).toEqual([next]);
      } finally {
        await probe.close();
      }
    });

    it('refuse a prefix that holds the state of another key layout (an earlier version), saying so', async () => {
      const redisUrl = (await sharedRedis()).url;
      const redisPrefix = uniquePrefix();
      const earlier = await RedisConnection.open(redisUrl, redisPrefix, pino({ level: 'silent' }));
      try {
        await earlier.send(earlier.keys.layout, ['SET', earlier.keys.layout, '1']);
      } finally {
        await earlier.close();
      }
      await expect(start({ redisUrl, redisPrefix })).rejects.toThrow(/another version of platform-api-mock.*layout 1/);
    });

    it('start a second emulator that seeds nothing: a seed initialises only a new state', async () => {
      const redisUrl = (await sharedRedis()).url;
      const redisPrefix = uniquePrefix();
      const seed = (name: string) => ({
        format: 'platform-api-emulator-state',
        version: 1,
        resources: { folder: [{ id: 1, name }] },
      });
      const a = await start({ redisUrl, redisPrefix, ...CREDENTIALS, seed: seed('from the first') });
      const b = await start({ redisUrl, redisPrefix, ...CREDENTIALS, seed: seed('from the second') });
      const exported = JSON.stringify(await b.state.export());
      expect(exported).toContain('from the first');
      expect(exported).not.toContain('from the second');
      expect(await a.state.export()).toEqual(await b.state.export());
    });
  });

  // Each test starts its own Redis (a cluster: three servers, which agree within moments): a guard, not a goal.
  const ownRedis = { timeout: 60_000 };
  describe.skipIf(skipped !== undefined)(
    `${name} lost and back${skipped ? ` (skipped: ${skipped})` : ''}`,
    ownRedis,
    () => {
      it('answers 500 after redisReplyTimeoutMs while Redis is paused (no hang), and serves again when it resumes', async () => {
        const redis = await startRedis();
        const options = { redisUrl: redis.url, redisPrefix: uniquePrefix(), redisReplyTimeoutMs: 300, ...CREDENTIALS };
        const server = await start(options);
        const accessToken = await token(server);
        const topicId = await createTopic(server, accessToken);

        redis.pause();
        try {
          // Without the deadline this would wait for the resume below, and the test would time out.
          const stalled = await publish(server, accessToken, topicId, { order_id: 'paused' });
          expect([stalled.status, errorOf(stalled).details.code]).toEqual([500, 'INTERNAL_SERVER_ERROR']);
          expect(errorOf(stalled).message).toContain('did not answer within 300 ms');
        } finally {
          redis.resume();
        }
        // Resumed, a cluster's nodes may first agree again that the paused one is back (a moment, longer
        // on a loaded machine): the emulator serves again once Redis does, with no restart.
        await expect
          .poll(async () => (await publish(server, accessToken, topicId, { order_id: 'resumed' })).status, {
            timeout: 60_000,
            interval: 200,
          })
          .toBe(201);
      });

      it('answers 500 INTERNAL_SERVER_ERROR in each API shape while Redis is away, and recovers when it returns', async () => {
        const redis = await startRedis();
        const [a, b] = await pair(redis);
        const accessToken = await token(a);
        const topicId = await createTopic(a, accessToken);
        const before = (await publish(a, accessToken, topicId, { order_id: 'before' })).body.message_id;

        await redis.stop();
        const lost = await publish(a, accessToken, topicId, { order_id: 'lost' });
        expect([lost.status, errorOf(lost).details.code]).toEqual([500, 'INTERNAL_SERVER_ERROR']);
        const read = await consume(b, accessToken, topicId);
        expect([read.status, errorOf(read).details.code]).toEqual([500, 'INTERNAL_SERVER_ERROR']);
        const created = await call(b, 'create_topic', { token: accessToken, body: { name: 'away', schema: [] } });
        expect([created.status, managementErrorOf(created).message]).toEqual([500, expect.stringContaining('Redis')]);
        // The token endpoint answers its own 500: an OAuth server_error, not cached.
        const form = `grant_type=client_credentials&client_id=${a.clientId}&client_secret=${a.clientSecret}`;
        const headers = { 'content-type': 'application/x-www-form-urlencoded' };
        const refused = await toAnswer(await fetch(`${a.url}/oauth2/token`, { method: 'POST', headers, body: form }));
        assertConforms('request_access_token', refused);
        expect([refused.status, oauthErrorOf(refused).error]).toEqual([500, 'server_error']);
        expect(refused.headers.get('cache-control')).toBe('no-store');

        // Back, on its append-only file: both emulators reconnect (a management call needs both connections).
        await redis.start();
        for (const server of [a, b]) {
          await expect
            .poll(async () => (await call(server, 'list_topics', { token: accessToken })).status, { timeout: 60_000 })
            .toBe(200);
        }
        // What was acknowledged is there, what was refused is not, and both serve one state again.
        await publish(b, accessToken, topicId, { order_id: 'after' });
        expect((await readAll(a, accessToken, topicId)).map((m) => m.label)).toEqual(['before', 'after']);
        expect((await consume(a, accessToken, topicId, { after_message_id: before })).body.messages).toHaveLength(1);
        const fresh = await token(b);
        expect(await createTopic(a, fresh)).toBe(topicId + 1);
        expect((await call(b, 'list_topics', { token: fresh })).body.data).toHaveLength(2);
      });

      it('refuses to start when Redis cannot be reached, naming it', async () => {
        const redis = await startRedis();
        await redis.stop();
        await expect(start({ redisUrl: redis.url })).rejects.toThrow(`Cannot connect to Redis at ${redis.url}`);
        await expect(start({ redisUrl: 'http://127.0.0.1:1' })).rejects.toThrow(/Redis/);
      });
    },
  );
}
