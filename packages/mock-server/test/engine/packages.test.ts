// Package imports that must be refused whole, and the import rules a release script relies on:
// matching by type and name, running recipes, export manifests that keep their assets.
import { strToU8, zipSync } from 'fflate';
import { describe, expect, it } from 'vitest';
import type { MockServer } from '../../src/index.js';
import type { JsonObject } from '../../src/store/resource-store.js';
import { freshSessions } from '../support/engine/fresh-session.js';
import { downloadZip, importReport, importZip } from '../support/engine/package-zip.js';
import { managementErrorOf, type Run } from '../support/helpers.js';

const open = freshSessions();
let server: MockServer | undefined;

async function withProject(): Promise<{ run: Run; folder: number }> {
  const opened = await open();
  server = opened.server;
  const project = (await opened.run('create_folder', { body: { name: 'Target' } })).body;
  return { run: opened.run, folder: project.id };
}

const json = (value: unknown) => strToU8(JSON.stringify(value));
const MANIFEST = { 'manifest.json': json({ export_manifest: { id: 1, name: 'Hand-made' }, assets: [] }) };
const RECIPE = { 'sync.recipe.json': json({ type: 'recipe', name: 'Sync', code: '{"v":1}', config: [] }) };

async function recipeNames(run: Run): Promise<unknown[]> {
  return ((await run('list_recipes')).body.items as JsonObject[]).map((r) => r.name);
}

describe('a package that cannot be imported is refused whole, naming the entry', () => {
  const cases: [string, Uint8Array, string][] = [
    ['a malformed zip', strToU8('PK\u0003\u0004 this is not a zip'), '(the zip file)'],
    [
      'a path that escapes its folder',
      zipSync({ ...MANIFEST, ...RECIPE, '../evil.recipe.json': RECIPE['sync.recipe.json'] }),
      '../evil.recipe.json',
    ],
    [
      'an absolute path',
      zipSync({ ...MANIFEST, ...RECIPE, '/etc/x.recipe.json': RECIPE['sync.recipe.json'] }),
      '/etc/x.recipe.json',
    ],
    [
      'an asset type the emulator does not import',
      zipSync({ ...MANIFEST, ...RECIPE, 'w.lcap_app.json': json({ name: 'w' }) }),
      'w.lcap_app.json',
    ],
    [
      'a file that is not JSON',
      zipSync({ ...MANIFEST, ...RECIPE, 'b.connection.json': strToU8('{oops') }),
      'b.connection.json',
    ],
    [
      'an asset whose fields do not fit its type',
      zipSync({ ...MANIFEST, ...RECIPE, 'x.recipe.json': json({ name: 'X', code: 5 }) }),
      'x.recipe.json',
    ],
    // 40 MB of zeros deflate to about 40 KB: refused from its declared size, before it is inflated.
    [
      'a zip bomb',
      zipSync({ ...MANIFEST, ...RECIPE, 'bomb.recipe.json': new Uint8Array(40_000_000) }, { level: 9 }),
      'bomb.recipe.json',
    ],
  ];
  for (const [what, zip, entry] of cases) {
    it(what, async () => {
      const { run, folder } = await withProject();
      const answer = await importZip(server as MockServer, folder, zip);
      expect(answer.status).toBe(400);
      expect(managementErrorOf(answer).message).toContain(entry);
      expect(await recipeNames(run)).toEqual([]);
    });
  }

  it('an unknown folder is a 404', async () => {
    await withProject();
    const answer = await importZip(server as MockServer, 999, zipSync({ ...MANIFEST, ...RECIPE }));
    expect(answer.status).toBe(404);
  });
});

