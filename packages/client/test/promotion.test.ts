// The release pipeline across environments (issue 42), through the generated clients only: a
// workspace with dev, test and prod on the emulator; a folder, a connection, a property and a recipe
// made in dev; the package exported from dev and imported into test, then prod, then another
// workspace; each target keeps its own connections and the values of its own properties, gets the
// properties it lacks, and ids of its own.
import { type MockServer, startMockServer } from '@platform-api/mock-server';
import { afterEach, describe, expect, it } from 'vitest';
import {
  clientCredentials,
  createEmulatorClient,
  createManagementClient,
  type ManagementApi,
  type ThrowingManagementClient,
} from '../src/index.js';

type Recipe = ManagementApi.components['schemas']['Recipe'];
type Connection = ManagementApi.components['schemas']['Connection'];
type Environment = 'dev' | 'test' | 'prod';

let emulator: MockServer | undefined;
afterEach(async () => {
  await emulator?.close();
  emulator = undefined;
});

/** One environment of a workspace: its management client (throwing on errors) and the emulator API's query for it. */
interface Env {
  management: ThrowingManagementClient;
  tenant: { workspace: number; environment: Environment };
}

/** A workspace made over the emulator API, each environment logged in with its own bootstrap credentials. */
async function makeWorkspace(server: MockServer, name: string, environments: Environment[]) {
  const emulatorApi = createEmulatorClient({ baseUrl: server.url });
  const { data, error } = await emulatorApi.POST('/_emulator/workspaces', { body: { name, environments } });
  if (!data) throw new Error(`create_workspace failed: ${JSON.stringify(error)}`);
  const envs = {} as Record<Environment, Env>;
  for (const { name: environment, client_id, client_secret } of data.environments) {
    const tokens = clientCredentials({ authUrl: server.url, clientId: client_id, clientSecret: client_secret });
    const management = createManagementClient({ baseUrl: server.url, auth: tokens, throwOnError: true });
    envs[environment as Environment] = { management, tenant: { workspace: data.id, environment } };
  }
  return envs;
}

/** Authorizes a connection of the environment as its end user's consent would (the emulator API). */
async function authorize(server: MockServer, env: Env, connectionId: number): Promise<void> {
  const emulatorApi = createEmulatorClient({ baseUrl: server.url });
  const { response } = await emulatorApi.POST('/_emulator/connections/{connection_id}/authorize', {
    params: { path: { connection_id: connectionId }, query: env.tenant },
    body: { outcome: 'success' },
  });
  expect(response.status).toBe(200);
}

/** In one environment: a top folder, a connection in it and the environment property `orders.endpoint`. */
async function prepare(env: Env, endpoint: string, description: string) {
  const { data: folder } = await env.management.POST('/api/folders', { body: { name: 'Orders' } });
  const { data: connection } = await env.management.POST('/api/connections', {
    body: { name: 'Salesforce', provider: 'salesforce', folder_id: folder.id, description },
  });
  await env.management.POST('/api/properties', { body: { properties: { 'orders.endpoint': endpoint } } });
  return { folderId: folder.id, connection: connection as Connection };
}

const CODE = (step: string) =>
  JSON.stringify({ number: 0, provider: 'salesforce', name: 'new_object', keyword: 'trigger', as: step, block: [] });

/** The folder's package: an export manifest generated from it, exported, downloaded. */
/** The recipe a release carries: in the folder, using the connection. */
async function createRecipe(env: Env, folderId: number, connectionId: number) {
  const { data } = await env.management.POST('/api/recipes', {
    body: {
      recipe: {
        name: 'Sync orders',
        code: CODE('v1'),
        folder_id: folderId,
        config: JSON.stringify([{ keyword: 'application', provider: 'salesforce', account_id: connectionId }]),
      },
    },
  });
  return data;
}

async function exportFolder(env: Env, folderId: number): Promise<Uint8Array> {
  const { data: manifest } = await env.management.POST('/api/export_manifests', {
    body: { export_manifest: { name: 'Orders release', folder_id: folderId, auto_generate_assets: true } },
  });
  const { data: started } = await env.management.POST('/api/packages/export/{manifest_id}', {
    params: { path: { manifest_id: manifest.result.id } },
  });
  const { data: done } = await env.management.GET('/api/packages/{id}', {
    params: { path: { id: started.id } },
  });
  expect(done.status).toBe('completed');
  const { data: zip } = await env.management.GET('/api/packages/{id}/download', {
    params: { path: { id: done.id } },
    parseAs: 'arrayBuffer',
  });
  return new Uint8Array(zip as unknown as ArrayBuffer);
}

/** Imports the zip into the folder (the raw body import_package takes); the finished package. */
async function importInto(env: Env, folderId: number, zip: Uint8Array) {
  const { data: started } = await env.management.POST('/api/packages/import/{folder_id}', {
    params: { path: { folder_id: folderId } },
    body: zip as unknown as string,
    bodySerializer: (body: unknown) => body as BodyInit,
    headers: { 'content-type': 'application/octet-stream' },
  });
  const { data: done } = await env.management.GET('/api/packages/{id}', {
    params: { path: { id: started.id } },
  });
  expect(done.status, JSON.stringify(done)).toBe('completed');
  return done;
}

async function recipes(env: Env): Promise<Recipe[]> {
  return (await env.management.GET('/api/recipes')).data.items;
}

async function connections(env: Env): Promise<Connection[]> {
  return (await env.management.GET('/api/connections')).data;
}

/** The environment's `orders.` properties. */
async function ordersProperties(env: Env): Promise<unknown> {
  const { data } = await env.management.GET('/api/properties', { params: { query: { prefix: 'orders.' } } });
  return data;
}

