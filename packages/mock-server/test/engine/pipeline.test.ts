// The deployment pipeline of issue 25, black-box, on each storage: two spawned `platform-api-mock`
// processes (on free ports of 127.0.0.1, stopped after), over HTTP only. On the first: a project with
// recipes, connections, a lookup table with rows and a data table; an export manifest generated from its
// folder's assets; an export; the download. Then the zip is imported into another project of the same
// emulator and into an empty project of the second one, and every asset is there with the same code,
// config and fields; importing it again changes nothing. call() checks every answer against the spec.
import { unzipSync } from 'fflate';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { MockServer } from '../../src/index.js';
import type { JsonObject } from '../../src/store/resource-store.js';
import { bannerUrl, type CliProcess, runCli } from '../support/cli-process.js';
import { defined } from '../support/defined.js';
import { type Emulator, importZip, pull, push, text } from '../support/engine/package-zip.js';
import { call, type Run, token } from '../support/helpers.js';
import { STORAGES } from '../support/storages.js';

async function spawn(args: string[]): Promise<{ cli: CliProcess; emulator: Emulator; run: Run }> {
  const cli = runCli(['--port', '0', '--host', '127.0.0.1', '--log-level', 'warn', ...args], { ownedByCaller: true });
  // An emulator that never says it is ready is stopped here: no afterAll knows of it.
  const url = await bannerUrl(cli).catch((error: unknown) => {
    cli.child.kill('SIGKILL');
    throw error;
  });
  const credential = (label: string) =>
    defined(new RegExp(`${label}\\s+(\\S+)`).exec(cli.output())?.[1], `${label} in the banner`);
  const emulator = { url, clientId: credential('Client ID'), clientSecret: credential('Client secret') };
  const admin = await token(emulator as MockServer);
  const run: Run = (id, options = {}) => call(emulator as MockServer, id, { token: admin, ...options });
  return { cli, emulator, run };
}

/** Builds the project of the pipeline on `run`'s emulator; its project folder's id. */
async function buildProject(run: Run): Promise<number> {
  const project = (await run('create_folder', { body: { name: 'Order to cash' } })).body;
  const sales = (await run('create_folder', { body: { name: 'Sales', parent_id: String(project.id) } })).body;
  const salesforce = await run('create_connection', {
    body: { name: 'Salesforce prod', provider: 'salesforce', folder_id: project.id },
  });
  expect(salesforce.status, JSON.stringify(salesforce.body)).toBe(200);
  const netsuite = await run('create_connection', {
    body: { name: 'NetSuite prod', provider: 'netsuite', folder_id: sales.id },
  });
  const config = [
    {
      keyword: 'application',
      name: 'salesforce',
      provider: 'salesforce',
      skip_validation: false,
      account_id: salesforce.body.id,
    },
    {
      keyword: 'application',
      name: 'netsuite',
      provider: 'netsuite',
      skip_validation: false,
      account_id: netsuite.body.id,
    },
  ];
  for (const [name, folder, uuid] of [
    ['Orders sync', sales.id, '8d7c3a52-1f0e-4b6a-9c2d-5e4f3a2b1c0d'],
    ['Invoices', project.id, '2b9e6f14-7a3c-4d58-8e1f-0c6b5a4d3e2f'],
  ] as const) {
    const recipe = await run('create_recipe', {
      body: {
        recipe: {
          name,
          code: JSON.stringify({
            number: 0,
            keyword: 'trigger',
            provider: 'salesforce',
            name: `${name} trigger`,
            uuid,
          }),
          config: JSON.stringify(config),
          folder_id: String(folder),
        },
      },
    });
    expect(recipe.status, JSON.stringify(recipe.body)).toBe(200);
  }
  const table = await run('create_lookup_table', {
    body: {
      lookup_table: {
        name: 'Country codes',
        project_id: project.project_id,
        schema: [{ label: 'code' }, { label: 'name' }],
      },
    },
  });
  expect(table.status, JSON.stringify(table.body)).toBe(200);
  for (const [code, name] of [
    ['DE', 'Germany'],
    ['FR', 'France'],
  ])
    await run('create_lookup_table_row', {
      params: { lookup_table_id: table.body.id },
      body: { data: { code, name } },
    });
  const dataTable = await run('create_data_table', {
    body: {
      name: 'Orders',
      folder_id: sales.id,
      schema: [
        { name: 'order_id', type: 'string', optional: false },
        { name: 'amount', type: 'number', optional: true },
      ],
    },
  });
  expect(dataTable.status, JSON.stringify(dataTable.body)).toBe(200);
  return project.id;
}