describe('import rules', () => {
  it('updates the asset of the same type and name in the folder, creates the others, and reports each', async () => {
    const { run, folder } = await withProject();
    const held = await run('create_recipe', {
      body: { recipe: { name: 'Sync', code: '{"v":0}', folder_id: String(folder) } },
    });
    const zip = zipSync({
      ...MANIFEST,
      ...RECIPE,
      'Sub/other.recipe.json': json({ type: 'recipe', name: 'Other', code: '{}' }),
    });
    const report = await importReport(server as MockServer, folder, zip);
    const { assets } = report;
    expect(assets.map((a) => [a.zip_name, a.result])).toEqual([
      ['sync.recipe.json', 'updated'],
      ['Sub/other.recipe.json', 'created'],
    ]);
    expect(assets[0]?.id).toBe(held.body.id);
    expect((await run('get_recipe', { params: { id: held.body.id } })).body).toMatchObject({ code: '{"v":1}' });
    const sub = (await run('list_folders', { query: { parent_id: folder } })).body;
    expect(sub.map((f) => f.name)).toEqual(['Sub']);
    const package_ = await run('get_package', { params: { id: Number(report.id) } });
    expect(package_.body).toMatchObject({ operation_type: 'import', status: 'completed' });
  });

  it('refuses to update a running recipe unless restart_recipes=true, then reports it restarted', async () => {
    const { run, folder } = await withProject();
    const held = await run('create_recipe', {
      body: { recipe: { name: 'Sync', code: '{}', folder_id: String(folder) } },
    });
    expect((await run('start_recipe', { params: { id: held.body.id } })).status).toBe(200);
    const zip = zipSync({ ...MANIFEST, ...RECIPE });
    const refused = await importZip(server as MockServer, folder, zip);
    expect(refused.status).toBe(400);
    expect(managementErrorOf(refused).message).toContain('restart_recipes');
    expect((await run('get_recipe', { params: { id: held.body.id } })).body).toMatchObject({ code: '{}' });
    const restarted = await importZip(server as MockServer, folder, zip, '?restart_recipes=true');
    expect((restarted.body as JsonObject).recipe_status).toEqual([{ id: held.body.id, import_result: 'restarted' }]);
    expect((await run('get_recipe', { params: { id: held.body.id } })).body).toMatchObject({
      code: '{"v":1}',
      running: true,
    });
    // The same file again changes nothing, so the running recipe needs no restart.
    const again = await importZip(server as MockServer, folder, zip);
    expect([again.status, ((again.body as JsonObject).assets as JsonObject[])[0]?.result]).toEqual([200, 'unchanged']);
  });

  it("the folder's connection of the file's name is used as it is; a new one is made disconnected", async () => {
    const { run, folder } = await withProject();
    const held = await run('create_connection', {
      body: { name: 'Salesforce', provider: 'salesforce', folder_id: folder, external_id: 'prod-org' },
    });
    const connection = { name: 'Salesforce', provider: 'salesforce', description: 'from dev', external_id: 'dev-org' };
    const zip = zipSync({
      ...MANIFEST,
      'salesforce.connection.json': json(connection),
      'Sub/salesforce.connection.json': json(connection),
    });
    const { assets } = await importReport(server as MockServer, folder, zip);
    expect(assets.map((a) => [a.zip_name, a.result])).toEqual([
      ['salesforce.connection.json', 'unchanged'],
      ['Sub/salesforce.connection.json', 'created'],
    ]);
    const [kept, made, ...more] = (await run('list_connections')).body;
    expect(more).toEqual([]);
    expect(kept).toMatchObject({
      id: held.body.id,
      description: null,
      external_id: 'prod-org',
      updated_at: held.body.updated_at,
    });
    expect(made).toMatchObject({
      id: assets[1]?.id,
      application: 'salesforce',
      authorization_status: null,
      authorized_at: null,
    });
  });

  it("refuses a connection file whose name the folder's connection of another connector has, or with no connector", async () => {
    const { run, folder } = await withProject();
    await run('create_connection', { body: { name: 'CRM', provider: 'hubspot', folder_id: folder } });
    for (const [content, why] of [
      [{ name: 'CRM', provider: 'salesforce' }, 'is a "hubspot" connection'],
      [{ name: 'Mail' }, 'names its connector in `provider`'],
    ] as const) {
      const answer = await importZip(
        server as MockServer,
        folder,
        zipSync({ ...MANIFEST, ...RECIPE, 'c.connection.json': json(content) }),
      );
      expect(answer.status).toBe(400);
      expect(managementErrorOf(answer).message).toContain('c.connection.json: ');
      expect(managementErrorOf(answer).message).toContain(why);
    }
    expect(await recipeNames(run)).toEqual([]);
    expect((await run('list_connections')).body.map((c) => c.name)).toEqual(['CRM']);
  });

  it('a project asset needs a project: importing a lookup table into the home folder is refused', async () => {
    const { run } = await withProject();
    const home = (await run('get_workspace_details')).body.root_folder_id;
    const zip = zipSync({ ...MANIFEST, 'codes.lookup_table.json': json({ name: 'Codes', schema: '[]' }) });
    const answer = await importZip(server as MockServer, home, zip);
    expect(answer.status).toBe(400);
    expect(managementErrorOf(answer).message).toContain('codes.lookup_table.json');
  });
});

