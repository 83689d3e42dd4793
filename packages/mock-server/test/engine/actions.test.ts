// Actions change the state they name: a recipe's connection, an API collection's endpoints from an
// OpenAPI document, the workspace's counts.
import { describe, expect, it } from 'vitest';
import type { JsonObject } from '../../src/store/resource-store.js';
import { freshSessions } from '../support/engine/fresh-session.js';
import { managementErrorOf, type Run } from '../support/helpers.js';

const open = freshSessions();

async function fresh(): Promise<Run> {
  return (await open()).run;
}

describe('update_recipe_connection', () => {
  it("sets account_id of that connector's config line, refuses unknown connections and running recipes", async () => {
    const run = await fresh();
    const first = (await run('create_connection', { body: { name: 'SF 1', provider: 'salesforce' } })).body;
    const second = (await run('create_connection', { body: { name: 'SF 2', provider: 'salesforce' } })).body;
    const config = [
      { keyword: 'application', name: 'salesforce', provider: 'salesforce', account_id: first.id },
      { keyword: 'application', name: 'netsuite', provider: 'netsuite', account_id: null },
    ];
    const recipe = (
      await run('create_recipe', { body: { recipe: { name: 'Sync', code: '{}', config: JSON.stringify(config) } } })
    ).body;
    const params = { recipe_id: recipe.id };
    const done = await run('update_recipe_connection', {
      params,
      body: { adapter_name: 'salesforce', connection_id: second.id },
    });
    expect([done.status, done.body]).toEqual([200, { success: true }]);
    const configOf = async () => ((await run('get_recipe', { params: { id: recipe.id } })).body as JsonObject).config;
    expect(await configOf()).toEqual([{ ...config[0], account_id: second.id }, config[1]]);

    const unknown = await run('update_recipe_connection', {
      params,
      body: { adapter_name: 'salesforce', connection_id: 99 },
    });
    expect(unknown.status).toBe(400);
    expect(JSON.stringify(managementErrorOf(unknown))).toContain('connection_id');

    await run('start_recipe', { params: { id: recipe.id } });
    const running = await run('update_recipe_connection', {
      params,
      body: { adapter_name: 'salesforce', connection_id: first.id },
    });
    expect(running.status).toBe(400);
    expect(await configOf()).toEqual([{ ...config[0], account_id: second.id }, config[1]]);
  });
});

describe('create_api_collection from an OpenAPI document', () => {
  const document = {
    openapi: '3.1.0',
    info: { title: 'Orders', version: '1' },
    paths: {
      '/orders': { get: { summary: 'List orders' }, post: { operationId: 'createOrder' } },
      '/orders/{id}': { delete: {} },
    },
  };
  const YAML = `openapi: 3.1.0
info: { title: Orders, version: '1' }
paths:
  /orders:
    get: { summary: List orders }
    post: { operationId: createOrder }
  /orders/{id}:
    delete: {}
`;

  for (const [format, content] of [
    ['json', JSON.stringify(document)],
    ['yaml', YAML],
  ] as const) {
    it(`gets one endpoint per path and method (${format})`, async () => {
      const run = await fresh();
      await run('create_folder', { body: { name: 'APIs' } });
      const created = await run('create_api_collection', {
        body: { name: 'Orders', openapi_spec: { content, format } },
      });
      expect(created.status, JSON.stringify(created.body)).toBe(200);
      expect(created.body.import_results).toEqual({
        success: true,
        total_endpoints: 3,
        failed_endpoints: 0,
        failed_actions: [],
      });
      const endpoints = await run('list_api_endpoints', { query: { api_collection_id: created.body.id } });
      expect((endpoints.body as unknown as JsonObject[]).map((e) => [e.method, e.path, e.name])).toEqual([
        ['GET', '/orders', 'List orders'],
        ['POST', '/orders', 'createOrder'],
        ['DELETE', '/orders/{id}', 'DELETE /orders/{id}'],
      ]);
    });
  }

  it('a document that is not OpenAPI is a 400 and creates nothing', async () => {
    const run = await fresh();
    await run('create_folder', { body: { name: 'APIs' } });
    const refused = await run('create_api_collection', {
      body: { name: 'Orders', openapi_spec: { content: '{"not": "openapi"', format: 'json' } },
    });
    expect(refused.status).toBe(400);
    expect(JSON.stringify(managementErrorOf(refused))).toContain('openapi_spec.content');
    expect((await run('list_api_collections')).body).toEqual([]);
  });
});

it('get_workspace_details counts the recipes and the running ones', async () => {
  const run = await fresh();
  for (const name of ['A', 'B']) await run('create_recipe', { body: { recipe: { name, code: '{}' } } });
  await run('start_recipe', { params: { id: 1 } });
  const me = await run('get_workspace_details');
  expect(me.body).toMatchObject({ recipes_count: 2, active_recipes_count: 1 });
});
