// Workspaces and environments on one emulator (issue 42): each environment a tenant of its own, made
// over the emulator API, with zero leaks between them in lists, ids, tokens, resets, faults, the clock
// and the journal, on every storage; the default tenant as before. Kept by the storage: a data dir
// restarted, or several emulators on one Redis, serve the same workspaces; a deleted one's storage is freed.
import { describe, expect, test } from 'vitest';
import type { MockServerOptions } from '../src/index.js';
import { control, emulatorErrorOf } from './support/control/emulator-api.js';
import { defined } from './support/defined.js';
import { call, createTopic, ORDER_SCHEMA, start, token } from './support/helpers.js';
import { onStorage, STORAGES } from './support/storages.js';
import { makeWorkspace, type TenantHandle } from './support/tenants.js';

/** Eight workspaces, the second and fifth with `prod` too: ten tenants beside the default one. */
async function fleet(options: MockServerOptions = {}) {
  const server = await start(options);
  const made = await Promise.all(
    Array.from({ length: 8 }, (_, n) => makeWorkspace(server, `Workspace ${n}`, n === 1 || n === 4 ? ['prod'] : [])),
  );
  return { server, tenants: made.flat() };
}

const nameIn = (tenant: TenantHandle, what: string) => `${what}-${tenant.workspaceId}-${tenant.environment}`;

/** In each tenant at once: a topic, a message published and consumed, a folder and a recipe. */
async function populate(tenants: TenantHandle[]) {
  await Promise.all(
    tenants.map(async (tenant) => {
      const topic = await tenant.run('create_topic', { body: { name: nameIn(tenant, 'topic'), schema: ORDER_SCHEMA } });
      expect(topic.status).toBe(200);
      const params = { topic_id: topic.body.id };
      expect((await tenant.run('publish_message', { params, body: { order_id: nameIn(tenant, 'msg') } })).status).toBe(
        201,
      );
      const consumed = await tenant.run('consume_messages', { params, body: { timeout_secs: 0 } });
      expect(consumed.body.messages.map((message) => message.payload)).toEqual([{ order_id: nameIn(tenant, 'msg') }]);
      expect((await tenant.run('create_folder', { body: { name: nameIn(tenant, 'folder') } })).status).toBe(200);
      const recipe = await tenant.run('create_recipe', {
        body: { recipe: { name: nameIn(tenant, 'recipe'), code: '{}' } },
      });
      expect(recipe.status).toBe(200);
    }),
  );
}

for (const storage of STORAGES) {
  describe.skipIf(storage.missing !== undefined)(onStorage('workspaces on one emulator', storage), () => {
    test('eight workspaces at once, two with prod: each sees only its own topics, folders and recipes', async () => {
      const { server, tenants } = await fleet(await storage.options());
      expect(tenants).toHaveLength(10);
      await populate(tenants);
      await Promise.all(
        tenants.map(async (tenant) => {
          const topics = (await tenant.run('list_topics')).body.data.map((topic) => topic.name);
          expect(topics).toEqual([nameIn(tenant, 'topic')]);
          const recipes = (await tenant.run('list_recipes')).body.items.map((recipe) => recipe.name);
          expect(recipes).toEqual([nameIn(tenant, 'recipe')]);
          const folders = (await tenant.run('list_folders')).body.map((folder) => folder.name);
          expect(folders).toEqual([nameIn(tenant, 'folder')]);
          // Ids are per tenant: each made topic 1.
          expect((await tenant.run('get_topic', { params: { topic_id: 1 } })).body.name).toBe(nameIn(tenant, 'topic'));
          const inspected = await control(server, 'inspect_topics', { query: tenant.query });
          expect(inspected.body?.topics.map((topic) => topic.name)).toEqual([nameIn(tenant, 'topic')]);
        }),
      );
      // The default tenant holds none of theirs.
      const admin = await token(server);
      expect((await call(server, 'list_topics', { token: admin })).body.data).toEqual([]);
    });

    test("another tenant's ids answer 404, and a deleted workspace's token 401", async () => {
      const { server, tenants } = await fleet(await storage.options());
      const [first, second] = tenants as [TenantHandle, TenantHandle];
      await createTopic(server, first.accessToken);
      const onlyInFirst = await createTopic(server, first.accessToken);
      expect((await second.run('get_topic', { params: { topic_id: onlyInFirst } })).status).toBe(404);
      const recipe = await first.run('create_recipe', { body: { recipe: { name: 'Mine', code: '{}' } } });
      expect((await second.run('get_recipe', { params: { id: recipe.body.id } })).status).toBe(404);
      expect((await control(server, 'delete_workspace', { params: { id: first.workspaceId } })).status).toBe(204);
      expect((await first.run('list_topics')).status).toBe(401);
      expect((await control(server, 'get_workspace', { params: { id: first.workspaceId } })).status).toBe(404);
      expect((await second.run('list_topics')).status).toBe(200);
    });

    test('a reset, a fault or a clock change in one tenant never changes another', async () => {
      const { server, tenants } = await fleet(await storage.options());
      await populate(tenants);
      const [reset, faulted, clocked, ...others] = tenants as [TenantHandle, TenantHandle, TenantHandle, TenantHandle];
      expect((await control(server, 'reset', { query: reset.query })).status).toBe(204);
      // The bootstrap key's tokens stay through a reset, as the default tenant's do.
      expect((await reset.run('list_topics')).body.data).toEqual([]);
      expect((await control(server, 'inspect_topics', { query: reset.query })).body?.topics).toEqual([]);
      const fault = { operation: 'publish_message', status: 429, retry_after: 1, times: 1 };
      expect((await control(server, 'add_fault', { query: faulted.query, body: fault })).status).toBe(204);
      const frozenAt = '2031-01-01T00:00:00.000Z';
      await control(server, 'set_clock', { query: clocked.query, body: { now: frozenAt, frozen: true } });
      for (const other of others) {
        expect((await other.run('list_topics')).body.data).toHaveLength(1);
        expect((await control(server, 'list_faults', { query: other.query })).body?.faults).toEqual([]);
        expect((await control(server, 'get_clock', { query: other.query })).body?.now).not.toBe(frozenAt);
        const published = await other.run('publish_message', { params: { topic_id: 1 }, body: { order_id: 'x' } });
        expect(published.status).toBe(201);
      }
      expect((await faulted.run('publish_message', { params: { topic_id: 1 }, body: { order_id: 'x' } })).status).toBe(
        429,
      );
      expect((await control(server, 'get_clock', { query: clocked.query })).body).toEqual({
        now: frozenAt,
        frozen: true,
      });
      expect((await clocked.run('get_topic', { params: { topic_id: 1 } })).body.created_at).not.toBe(frozenAt);
    });

    test('the journal of each tenant holds its own requests only', async () => {
      const { server, tenants } = await fleet(await storage.options());
      await populate(tenants);
      for (const tenant of tenants) {
        const journal = (await control(server, 'list_requests', { query: tenant.query })).body;
        // Its token, then create_topic, publish, consume, create_folder, create_recipe.
        expect(journal?.total).toBe(6);
        const callers = new Set(journal?.requests.map((entry) => entry.client_id).filter((id) => id !== null));
        expect([...callers]).toEqual([tenant.clientId]);
      }
      // Without a query, a caller's bearer token names its tenant.
      const [first] = tenants as [TenantHandle];
      const byToken = await control(server, 'list_requests', {
        headers: { authorization: `Bearer ${first.accessToken}` },
      });
      expect(byToken.body?.total).toBe(6);
      const own = (await control(server, 'list_requests')).body;
      expect(own?.total).toBe(0);
    });
  });
}

