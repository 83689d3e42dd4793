// The crash test: publishers (single and batch) on one topic, something killed (SIGKILL) while they
// publish, several rounds. With a data dir, the emulator, restarted on its dir; with Redis, one of two
// emulators on one Redis (the other serves on), or Redis itself (restarted on its append-only file).
// With two tenants (the default one and a workspace, publishing at once), the emulator, restarted on
// its data dir or its Redis prefix.
// Every acknowledged message must be there once, in order, with its payload; new ids follow the old
// ones; topics, clients, keys and tokens stay.
import { describe, expect, it } from 'vitest';
import { type CliProcess, listeningUrl, runCli } from './support/cli-process.js';
import { defined } from './support/defined.js';
import { REDIS_KINDS, type RedisServer, uniquePrefix } from './support/redis-server.js';
import { tempDir } from './support/temp-dirs.js';

const CLIENT_ID = 'crash';
const CLIENT_SECRET = 'crash-secret';
/** Each round alternates the durability: a crash of the process loses nothing acknowledged in either. */
const ROUNDS = ['full', 'relaxed', 'full'] as const;
const SINGLE_PUBLISHERS = 4;
const BATCH_PUBLISHERS = 2;
const BATCH_SIZE = 10;
/** The emulator is killed once a round has this many acknowledged messages, its publishers still sending. */
const KILL_AFTER = 300;

interface Emulator {
  cli: CliProcess;
  url: string;
}

interface Acknowledged {
  id: string;
  label: string;
}

async function launch(storage: string[]): Promise<Emulator> {
  const args = ['--port', '0', ...storage, '--log-level', 'error'];
  const cli = runCli([...args, '--client-id', CLIENT_ID, '--client-secret', CLIENT_SECRET]);
  return { cli, url: await listeningUrl(cli) };
}

const withDataDir = (dataDir: string, durability: string) =>
  launch(['--data-dir', dataDir, '--durability', durability]);

async function post(url: string, accessToken: string, body: unknown): Promise<Response> {
  const headers = { authorization: `Bearer ${accessToken}`, 'content-type': 'application/json' };
  return fetch(url, { method: 'POST', headers, body: JSON.stringify(body) });
}

async function json<T>(response: Promise<Response>): Promise<T> {
  const answer = await response;
  expect(answer.ok, `${answer.url} answered ${answer.status}`).toBe(true);
  return (await answer.json()) as T;
}

async function accessToken(url: string, clientId = CLIENT_ID, secret = CLIENT_SECRET): Promise<string> {
  const body = { grant_type: 'client_credentials', client_id: clientId, client_secret: secret };
  return (await json<{ access_token: string }>(post(`${url}/oauth2/token`, '', body))).access_token;
}

/** Every message of the topic, oldest first. */
async function readAll(url: string, token: string, topicId: number): Promise<{ message_id: string; label: string }[]> {
  const all: { message_id: string; label: string }[] = [];
  let offset: { after_message_id?: string } = {};
  for (;;) {
    type Batch = { messages: { message_id: string; payload: { order_id: string } }[]; has_more: boolean };
    const batch = await json<Batch>(post(`${url}/api/v1/topics/${topicId}/consume`, token, offset));
    all.push(...batch.messages.map((m) => ({ message_id: m.message_id, label: m.payload.order_id })));
    const last = batch.messages.at(-1);
    if (!batch.has_more || !last) return all;
    offset = { after_message_id: last.message_id };
  }
}

/**
 * Publishes through every emulator, each publisher sending its next request once the last was
 * answered, and calls `acknowledged` with the running count; publishers stop when it returns true, or
 * when what they publish through is gone (`gone`: a request in flight then is not acknowledged; it
 * may or may not be stored). Resolves to what was acknowledged, in the order of each publisher's sends.
 */