/** What the pipeline must carry over, by asset name, without ids: each recipe, connection and table's fields. */
async function contents(run: Run, projectFolder: number) {
  const folders = (await run('list_folders', { query: { parent_id: projectFolder, with_nested_folders: 'true' } }))
    .body;
  const inProject = new Set([projectFolder, ...folders.map((f) => f.id)]);
  const folderName = new Map<number, string>(folders.map((f) => [f.id, f.name]));
  folderName.set(projectFolder, '(project)');
  const connections = (await run('list_connections')).body as unknown as JsonObject[];
  const connectionName = new Map(connections.map((c) => [c.id, c.name]));
  const recipes = ((await run('list_recipes')).body.items as JsonObject[]).filter((r) =>
    inProject.has(Number(r.folder_id)),
  );
  const projectId = (await run('list_projects')).body.find((p) => p.folder_id === projectFolder)?.id;
  const lookupTables = ((await run('list_lookup_tables')).body as unknown as JsonObject[]).filter(
    (t) => String(t.project_id) === String(projectId),
  );
  const rows = [];
  for (const table of lookupTables) {
    const listed = (await run('list_lookup_table_rows', { params: { lookup_table_id: Number(table.id) } })).body;
    rows.push(...(listed as unknown as JsonObject[]).map((row) => ({ table: table.name, data: row.data })));
  }
  const dataTables = ((await run('list_data_tables')).body.data as JsonObject[]).filter((t) =>
    inProject.has(Number(t.folder_id)),
  );
  return {
    recipes: recipes
      .map((r) => ({
        name: r.name,
        folder: folderName.get(Number(r.folder_id)),
        // The code as its lines say (a package's file holds it as an object, its keys sorted).
        code: JSON.parse(String(r.code)),
        config: (r.config as JsonObject[]).map(({ account_id, ...line }) => ({
          ...line,
          connection: connectionName.get(account_id),
        })),
      }))
      .sort((a, b) => String(a.name).localeCompare(String(b.name))),
    connections: connections
      .filter((c) => inProject.has(Number(c.folder_id)))
      .map((c) => ({ name: c.name, provider: c.provider, folder: folderName.get(Number(c.folder_id)) }))
      .sort((a, b) => String(a.name).localeCompare(String(b.name))),
    lookupTables: lookupTables.map((t) => ({ name: t.name, schema: t.schema })),
    rows,
    dataTables: dataTables.map((t) => ({
      name: t.name,
      folder: folderName.get(Number(t.folder_id)),
      schema: (t.schema as JsonObject[]).map(({ name, type, optional }) => ({ name, type, optional })),
    })),
  };
}

