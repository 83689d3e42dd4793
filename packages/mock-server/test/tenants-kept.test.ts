// Workspaces made at run time, kept by the storage (issue 42): an emulator restarted on its data dir,
// or another emulator on the same Redis prefix, serves the same workspaces with their credentials and
// data; a deleted workspace's storage is freed (its directory, its keys).
import { existsSync, mkdirSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { createClient, createCluster } from '@redis/client';
import { describe, expect, test } from 'vitest';
import type { MockServer } from '../src/index.js';
import { control, emulatorErrorOf } from './support/control/emulator-api.js';
import { defined } from './support/defined.js';
import { call, errorOf, managementErrorOf, ORDER_SCHEMA, oauthErrorOf, start, token } from './support/helpers.js';
import { REDIS_KINDS, uniquePrefix } from './support/redis-server.js';
import { tempDir } from './support/temp-dirs.js';
import { makeWorkspace, servedBy, type TenantHandle } from './support/tenants.js';

/** In the tenant: a topic with one message, a recipe, and an API client with a key; what it made. */
async function populate(tenant: TenantHandle) {
  const topic = await tenant.run('create_topic', { body: { name: `topic-${tenant.clientId}`, schema: ORDER_SCHEMA } });
  const published = await tenant.run('publish_message', {
    params: { topic_id: topic.body.id },
    body: { order_id: tenant.clientId },
  });
  expect(published.status).toBe(201);
  const recipe = await tenant.run('create_recipe', { body: { recipe: { name: 'Kept', code: '{}' } } });
  const client = await tenant.run('create_api_client', { body: { name: 'ci' } });
  const key = await tenant.run('create_api_key', {
    params: { api_client_id: client.body.data.id },
    body: { name: 'k' },
  });
  expect(key.status).toBe(200);
  return { topicId: topic.body.id, recipeId: recipe.body.id, key: key.body.data };
}

type Made = Awaited<ReturnType<typeof populate>>;

/** The tenant on `server` holds what `populate` made: its token, its bootstrap and API key, its data. */
async function expectServed(server: MockServer, handle: TenantHandle, made: Made) {
  const tenant = servedBy(server, handle);
  const topics = await tenant.run('list_topics');
  expect(topics.status).toBe(200);
  expect(topics.body.data.map((topic) => topic.id)).toEqual([made.topicId]);
  const consumed = await tenant.run('consume_messages', { params: { topic_id: made.topicId }, body: {} });
  expect(consumed.body.messages.map((message) => message.payload)).toEqual([{ order_id: handle.clientId }]);
  expect((await tenant.run('get_recipe', { params: { id: made.recipeId } })).body.name).toBe('Kept');
  expect(await token(server, handle.clientId, handle.clientSecret)).toEqual(expect.any(String));
  expect(await token(server, made.key.client_id, made.key.auth_token)).toEqual(expect.any(String));
}

const workspaceList = async (server: MockServer) => (await control(server, 'list_workspaces')).body?.workspaces;

describe('workspaces kept in a data dir', () => {
  test('an emulator restarted on its data dir serves the same workspaces, credentials and data; ids go on', async () => {
    const dataDir = tempDir();
    const first = await start({ dataDir });
    const kept = await makeWorkspace(first, 'Kept', ['prod']);
    const [deleted] = (await makeWorkspace(first, 'Deleted')) as [TenantHandle];
    const made = await Promise.all(kept.map(populate));
    expect((await control(first, 'delete_workspace', { params: { id: deleted.workspaceId } })).status).toBe(204);
    const listed = await workspaceList(first);
    await first.close();

    const second = await start({ dataDir });
    expect(await workspaceList(second)).toEqual(listed);
    await Promise.all(kept.map((handle, i) => expectServed(second, handle, made[i] as Made)));
    expect((await servedBy(second, deleted).run('list_topics')).status).toBe(401);
    // The id of a deleted workspace is never given again.
    const [next] = (await makeWorkspace(second, 'Next')) as [TenantHandle];
    expect(next.workspaceId).toBe(deleted.workspaceId + 1);
  });

  test("deleting a workspace removes its directory; one not on record (a crash's leftover) goes at start", async () => {
    const dataDir = tempDir();
    const leftover = join(dataDir, 'workspaces', '9', 'dev');
    mkdirSync(leftover, { recursive: true });
    const server = await start({ dataDir });
    expect(existsSync(leftover)).toBe(false);
    const [dev] = (await makeWorkspace(server, 'Short-lived', ['test'])) as [TenantHandle];
    const directory = join(dataDir, 'workspaces', String(dev.workspaceId));
    expect(readdirSync(directory).sort()).toEqual(['dev', 'test']);
    expect((await control(server, 'delete_workspace', { params: { id: dev.workspaceId } })).status).toBe(204);
    expect(existsSync(directory)).toBe(false);
    // The default tenant's database is where it always was.
    expect(readdirSync(dataDir).sort()).toEqual(['emulator.db', 'emulator.db-wal', 'workspaces']);
  });

  test('a workspace whose data dir cannot be made is refused (503), saying why; nothing of it stays', async () => {
    const dataDir = tempDir();
    const server = await start({ dataDir });
    // A file where the workspaces' directory would be: no workspace directory can be made under it.
    writeFileSync(join(dataDir, 'workspaces'), '');
    const refused = await control(server, 'create_workspace', { body: { name: 'Nowhere' } });
    expect(refused.status).toBe(503);
    expect(emulatorErrorOf(refused).message).toMatch(/^Workspace 2 could not be made: The data dir .* is not writable/);
    expect(await workspaceList(server)).toHaveLength(1);
    rmSync(join(dataDir, 'workspaces'));
    expect((await makeWorkspace(server, 'Somewhere')).length).toBe(1);
  });
});

/** The keys under a prefix, on every node of the Redis (Cluster) at `url`. */
async function keysUnder(url: string, prefix: string): Promise<string[]> {
  const nodes = url.startsWith('redis+cluster://') ? url.slice('redis+cluster://'.length).split(',') : [url.slice(8)];
  const keys: string[] = [];
  for (const node of nodes) {
    const client = createClient({ url: `redis://${node}` });
    await client.connect();
    try {
      let cursor = '0';
      do {
        const [next, found] = (await client.sendCommand(['SCAN', cursor, 'MATCH', `${prefix}*`, 'COUNT', '1000'])) as [
          string,
          string[],
        ];
        keys.push(...found);
        cursor = next;
      } while (cursor !== '0');
    } finally {
      client.destroy();
    }
  }
  return keys;
}

/** What the tests do with a client of one server or of a cluster, which both have. */
interface Client {
  set(key: string, value: string): Promise<unknown>;
  hDel(key: string, field: string): Promise<unknown>;
  zRem(key: string, member: string): Promise<unknown>;
  del(key: string): Promise<unknown>;
  unlink(keys: string[]): Promise<unknown>;
}

/** Does `act` with a client of the Redis (Cluster) at `url`. */
async function withClient(url: string, act: (client: Client) => Promise<unknown>): Promise<void> {
  const nodes = url.startsWith('redis+cluster://') ? url.slice('redis+cluster://'.length).split(',') : undefined;
  const client = nodes
    ? createCluster({ rootNodes: nodes.map((node) => ({ url: `redis://${node}` })) })
    : createClient({ url });
  await client.connect();
  try {
    await act(client);
  } finally {
    client.destroy();
  }
}

/** Sets each key to `value` on the Redis (Cluster) at `url`, as a crashed emulator may have left it. */
async function leaveKeys(url: string, keys: string[], value = '2'): Promise<void> {
  await withClient(url, async (client) => {
    for (const key of keys) await client.set(key, value);
  });
}

/**
 * Deletes the workspace as an emulator does (its record, then its liveness key, then its other keys)
 * but announces nothing: the emulators on the prefix have not heard of it, as in the moment before
 * the announcement reaches them.
 */
async function deleteUnannounced(url: string, prefix: string, workspaceId: number): Promise<void> {
  const tag = `${prefix}{ws:${workspaceId}}`;
  const keys = (await keysUnder(url, tag)).filter((key) => key !== `${tag}:live`);
  await withClient(url, async (client) => {
    await client.hDel(`${prefix}{resources}items:emulator:workspace`, String(workspaceId));
    await client.zRem(`${prefix}{resources}order:emulator:workspace`, String(workspaceId));
    expect(await client.del(`${tag}:live`)).toBe(1);
    // One slot holds them all: one command on a cluster too.
    await client.unlink(keys);
  });
}

for (const { name, skipped, shared } of REDIS_KINDS) {
  describe.skipIf(skipped !== undefined)(`workspaces on ${name}${skipped ? ` (skipped: ${skipped})` : ''}`, () => {
    test('two emulators on one prefix serve each workspace either made; a delete on one is seen by the other and frees its keys', async () => {
      const { url } = await shared();
      const prefix = uniquePrefix();
      const a = await start({ redisUrl: url, redisPrefix: prefix });
      const [before] = (await makeWorkspace(a, 'Before B')) as [TenantHandle];
      const madeBefore = await populate(before);
      // B finds the workspace on record at its start, then follows those made after it.
      const b = await start({ redisUrl: url, redisPrefix: prefix });
      const onA = await makeWorkspace(a, 'While B runs', ['prod']);
      const madeOnA = await Promise.all(onA.map(populate));
      await expectServed(b, before, madeBefore);
      await Promise.all(onA.map((handle, i) => expectServed(b, handle, madeOnA[i] as Made)));
      const [onB] = (await makeWorkspace(b, 'Made on B')) as [TenantHandle];
      await expectServed(a, onB, await populate(onB));
      expect(await workspaceList(b)).toEqual(await workspaceList(a));
      const inspected = await control(b, 'inspect_topics', { query: defined(onA[0]).query });
      expect(inspected.body?.topics.map((topic) => topic.id)).toEqual([madeOnA[0]?.topicId]);

      const gone = defined(onA[0]).workspaceId;
      expect(await keysUnder(url, `${prefix}{ws:${gone}}`)).not.toEqual([]);
      expect((await control(a, 'delete_workspace', { params: { id: gone } })).status).toBe(204);
      expect((await control(b, 'get_workspace', { params: { id: gone } })).status).toBe(404);
      for (const handle of onA) expect((await servedBy(b, handle).run('list_topics')).status).toBe(401);
      expect(await keysUnder(url, `${prefix}{ws:${gone}}`)).toEqual([]);
      // The others' keys stay, each workspace's in one slot (a cluster's scripts would refuse others).
      expect(await keysUnder(url, `${prefix}{ws:${onB.workspaceId}}`)).not.toEqual([]);
      await expectServed(a, before, madeBefore);
    });

    test("an emulator that has not heard of a delete refuses the workspace's writes (401) and recreates none of its keys", async () => {
      const { url } = await shared();
      const prefix = uniquePrefix();
      const a = await start({ redisUrl: url, redisPrefix: prefix });
      const b = await start({ redisUrl: url, redisPrefix: prefix });
      // Made on A, served on B: one workspace per write refused, and one kept; a topic each.
      const made = await Promise.all(
        ['Publishes', 'Changes', 'Issues', 'Resets', 'Kept'].map(async (name) =>
          defined((await makeWorkspace(a, name))[0]),
        ),
      );
      const [publishing, changing, issuing, resetting, keeping] = made.map((handle) => servedBy(b, handle)) as [
        TenantHandle,
        TenantHandle,
        TenantHandle,
        TenantHandle,
        TenantHandle,
      ];
      for (const { workspaceId: id } of made) {
        expect((await control(b, 'get_workspace', { params: { id } })).status).toBe(200);
      }
      const topicOf = new Map<TenantHandle, number>();
      for (const tenant of [publishing, keeping]) {
        const topic = await tenant.run('create_topic', { body: { name: 'orders', schema: ORDER_SCHEMA } });
        topicOf.set(tenant, topic.body.id);
      }
      const gone = [publishing, changing, issuing, resetting].map(({ workspaceId }) => workspaceId);
      for (const id of gone) await deleteUnannounced(url, prefix, id);

      const published = await publishing.run('publish_message', {
        params: { topic_id: defined(topicOf.get(publishing)) },
        body: { order_id: 'late' },
      });
      expect(published.status).toBe(401);
      expect(errorOf(published).details.code).toBe('INVALID_TOKEN');
      const changed = await changing.run('create_recipe', { body: { recipe: { name: 'Late', code: '{}' } } });
      expect(changed.status).toBe(401);
      expect(managementErrorOf(changed).message).toBe('The access token is invalid or was revoked');
      // A token issue writes through the group commit alone; another tenant's publish in the same turn is kept.
      const [issued, kept] = await Promise.all([
        call(b, 'request_access_token', {
          body: { grant_type: 'client_credentials', client_id: issuing.clientId, client_secret: issuing.clientSecret },
        }),
        keeping.run('publish_message', {
          params: { topic_id: defined(topicOf.get(keeping)) },
          body: { order_id: 'kept' },
        }),
      ]);
      expect(issued.status).toBe(401);
      expect(oauthErrorOf(issued).error).toBe('invalid_client');
      expect(kept.status).toBe(201);
      // The emulator API names workspaces: one gone is one it does not have.
      const reset = await control(b, 'reset', { query: resetting.query });
      expect(reset.status).toBe(404);
      expect(emulatorErrorOf(reset).message).toBe(`No workspace ${resetting.workspaceId}`);

      for (const id of gone) {
        expect(await keysUnder(url, `${prefix}{ws:${id}}`)).toEqual([]);
        // B dropped it, as if the announcement had come.
        expect((await control(b, 'get_workspace', { params: { id } })).status).toBe(404);
      }
      const consumed = await keeping.run('consume_messages', {
        params: { topic_id: defined(topicOf.get(keeping)) },
        body: {},
      });
      expect(consumed.body.messages.map((message) => message.payload)).toEqual([{ order_id: 'kept' }]);
    });

    test("a workspace's keys with no record (a crash between them and its record) go at a start alone on the prefix", async () => {
      const { url } = await shared();
      const prefix = uniquePrefix();
      const first = await start({ redisUrl: url, redisPrefix: prefix });
      const kept = await makeWorkspace(first, 'Kept', ['prod']);
      const made = await Promise.all(kept.map(populate));
      // Workspace 9's first keys, made before its record would have been: `layout` is the first of each environment.
      const leftover = `${prefix}{ws:9}:`;
      await leaveKeys(url, [`${leftover}dev:layout`, `${leftover}dev:{resources}counters`, `${leftover}test:layout`]);
      // While another emulator runs, a second one leaves them: the first may be making that workspace.
      const second = await start({ redisUrl: url, redisPrefix: prefix });
      expect(await keysUnder(url, leftover)).toHaveLength(3);
      await first.close();
      await second.close();

      const alone = await start({ redisUrl: url, redisPrefix: prefix });
      expect(await keysUnder(url, leftover)).toEqual([]);
      await Promise.all(kept.map((handle, i) => expectServed(alone, handle, made[i] as Made)));
      expect(await workspaceList(alone)).toHaveLength(2);
    });
  });
}