async function publish(
  emulators: Emulator[],
  token: string,
  topicId: number,
  round: number,
  { acknowledged: counted, gone }: { acknowledged: (count: number) => boolean; gone: (emulator: Emulator) => boolean },
) {
  const acknowledged: Acknowledged[][] = [];
  let count = 0;
  let done = false;
  const acknowledge = (mine: Acknowledged[], ids: string[], labels: string[]) => {
    mine.push(...ids.map((id, i) => ({ id, label: defined(labels[i]) })));
    count += ids.length;
    done ||= counted(count);
  };
  const publisher = async (emulator: Emulator, name: string, batch: boolean) => {
    const mine: Acknowledged[] = [];
    acknowledged.push(mine);
    for (let n = 0; !done; n++) {
      const labels = Array.from({ length: batch ? BATCH_SIZE : 1 }, (_, i) => `r${round}-${name}-${n}-${i}`);
      try {
        if (batch) {
          const path = `${emulator.url}/api/v1/batch/topics/${topicId}/publish`;
          const payloads = labels.map((label) => ({ order_id: label }));
          type Answer = { message_ids: Record<string, { message_id: string }>; is_partial_error: boolean };
          const answer = await json<Answer>(post(path, token, { payloads }));
          expect(answer.is_partial_error).toBe(false);
          acknowledge(
            mine,
            Object.values(answer.message_ids).map((entry) => entry.message_id),
            labels,
          );
        } else {
          const path = `${emulator.url}/api/v1/topics/${topicId}/publish`;
          const answer = await json<{ message_id: string }>(post(path, token, { order_id: labels[0] }));
          acknowledge(mine, [answer.message_id], labels);
        }
      } catch (error) {
        if (!gone(emulator)) throw error;
        return;
      }
    }
  };
  await Promise.all(
    emulators.flatMap((emulator, e) => [
      ...Array.from({ length: SINGLE_PUBLISHERS }, (_, i) => publisher(emulator, `e${e}-single${i}`, false)),
      ...Array.from({ length: BATCH_PUBLISHERS }, (_, i) => publisher(emulator, `e${e}-batch${i}`, true)),
    ]),
  );
  return acknowledged;
}

/** The emulator killed once KILL_AFTER messages are acknowledged; the publishers stop when it is gone. */
async function publishUntilKilled(emulator: Emulator, token: string, topicId: number, round: number) {
  const kill = () => emulator.cli.child.kill('SIGKILL');
  const acknowledged = await publish([emulator], token, topicId, round, {
    acknowledged: (count) => count >= KILL_AFTER && kill(),
    gone: () => emulator.cli.child.killed,
  });
  await emulator.cli.exited;
  return acknowledged;
}

/** What a test needs of a topic: its admin token (the default tenant's, or given), the topic, and a key of another API client. */
async function setUp(url: string, admin?: string) {
  admin ??= await accessToken(url);
  const topic = await json<{ id: number }>(
    post(`${url}/api/event_streams/topics`, admin, { name: 'crash', schema: [{ name: 'order_id', type: 'string' }] }),
  );
  type Created = { data: { id: number; client_id: string; auth_token: string } };
  const client = (await json<Created>(post(`${url}/api/v2/api_clients`, admin, { name: 'ci' }))).data;
  const key = (
    await json<Created>(post(`${url}/api/v2/api_clients/${client.id}/api_keys`, admin, { name: 'consumer' }))
  ).data;
  return { admin, topicId: topic.id, key };
}

/** Checks one round's acknowledgements (each publisher's ids increase, after every older one) and keeps them. */
function keep(byPublisher: Acknowledged[][], lastBefore: string, into: Map<string, string>): void {
  for (const sent of byPublisher) {
    expect(sent.map((a) => a.id)).toEqual([...sent.map((a) => a.id)].sort());
    expect(sent.every((a) => a.id > lastBefore)).toBe(true);
    for (const { id, label } of sent) into.set(label, id);
  }
}

/** Every message is there once, in order, and every acknowledged one with its id. */
function expectAllKept(stored: { message_id: string; label: string }[], acknowledged: Map<string, string>): void {
  const ids = stored.map((m) => m.message_id);
  expect(ids).toEqual([...new Set(ids)].sort());
  expect(new Set(stored.map((m) => m.label)).size).toBe(stored.length);
  const storedIdOf = new Map(stored.map((m) => [m.label, m.message_id]));
  const lost = [...acknowledged].filter(([label, id]) => storedIdOf.get(label) !== id);
  expect(lost).toEqual([]);
}