describe('API collections travel with their endpoints and the recipes behind them', () => {
  it('exports a project with a collection made from an OpenAPI document and imports it into another project', async () => {
    const { run, folder } = await withProject();
    const project = (await run('list_projects')).body[0];
    const content = JSON.stringify({
      openapi: '3.1.0',
      info: { title: 'Orders', version: '1' },
      paths: { '/orders': { get: { summary: 'List orders' }, post: { summary: 'Create order' } } },
    });
    const collection = await run('create_api_collection', {
      body: { name: 'Orders API', project_id: project?.id, openapi_spec: { content, format: 'json' } },
    });
    expect(collection.status, JSON.stringify(collection.body)).toBe(200);
    const manifest = await run('create_export_manifest', {
      body: { export_manifest: { name: 'APIs', folder_id: folder, auto_generate_assets: true } },
    });
    const exported = await run('export_package', { params: { manifest_id: manifest.body.result.id } });
    const zip = await downloadZip(server as MockServer, Number(exported.body.id));
    const copy = (await run('create_folder', { body: { name: 'Copy' } })).body;
    const imported = await importZip(server as MockServer, copy.id, zip);
    expect(imported.status, JSON.stringify(imported.body)).toBe(200);
    expect(((imported.body as JsonObject).assets as JsonObject[]).map((a) => [a.type, a.name, a.result])).toEqual([
      ['recipe', 'List orders', 'created'],
      ['recipe', 'Create order', 'created'],
      ['api_group', 'Orders API', 'created'],
      ['api_endpoint', 'List orders', 'created'],
      ['api_endpoint', 'Create order', 'created'],
    ]);
    const collections = (await run('list_api_collections')).body as unknown as JsonObject[];
    const copied = collections.find((c) => String(c.project_id) === String(copy.project_id));
    // Its fields travel, its version label too (a recipe file's `version` is the one key import reads nothing from).
    expect([typeof collection.body.version, copied?.version]).toEqual(['string', collection.body.version]);
    const endpoints = (await run('list_api_endpoints', { query: { api_collection_id: Number(copied?.id) } }))
      .body as unknown as JsonObject[];
    const recipes = (await run('list_recipes')).body.items as JsonObject[];
    expect(endpoints.map((e) => [e.method, e.path, recipes.find((r) => r.id === e.flow_id)?.folder_id])).toEqual([
      ['GET', '/orders', copy.id],
      ['POST', '/orders', copy.id],
    ]);
  });
});

describe('export manifests keep their assets', () => {
  it('an asset that does not exist is refused; get and update keep the list the export uses', async () => {
    const { run, folder } = await withProject();
    const missing = await run('create_export_manifest', {
      body: { export_manifest: { name: 'R', assets: [{ id: 99, type: 'recipe' }] } },
    });
    expect(missing.status).toBe(400);
    const recipe = await run('create_recipe', {
      body: { recipe: { name: 'Sync', code: '{}', folder_id: String(folder) } },
    });
    const manifest = await run('create_export_manifest', {
      body: { export_manifest: { name: 'R', folder_id: folder, assets: [{ id: recipe.body.id, type: 'recipe' }] } },
    });
    expect(manifest.status).toBe(201);
    const id = manifest.body.result.id;
    const renamed = await run('update_export_manifest', { params: { id }, body: { export_manifest: { name: 'R2' } } });
    expect(renamed.body.result.name).toBe('R2');
    const exported = await run('export_package', { params: { manifest_id: id } });
    expect(exported.body).toMatchObject({ status: 'completed', export_manifest_id: id });
    expect((await run('get_export_manifest', { params: { id } })).body.result.last_exported_at).not.toBeNull();
  });

  it('a folder that does not exist is the 400 the operation declares, also when the assets come from it', async () => {
    const { run } = await withProject();
    for (const input of [{ assets: [] }, { auto_generate_assets: true }]) {
      const refused = await run('create_export_manifest', {
        body: { export_manifest: { name: 'R', folder_id: 999, ...input } },
      });
      expect([refused.status, managementErrorOf(refused).message], JSON.stringify(input)).toEqual([
        400,
        'folder_id: folder 999 was not found',
      ]);
    }
  });
});