/** The connection ids a recipe's config lines use. */
const accountIds = (recipe: Recipe | undefined) =>
  (typeof recipe?.config === 'string' ? JSON.parse(recipe.config) : (recipe?.config ?? [])).map(
    (line: { account_id: unknown }) => line.account_id,
  );

describe('promoting a package from dev to test to prod', () => {
  it('maps connections by name, keeps each target its own, and a second promotion updates', async () => {
    emulator = await startMockServer();
    const { dev, test, prod } = await makeWorkspace(emulator, 'Orders', ['dev', 'test', 'prod']);
    const inDev = await prepare(dev, 'https://dev.example.com', 'dev sandbox');
    const inTest = await prepare(test, 'https://test.example.com', 'test sandbox');
    const inProd = await prepare(prod, 'https://example.com', 'production org');
    await authorize(emulator, prod, inProd.connection.id);
    const created = await createRecipe(dev, inDev.folderId, inDev.connection.id);
    // A property the release brings: dev has it, test and prod do not yet.
    await dev.management.POST('/api/properties', { body: { properties: { 'orders.batch_size': '100' } } });
    const devBefore = { recipes: await recipes(dev), connections: await connections(dev) };

    const release = await exportFolder(dev, inDev.folderId);
    for (const [env, target] of [
      [test, inTest],
      [prod, inProd],
    ] as const) {
      const before = await connections(env);
      const imported = await importInto(env, target.folderId, release);
      const [recipe, ...others] = await recipes(env);
      expect(others).toEqual([]);
      expect(recipe?.name).toBe('Sync orders');
      expect(recipe?.folder_id).toBe(target.folderId);
      // The target's own connection of that name, untouched: no second one, its settings and authorization kept.
      expect(accountIds(recipe)).toEqual([target.connection.id]);
      expect(await connections(env)).toEqual(before);
      expect(imported.assets).toEqual(
        expect.arrayContaining([
          expect.objectContaining({ type: 'connection', id: target.connection.id, result: 'unchanged' }),
          expect.objectContaining({ type: 'recipe', id: recipe?.id, result: 'created' }),
          expect.objectContaining({ type: 'account_property', name: 'orders.endpoint', result: 'unchanged' }),
          expect.objectContaining({ type: 'account_property', name: 'orders.batch_size', result: 'created' }),
        ]),
      );
    }
    expect((await connections(prod))[0]).toMatchObject({
      description: 'production org',
      authorization_status: 'success',
    });
    expect((await connections(test))[0]).toMatchObject({ description: 'test sandbox', authorization_status: null });
    // Each target's own endpoint kept; the new property arrived with dev's value.
    expect(await ordersProperties(test)).toEqual({
      'orders.endpoint': 'https://test.example.com',
      'orders.batch_size': '100',
    });
    expect(await ordersProperties(prod)).toEqual({
      'orders.endpoint': 'https://example.com',
      'orders.batch_size': '100',
    });
    // Prod tunes the property it got; the next release must not undo that.
    await prod.management.POST('/api/properties', { body: { properties: { 'orders.batch_size': '500' } } });

    // A second release: the recipe changed in dev; each target's recipe is updated in place.
    await dev.management.PUT('/api/recipes/{id}', {
      params: { path: { id: created.id } },
      body: { recipe: { code: CODE('v2') } },
    });
    const second = await exportFolder(dev, inDev.folderId);
    for (const env of [test, prod]) {
      const [before] = await recipes(env);
      const imported = await importInto(env, (before as Recipe).folder_id as number, second);
      const [after, ...others] = await recipes(env);
      expect(others).toEqual([]);
      expect(after?.id).toBe(before?.id);
      expect(JSON.parse(String(after?.code)).as).toBe('v2');
      expect(imported.assets).toEqual(
        expect.arrayContaining([expect.objectContaining({ type: 'recipe', id: before?.id, result: 'updated' })]),
      );
    }
    expect((await connections(prod))[0]?.authorization_status).toBe('success');
    expect(await ordersProperties(prod)).toEqual({
      'orders.endpoint': 'https://example.com',
      'orders.batch_size': '500',
    });

    // Dev is as it was, but for its own edit.
    expect(await connections(dev)).toEqual(devBefore.connections);
    expect((await recipes(dev)).map((r) => r.id)).toEqual(devBefore.recipes.map((r) => r.id));
    expect(await ordersProperties(dev)).toEqual({
      'orders.endpoint': 'https://dev.example.com',
      'orders.batch_size': '100',
    });
  });

  it('into another workspace without the connection or the property: made there, the connection disconnected', async () => {
    emulator = await startMockServer();
    const { dev } = await makeWorkspace(emulator, 'Source', ['dev']);
    const { dev: other } = await makeWorkspace(emulator, 'Customer', ['dev']);
    const inDev = await prepare(dev, 'https://dev.example.com', 'dev sandbox');
    await authorize(emulator, dev, inDev.connection.id);
    await createRecipe(dev, inDev.folderId, inDev.connection.id);
    const { data: target } = await other.management.POST('/api/folders', { body: { name: 'Imported' } });
    await importInto(other, target.id, await exportFolder(dev, inDev.folderId));
    const [connection, ...more] = await connections(other);
    expect(more).toEqual([]);
    expect(connection).toMatchObject({
      name: 'Salesforce',
      application: 'salesforce',
      folder_id: target.id,
      authorization_status: null,
      authorized_at: null,
    });
    expect(accountIds((await recipes(other))[0])).toEqual([connection?.id]);
    // A property the target lacks arrives with the source's value, for the target to set its own.
    expect(await ordersProperties(other)).toEqual({ 'orders.endpoint': 'https://dev.example.com' });
  });
});