for (const storage of STORAGES) {
  const skipped = storage.missing === undefined ? '' : ` (skipped: ${storage.missing})`;
  describe.skipIf(storage.missing !== undefined)(`the deployment pipeline, ${storage.name}${skipped}`, () => {
    let source: Awaited<ReturnType<typeof spawn>>;
    let target: Awaited<ReturnType<typeof spawn>>;

    beforeAll(async () => {
      source = await spawn(await storage.args());
      target = await spawn(await storage.args());
    }, 60_000);

    afterAll(async () => {
      // One may be missing when beforeAll failed.
      for (const cli of [source?.cli, target?.cli]) {
        if (!cli || cli.child.exitCode !== null) continue;
        cli.child.kill('SIGTERM');
        await cli.exited;
      }
    });

    it('exports a project, downloads it, and imports it into another folder and into a second emulator', async () => {
      const { run } = source;
      const projectFolder = await buildProject(run);
      const assets = (await run('list_folder_assets', { query: { folder_id: projectFolder } })).body.result.assets;
      expect(assets.map((a) => a.type).sort()).toEqual([
        'connection',
        'connection',
        'lookup_table',
        'recipe',
        'recipe',
        'workato_db_table',
      ]);
      const manifest = await run('create_export_manifest', {
        body: {
          export_manifest: {
            name: 'Release 1',
            folder_id: projectFolder,
            auto_generate_assets: true,
            include_data: true,
          },
        },
      });
      expect(manifest.status, JSON.stringify(manifest.body)).toBe(201);
      expect(manifest.body.result.project_path).toBe('Order to cash');
      const exported = await run('export_package', { params: { manifest_id: manifest.body.result.id } });
      expect(exported.body).toMatchObject({ operation_type: 'export', status: 'completed' });
      const polled = await run('get_package', { params: { id: exported.body.id } });
      expect(polled.body.status).toBe('completed');
      const admin = await token(source.emulator as MockServer);
      const download = await fetch(`${source.emulator.url}/api/packages/${exported.body.id}/download`, {
        headers: { authorization: `Bearer ${admin}` },
      });
      expect(download.status).toBe(200);
      const zip = new Uint8Array(await download.arrayBuffer());

      // The platform's layout: the manifest, and one file per asset named by its zip_name in its folder.
      const files = unzipSync(zip);
      expect(Object.keys(files).sort()).toEqual([
        'Sales/netsuite_prod.connection.json',
        'Sales/orders.workato_db_table.json',
        'Sales/orders_sync.recipe.json',
        'country_codes.lookup_table.json',
        'invoices.recipe.json',
        'manifest.json',
        'salesforce_prod.connection.json',
      ]);
      const file = (name: string) => JSON.parse(new TextDecoder().decode(files[name])) as JsonObject;
      expect(file('Sales/orders_sync.recipe.json')).toMatchObject({
        name: 'Orders sync',
        private: false,
        concurrency: 1,
      });
      expect((file('invoices.recipe.json').config as JsonObject[]).map((line) => line.account_id)).toEqual([
        { zip_name: 'salesforce_prod.connection.json', name: 'Salesforce prod', folder: '' },
        { zip_name: 'netsuite_prod.connection.json', name: 'NetSuite prod', folder: 'Sales' },
      ]);
      expect(file('country_codes.lookup_table.json').rows).toEqual([
        { code: 'DE', name: 'Germany' },
        { code: 'FR', name: 'France' },
      ]);
      expect(JSON.stringify(file('salesforce_prod.connection.json'))).not.toMatch(/"input"|password|secret/);

      const expected = await contents(run, projectFolder);
      expect(expected.recipes).toHaveLength(2);

      // Into another project of the same emulator, then into an empty project of a second one.
      const copy = (await run('create_folder', { body: { name: 'Order to cash (copy)' } })).body;
      const here = await importZip(source.emulator, copy.id, zip);
      expect(here.status, JSON.stringify(here.body)).toBe(200);
      expect(await contents(run, copy.id)).toEqual(expected);

      const there = (await target.run('create_folder', { body: { name: 'Order to cash' } })).body;
      const imported = await importZip(target.emulator, there.id, zip);
      expect(imported.status, JSON.stringify(imported.body)).toBe(200);
      const report = imported.body as JsonObject;
      expect(report).toMatchObject({ operation_type: 'import', status: 'completed' });
      expect((report.assets as JsonObject[]).map((a) => [a.zip_name, a.result])).toEqual([
        ['salesforce_prod.connection.json', 'created'],
        ['Sales/netsuite_prod.connection.json', 'created'],
        ['Sales/orders.workato_db_table.json', 'created'],
        ['country_codes.lookup_table.json', 'created'],
        ['Sales/orders_sync.recipe.json', 'created'],
        ['invoices.recipe.json', 'created'],
      ]);
      expect((report.recipe_status as JsonObject[]).map((r) => r.import_result)).toEqual([
        'no_update_or_update_without_restart',
        'no_update_or_update_without_restart',
      ]);
      expect(await contents(target.run, there.id)).toEqual(expected);

      // Importing the same package again matches every asset and changes nothing.
      const again = await importZip(target.emulator, there.id, zip);
      expect((again.body as JsonObject).assets).toEqual(
        (report.assets as JsonObject[]).map((asset) => ({ ...asset, result: 'unchanged' })),
      );
      expect(await contents(target.run, there.id)).toEqual(expected);
    }, 60_000);

    it('wk pull, an edited file pushed alone (no manifest.json), wk pull: the pushed bytes come back', async () => {
      const { emulator, run } = target;
      const project = (await run('create_folder', { body: { name: 'Round trip' } })).body;
      const connection = await run('create_connection', {
        body: { name: 'Box', provider: 'box', folder_id: project.id },
      });
      const code = { number: 0, keyword: 'trigger', provider: 'box', name: 'new_file', as: 'trigger', input: {} };
      await run('create_recipe', {
        body: {
          recipe: {
            name: 'Files',
            code: JSON.stringify(code),
            config: JSON.stringify([{ keyword: 'application', provider: 'box', account_id: connection.body.id }]),
            folder_id: String(project.id),
          },
        },
      });
      const pulled = await pull(emulator, run, project.id);
      expect(pulled.package).toMatchObject({ operation_type: 'export', status: 'completed' });
      expect(Object.keys(pulled.files).sort()).toEqual(['box.connection.json', 'files.recipe.json', 'manifest.json']);
      const edited = text(pulled.files['files.recipe.json']).replace(
        '"input": {}',
        '"input": {\n      "folder": "/in"\n    }',
      );
      expect(edited).not.toBe(text(pulled.files['files.recipe.json']));
      const pushed = await push(emulator, run, project.id, { 'files.recipe.json': edited });
      expect(pushed).toMatchObject({ operation_type: 'import', status: 'completed', name: 'Round trip', skipped: [] });
      expect((pushed.assets as JsonObject[]).map((a) => [a.zip_name, a.result])).toEqual([
        ['files.recipe.json', 'updated'],
      ]);
      const again = await pull(emulator, run, project.id);
      expect(text(again.files['files.recipe.json'])).toBe(edited.replace('"version": 1', '"version": 2'));
      expect(text(again.files['box.connection.json'])).toBe(text(pulled.files['box.connection.json']));
    }, 60_000);
  });
}