describe('workspaces on one emulator', () => {
  test('GET /api/users/me answers the caller’s workspace', async () => {
    const server = await start();
    const [dev] = (await makeWorkspace(server, 'Release pipeline', ['prod'])) as [TenantHandle];
    expect((await dev.run('get_workspace_details')).body).toMatchObject({
      id: dev.workspaceId,
      name: 'Release pipeline',
    });
  });

  test('the emulator API names a tenant by workspace and environment; an unknown one is a 404', async () => {
    const server = await start();
    const [dev] = (await makeWorkspace(server, 'Only dev')) as [TenantHandle];
    const listed = await control(server, 'list_workspaces');
    expect(listed.body?.workspaces).toEqual([
      { id: 1, name: 'Local workspace', environments: [{ name: 'dev' }] },
      { id: dev.workspaceId, name: 'Only dev', environments: [{ name: 'dev' }] },
    ]);
    expect(JSON.stringify(listed.body)).not.toContain(dev.clientId);
    const noWorkspace = await control(server, 'list_faults', { query: { workspace: 99 } });
    expect(noWorkspace.status).toBe(404);
    expect(emulatorErrorOf(noWorkspace).message).toBe('No workspace 99');
    const noProd = await control(server, 'get_clock', { query: { workspace: dev.workspaceId, environment: 'prod' } });
    expect(noProd.status).toBe(404);
    expect((await control(server, 'list_faults', { query: { workspace: 1 } })).status).toBe(200);
    expect((await control(server, 'delete_workspace', { params: { id: 1 } })).status).toBe(409);
  });

  test("the token endpoint's fault is the one of the tenant whose client ID it is sent", async () => {
    const server = await start();
    const made = await control(server, 'create_workspace', { body: { name: 'Faulted' } });
    const { client_id, client_secret } = defined(made.body?.environments[0]);
    const fault = { operation: 'request_access_token', status: 500, times: 1 };
    expect((await control(server, 'add_fault', { body: fault })).status).toBe(204);
    // Workspace 1's fault is not this client's: the token is issued, and the fault stays armed.
    expect(await token(server, client_id, client_secret)).toEqual(expect.any(String));
    const tokenRequest = { body: { grant_type: 'client_credentials', client_id, client_secret } };
    expect((await control(server, 'list_faults')).body?.faults).toHaveLength(1);
    await control(server, 'add_fault', { query: { workspace: made.body?.id ?? 0 }, body: fault });
    expect((await call(server, 'request_access_token', tokenRequest)).status).toBe(500);
    expect((await call(server, 'request_access_token', { ...tokenRequest })).status).toBe(200);
    const admin = {
      ...tokenRequest,
      body: { ...tokenRequest.body, client_id: server.clientId, client_secret: server.clientSecret },
    };
    expect((await call(server, 'request_access_token', admin)).status).toBe(500);
  });
});