describe('a crash (SIGKILL) under load', () => {
  it('with a data dir: keeps every acknowledged message once, in order, and the topic, client, key and tokens; ids go on', async () => {
    const dataDir = tempDir();
    let emulator = await withDataDir(dataDir, 'full');
    const { admin, topicId, key } = await setUp(emulator.url);
    const acknowledged = new Map<string, string>();

    for (const [round, durability] of ROUNDS.entries()) {
      if (round > 0) emulator = await withDataDir(dataDir, durability);
      const lastBefore = (await readAll(emulator.url, admin, topicId)).at(-1)?.message_id ?? '';
      const byPublisher = await publishUntilKilled(emulator, admin, topicId, round);
      keep(byPublisher, lastBefore, acknowledged);
      expect(byPublisher.flat().length).toBeGreaterThanOrEqual(KILL_AFTER);
    }

    emulator = await withDataDir(dataDir, 'full');
    const stored = await readAll(emulator.url, admin, topicId);
    expectAllKept(stored, acknowledged);
    const keyToken = await accessToken(emulator.url, key.client_id, key.auth_token);
    expect((await readAll(emulator.url, keyToken, topicId)).length).toBe(stored.length);
    expect(emulator.cli.errors()).toBe('');
  }, 90_000);
});

/** Where an emulator with two tenants is killed and started again on the same state, each start with a durability. */
const TWO_TENANT_STORAGES = [
  {
    name: 'with a data dir',
    skipped: undefined,
    async restarts() {
      const dataDir = tempDir();
      return (durability: (typeof ROUNDS)[number]) => withDataDir(dataDir, durability);
    },
  },
  // The emulator killed, not Redis: the same prefix, the durability Redis's own (an append-only file).
  ...REDIS_KINDS.map(({ name, skipped, shared }) => ({
    name: `on ${name}`,
    skipped,
    async restarts() {
      const onRedis = ['--redis-url', (await shared()).url, '--redis-prefix', uniquePrefix()];
      return () => launch(onRedis);
    },
  })),
];

for (const { name, skipped, restarts } of TWO_TENANT_STORAGES) {
  describe.skipIf(skipped !== undefined)(
    `a crash (SIGKILL) under load, two tenants, ${name}${skipped ? ` (skipped: ${skipped})` : ''}`,
    () => {
      it('the default tenant and a workspace made at run time each keep every acknowledged message and the workspace', async () => {
        const restart = await restarts();
        let emulator = await restart('full');
        type Created = { id: number; environments: { client_id: string; client_secret: string }[] };
        const made = await json<Created>(
          fetch(`${emulator.url}/_emulator/workspaces`, {
            method: 'POST',
            headers: { 'content-type': 'application/json' },
            body: JSON.stringify({ name: 'crash' }),
          }),
        );
        const dev = defined(made.environments[0]);
        const tenants = [
          await setUp(emulator.url),
          await setUp(emulator.url, await accessToken(emulator.url, dev.client_id, dev.client_secret)),
        ].map((tenant) => ({ ...tenant, acknowledged: new Map<string, string>() }));

        for (const [round, durability] of ROUNDS.entries()) {
          if (round > 0) emulator = await restart(durability);
          const running = emulator;
          const lastBefore = await Promise.all(
            tenants.map(
              async ({ admin, topicId }) => (await readAll(running.url, admin, topicId)).at(-1)?.message_id ?? '',
            ),
          );
          // Killed once either tenant has half of KILL_AFTER acknowledged, both publishing.
          const kill = () => running.cli.child.kill('SIGKILL');
          const byTenant = await Promise.all(
            tenants.map(({ admin, topicId }) =>
              publish([running], admin, topicId, round, {
                acknowledged: (count) => count >= KILL_AFTER / 2 && kill(),
                gone: () => running.cli.child.killed,
              }),
            ),
          );
          await running.cli.exited;
          byTenant.forEach((byPublisher, t) => {
            keep(byPublisher, defined(lastBefore[t]), defined(tenants[t]).acknowledged);
          });
        }

        emulator = await restart('full');
        for (const { admin, topicId, key, acknowledged } of tenants) {
          expect(acknowledged.size).toBeGreaterThan(0);
          const stored = await readAll(emulator.url, admin, topicId);
          expectAllKept(stored, acknowledged);
          const keyToken = await accessToken(emulator.url, key.client_id, key.auth_token);
          expect((await readAll(emulator.url, keyToken, topicId)).length).toBe(stored.length);
        }
        // The workspace's bootstrap credentials still get a token.
        expect(await accessToken(emulator.url, dev.client_id, dev.client_secret)).toEqual(expect.any(String));
        expect(emulator.cli.errors()).toBe('');
      }, 90_000);
    },
  );
}

for (const { name, skipped, start: startRedis } of REDIS_KINDS) {
  describe.skipIf(skipped !== undefined)(
    `a crash (SIGKILL) under load on ${name}${skipped ? ` (skipped: ${skipped})` : ''}`,
    () => {
      it('one of two emulators killed: the other serves on; Redis killed: acknowledged messages survive its restart', async () => {
        const redis: RedisServer = await startRedis();
        const onRedis = ['--redis-url', redis.url, '--redis-prefix', uniquePrefix()];
        const emulators = [await launch(onRedis), await launch(onRedis)];
        const { admin, topicId, key } = await setUp(defined(emulators[0]).url);
        const acknowledged = new Map<string, string>();
        const lastId = async () => (await readAll(defined(emulators[1]).url, admin, topicId)).at(-1)?.message_id ?? '';

        // Rounds 0 and 1: one emulator killed once KILL_AFTER are acknowledged; the survivor's publishers go on
        // to twice that, then the killed one is started again.
        for (const round of [0, 1]) {
          const [victim, survivor] = round === 0 ? emulators : [...emulators].reverse();
          const lastBefore = await lastId();
          const byPublisher = await publish(emulators, admin, topicId, round, {
            acknowledged: (count) => {
              if (count >= KILL_AFTER) defined(victim).cli.child.kill('SIGKILL');
              return count >= 2 * KILL_AFTER;
            },
            gone: (emulator) => emulator === victim && emulator.cli.child.killed,
          });
          keep(byPublisher, lastBefore, acknowledged);
          expect(byPublisher.flat().length).toBeGreaterThanOrEqual(2 * KILL_AFTER);
          await defined(victim).cli.exited;
          expect(defined(survivor).cli.errors()).toBe('');
          emulators[emulators.indexOf(defined(victim))] = await launch(onRedis);
        }

        // Round 2: Redis killed; every emulator answers 500s meanwhile, then serves again once it is back.
        let redisKilled = false;
        const lastBefore = await lastId();
        const byPublisher = await publish(emulators, admin, topicId, 2, {
          acknowledged: (count) => {
            if (count >= KILL_AFTER && !redisKilled) {
              redisKilled = true;
              void redis.kill();
            }
            return false;
          },
          gone: () => redisKilled,
        });
        keep(byPublisher, lastBefore, acknowledged);
        await redis.kill();
        await redis.start();

        const stored = [];
        for (const emulator of emulators) {
          const all = () => readAll(emulator.url, admin, topicId).catch(() => []);
          await expect.poll(async () => (await all()).length, { timeout: 60_000 }).toBeGreaterThan(0);
          stored.push(await readAll(emulator.url, admin, topicId));
        }
        expect(stored[1]).toEqual(stored[0]);
        expectAllKept(defined(stored[0]), acknowledged);
        const keyToken = await accessToken(defined(emulators[1]).url, key.client_id, key.auth_token);
        expect(await readAll(defined(emulators[0]).url, keyToken, topicId)).toEqual(stored[0]);
      }, 90_000);
    },
  );
}
