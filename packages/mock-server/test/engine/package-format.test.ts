// Packages in the platform's file format, both ways (package-files.md): the recipe files the emulator
// writes, the forms it reads (the platform's, the Python CLI's docs, the Recipe API's), the round
// trip pull → edit → push → pull, partial pushes, entries that are no assets, and the asset types of
// Agent Studio and MCP that a package carries.
import { strToU8, unzipSync, zipSync } from 'fflate';
import { describe, expect, it } from 'vitest';
import type { MockServer } from '../../src/index.js';
import type { JsonObject } from '../../src/store/resource-store.js';
import { freshSessions } from '../support/engine/fresh-session.js';
import { downloadZip, importZip, parsed, pull, push, text } from '../support/engine/package-zip.js';
import { managementErrorOf, type Run } from '../support/helpers.js';

const open = freshSessions();

const CODE = {
  number: 0,
  keyword: 'trigger',
  provider: 'salesforce',
  name: 'new_object',
  as: 'trigger',
  input: { sobject: 'Order' },
  block: [
    {
      number: 1,
      keyword: 'if',
      input: { condition: "=_('data.salesforce.trigger.Amount') > 100 && true" },
      block: [{ number: 2, keyword: 'action', provider: 'salesforce', name: 'create', as: 'create', input: {} }],
    },
  ],
};

/** A project `Order to cash` (folder 1) with a connection, and a recipe in its sub-folder `Sales` (folder 2). */
const SEED = {
  version: 1,
  resources: {
    folder: [
      { id: 1, name: 'Order to cash', parent_id: null, is_project: true, project_id: 10 },
      { id: 2, name: 'Sales', parent_id: 1, project_id: 10 },
    ],
    project: [{ id: 10, name: 'Order to cash', folder_id: 1 }],
    connection: [{ id: 6, name: 'Salesforce prod', provider: 'salesforce', folder_id: 1 }],
    recipe: [
      {
        id: 5,
        name: 'Orders sync',
        description: '',
        folder_id: 2,
        code: JSON.stringify(CODE),
        config: [
          { keyword: 'application', name: 'salesforce', provider: 'salesforce', account_id: 6 },
          { keyword: 'application', name: 'logger', provider: 'logger', account_id: null },
        ],
      },
    ],
  },
  counters: { folder: 2, recipe: 5, connection: 6 },
};

const RECIPE_FILE = 'Sales/orders_sync.recipe.json';
const CONNECTION_FILE = 'salesforce_prod.connection.json';

async function opened(): Promise<{ server: MockServer; run: Run }> {
  return open({ seed: SEED });
}

/** Every line of a recipe's code, depth first. */
function lines(code: JsonObject): JsonObject[] {
  const blocks = Array.isArray(code.block) ? (code.block as JsonObject[]) : [];
  return [code, ...blocks.flatMap(lines)];
}

async function newProject(run: Run, name: string): Promise<number> {
  return (await run('create_folder', { body: { name } })).body.id;
}

async function recipesNamed(run: Run, name: string): Promise<JsonObject[]> {
  return ((await run('list_recipes')).body.items as JsonObject[]).filter((r) => r.name === name);
}

describe('an export writes recipe files in the platform format', () => {
  it('code an object with a uuid on every line, private, concurrency, version, connections by their file', async () => {
    const { server, run } = await opened();
    const { files } = await pull(server, run, 1);
    expect(Object.keys(files).sort()).toEqual([RECIPE_FILE, 'manifest.json', CONNECTION_FILE]);
    const recipe = parsed(files[RECIPE_FILE]);
    expect(recipe).toMatchObject({ name: 'Orders sync', description: '', version: 1, private: false, concurrency: 1 });
    expect(recipe).not.toHaveProperty('type');
    const code = recipe.code as JsonObject;
    expect(code).toMatchObject({ keyword: 'trigger', provider: 'salesforce', as: 'trigger', number: 0 });
    const uuids = lines(code).map((line) => line.uuid);
    expect(uuids).toHaveLength(3);
    for (const uuid of uuids)
      expect(uuid).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-5[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    expect(new Set(uuids).size).toBe(3);
    expect(recipe.config).toEqual([
      {
        keyword: 'application',
        name: 'salesforce',
        provider: 'salesforce',
        skip_validation: false,
        account_id: { zip_name: CONNECTION_FILE, name: 'Salesforce prod', folder: '' },
      },
      { keyword: 'application', name: 'logger', provider: 'logger', skip_validation: false, account_id: null },
    ]);
    // The connection the config line names is that file of the same package.
    expect(parsed(files[CONNECTION_FILE])).toMatchObject({ name: 'Salesforce prod', provider: 'salesforce' });
  });

  it('as `wk pull` stores them: keys sorted, two-space indent, <, > and & escaped, a final newline; the same bytes each time', async () => {
    const { server, run } = await opened();
    const first = text((await pull(server, run, 1)).files[RECIPE_FILE]);
    expect(first.startsWith('{\n  "code": {\n    "as": "trigger",\n    "block": [')).toBe(true);
    expect(first.endsWith('\n}\n')).toBe(true);
    expect(first).toContain('\\u003e 100 \\u0026\\u0026 true');
    expect(first).not.toMatch(/[<>&]/);
    expect(text((await pull(server, run, 1)).files[RECIPE_FILE])).toBe(first);
  });
});

describe('the round trip pull → edit → push → pull', () => {
  it('gives back the pushed bytes (the version one higher, as the import saved the recipe), and the rest unchanged', async () => {
    const { server, run } = await opened();
    const before = (await pull(server, run, 1)).files;
    const edited = text(before[RECIPE_FILE])
      .replace('"description": ""', '"description": "Nightly \\u0026 hourly"')
      .replace('"sobject": "Order"', '"sobject": "Invoice"');
    // `wk push`: only the changed file, no manifest.json.
    const pushed = await push(server, run, 1, { [RECIPE_FILE]: edited });
    expect(pushed).toMatchObject({ status: 'completed', name: 'Order to cash', skipped: [] });
    expect((pushed.assets as JsonObject[]).map((a) => [a.zip_name, a.id, a.result])).toEqual([
      [RECIPE_FILE, 5, 'updated'],
    ]);
    const after = (await pull(server, run, 1)).files;
    expect(text(after[RECIPE_FILE])).toBe(edited.replace('"version": 1', '"version": 2'));
    expect(text(after[CONNECTION_FILE])).toBe(text(before[CONNECTION_FILE]));
    const stored = (await run('get_recipe', { params: { id: 5 } })).body;
    expect(stored).toMatchObject({ description: 'Nightly & hourly', version_no: 2 });
    expect(JSON.parse(String(stored.code)).input).toEqual({ sobject: 'Invoice' });
  });

  it('a file pushed back unchanged changes nothing: no new version, the same bytes', async () => {
    const { server, run } = await opened();
    const before = (await pull(server, run, 1)).files;
    // `wk push --force` sends every pulled file, the manifest too.
    const pushed = await push(server, run, 1, before);
    expect((pushed.assets as JsonObject[]).map((a) => a.result)).toEqual(['unchanged', 'unchanged']);
    expect((await run('get_recipe', { params: { id: 5 } })).body.version_no).toBe(1);
    expect(text((await pull(server, run, 1)).files[RECIPE_FILE])).toBe(text(before[RECIPE_FILE]));
  });

  it('a file written another way comes back equal once parsed (re-serialised as wk stores it, config lines named)', async () => {
    const { server, run } = await opened();
    const copy = await newProject(run, 'Copy');
    // The Python CLI's docs example form: keys unsorted, lines without `name`, the connection in the package.
    const recipe = {
      name: 'Contacts sync',
      description: 'Sync contacts',
      version: 3,
      private: true,
      concurrency: 2,
      code: {
        number: 0,
        provider: 'salesforce',
        keyword: 'trigger',
        uuid: '01234567-89ab-cdef-0123-456789abcdef',
        block: [],
      },
      config: [
        {
          keyword: 'application',
          provider: 'salesforce',
          skip_validation: false,
          account_id: { zip_name: 'salesforce.connection.json', name: 'salesforce', folder: '' },
        },
      ],
    };
    const pushed = await push(server, run, copy, {
      'contacts_sync.recipe.json': JSON.stringify(recipe),
      'salesforce.connection.json': JSON.stringify({ name: 'salesforce', provider: 'salesforce' }),
    });
    expect((pushed.assets as JsonObject[]).map((a) => a.result)).toEqual(['created', 'created']);
    const pulled = (await pull(server, run, copy)).files;
    const expected = { ...recipe, version: 1, config: [{ ...recipe.config[0], name: 'salesforce' }] };
    expect(parsed(pulled['contacts_sync.recipe.json'])).toEqual(expected);
  });
});

describe('import reads the Recipe API form and the CLIs’ files', () => {
  it('a recipe file written by either CLI (`code` an object) is imported, not refused', async () => {
    const { server, run } = await opened();
    const copy = await newProject(run, 'Copy');
    const file = { name: 'Plain', description: '', private: false, concurrency: 1, version: 0, code: CODE, config: [] };
    const answer = await importZip(server, copy, zipSync({ 'plain.recipe.json': strToU8(JSON.stringify(file)) }));
    expect(answer.status, JSON.stringify(answer.body)).toBe(200);
    const [created] = await recipesNamed(run, 'Plain');
    expect(JSON.parse(String(created?.code))).toEqual(CODE);
  });

  it('the Recipe API form: `code` JSON text, a connection id; the emulator’s earlier `connection_name`', async () => {
    const { server, run } = await opened();
    const copy = await newProject(run, 'Copy');
    const { id: _id, ...asTheApiAnswers } = (await run('get_recipe', { params: { id: 5 } })).body as JsonObject;
    const earlier = {
      name: 'Earlier',
      code: '{"keyword":"trigger"}',
      config: [
        {
          keyword: 'application',
          name: 'salesforce',
          provider: 'salesforce',
          account_id: null,
          connection_name: 'Salesforce prod',
        },
      ],
    };
    const zip = zipSync({
      'orders_sync.recipe.json': strToU8(JSON.stringify(asTheApiAnswers)),
      'earlier.recipe.json': strToU8(JSON.stringify(earlier)),
    });
    const answer = await importZip(server, copy, zip);
    expect(answer.status, JSON.stringify(answer.body)).toBe(200);
    const [api] = (await recipesNamed(run, 'Orders sync')).filter((r) => r.folder_id === copy);
    expect(api?.code).toBe(SEED.resources.recipe[0]?.code);
    expect((api?.config as JsonObject[] | undefined)?.map((line) => line.account_id)).toEqual([6, null]);
    const [old] = await recipesNamed(run, 'Earlier');
    expect((old?.config as JsonObject[] | undefined)?.[0]?.account_id).toBe(6);
  });
});

describe('a tolerant import: partial packages, entries that are no assets', () => {
  it('a file whose `name` was edited renames the asset it was pulled from (matched by its zip_name)', async () => {
    const { server, run } = await opened();
    const { files } = await pull(server, run, 1);
    const renamed = text(files[RECIPE_FILE]).replace('"name": "Orders sync"', '"name": "Orders sync v2"');
    const pushed = await push(server, run, 1, { [RECIPE_FILE]: renamed });
    expect((pushed.assets as JsonObject[]).map((a) => [a.id, a.result])).toEqual([[5, 'updated']]);
    expect(((await run('list_recipes')).body.items as JsonObject[]).map((r) => r.name)).toEqual(['Orders sync v2']);
  });

  it('two assets of one name get files of their own, and each file updates its own asset', async () => {
    const twin = { ...SEED.resources.recipe[0], id: 7, description: 'twin' };
    const { server, run } = await open({
      seed: { ...SEED, resources: { ...SEED.resources, recipe: [...SEED.resources.recipe, twin] } },
    });
    const { files } = await pull(server, run, 1);
    const second = 'Sales/orders_sync_2.recipe.json';
    expect(parsed(files[second]).description).toBe('twin');
    // In the zip the second file comes first: it must not take the first recipe for having its name.
    const pushed = await push(server, run, 1, {
      [second]: text(files[second]).replace('"description": "twin"', '"description": "two"'),
      [RECIPE_FILE]: text(files[RECIPE_FILE]).replace('"description": ""', '"description": "one"'),
    });
    expect((pushed.assets as JsonObject[]).map((a) => [a.zip_name, a.id])).toEqual([
      [second, 7],
      [RECIPE_FILE, 5],
    ]);
    const descriptions = ((await run('list_recipes')).body.items as JsonObject[]).map((r) => [r.id, r.description]);
    expect(descriptions.sort()).toEqual([
      [5, 'one'],
      [7, 'two'],
    ]);
  });

  it('skips and reports what is no asset (a zip in the zip, hidden files, other files), imports the rest', async () => {
    const { server, run } = await opened();
    const { files } = await pull(server, run, 1);
    const edited = text(files[RECIPE_FILE]).replace('"description": ""', '"description": "Edited"');
    const pushed = await push(server, run, 1, {
      [RECIPE_FILE]: edited,
      'Order to cash.zip': zipSync({ [RECIPE_FILE]: strToU8(edited) }),
      '.DS_Store': new Uint8Array([0, 0, 0, 1]),
      '__MACOSX/Sales/._orders_sync.recipe.json': new Uint8Array([0, 5, 22, 7]),
      'README.md': '# Order to cash',
      'Sales/notes.json': '{"todo": []}',
    });
    expect((pushed.assets as JsonObject[]).map((a) => a.result)).toEqual(['updated']);
    expect(pushed.skipped).toEqual([
      { path: 'Order to cash.zip', reason: 'a zip file inside the package, not an asset' },
      { path: '.DS_Store', reason: 'a hidden file or folder' },
      { path: '__MACOSX/Sales/._orders_sync.recipe.json', reason: 'a hidden file or folder' },
      { path: 'README.md', reason: 'not an asset file: its name is not <name>.<type>.json of a platform asset type' },
      {
        path: 'Sales/notes.json',
        reason: 'not an asset file: its name is not <name>.<type>.json of a platform asset type',
      },
    ]);
    expect((await run('get_recipe', { params: { id: 5 } })).body.description).toBe('Edited');
  });

  const refusals: [string, Record<string, string>, string][] = [
    [
      'a malformed asset beside skipped entries',
      { 'README.md': 'hi', 'broken.recipe.json': '{oops' },
      'broken.recipe.json',
    ],
    [
      'an asset of a platform type the emulator does not import',
      { 'home.lcap_page.json': '{"name":"Home"}' },
      'lcap_page',
    ],
    [
      'a connection that is neither in the package nor in the workspace',
      {
        'x.recipe.json': JSON.stringify({
          name: 'X',
          code: CODE,
          config: [
            {
              keyword: 'application',
              provider: 'box',
              account_id: { zip_name: 'box.connection.json', name: 'Box', folder: '' },
            },
          ],
        }),
      },
      'config[0].account_id: its connection "Box" is neither in the package nor in the workspace',
    ],
    [
      'a `private` that is no boolean',
      { 'y.recipe.json': JSON.stringify({ name: 'Y', code: CODE, private: 'yes' }) },
      'y.recipe.json',
    ],
  ];
  for (const [what, entries, named] of refusals) {
    it(`still refuses ${what}, naming it, and changes nothing`, async () => {
      const { server, run } = await opened();
      const zip = zipSync(Object.fromEntries(Object.entries(entries).map(([path, data]) => [path, strToU8(data)])));
      const answer = await importZip(server, 1, zip);
      expect(answer.status).toBe(400);
      expect(managementErrorOf(answer).message).toContain(named);
      expect(((await run('list_recipes')).body.items as JsonObject[]).map((r) => r.name)).toEqual(['Orders sync']);
    });
  }
});

describe('the package fields the platform’s tools decode', () => {
  it('a manifest answers its folder_id; a package its name, created_at and updated_at', async () => {
    const { server, run } = await opened();
    const manifest = await run('create_export_manifest', {
      body: { export_manifest: { name: 'wk-export-1', folder_id: 2, auto_generate_assets: true } },
    });
    expect(manifest.body.result).toMatchObject({ folder_id: 2, name: 'wk-export-1' });
    const exported = (await run('export_package', { params: { manifest_id: manifest.body.result.id } })).body;
    expect(exported).toMatchObject({ name: 'wk-export-1', status: 'completed' });
    for (const stamp of [exported.created_at, exported.updated_at]) expect(Date.parse(stamp)).not.toBeNaN();
    const imported = await push(server, run, 1, { [RECIPE_FILE]: '{"name":"Orders sync"}' });
    expect(imported).toMatchObject({ name: 'Order to cash', operation_type: 'import' });
    expect(typeof imported.created_at).toBe('string');
  });
});

describe('every asset type the spec lists for a manifest is packaged', () => {
  const AGENTIC = {
    ...SEED,
    resources: {
      ...SEED.resources,
      genie: [{ id: 'gin-1', name: 'Sales assistant', folder_id: 1, instructions: 'Help sales', shared_account_id: 6 }],
      knowledge_base: [{ id: 'kb-1', name: 'Handbook', description: 'Sales handbook', folder_id: 2 }],
      skill: [
        // A skill's name, description and folder are its recipe's.
        { id: 'skl-1', name: 'Orders sync', description: '', provider_id: 5, folder_id: 2 },
      ],
      mcp_server: [{ id: 'mcps-1', name: 'Orders tools', description: 'For agents', folder_id: 1 }],
      mcp_server_tool: [{ $parent: 'mcps-1', id: 1, name: 'sync_orders', description: 'Syncs orders', flow_id: 5 }],
    },
  };

  it('a manifest may name an MCP server (it was refused), and its package holds the server with its tools', async () => {
    const { server, run } = await open({ seed: AGENTIC });
    const assets = (await run('list_folder_assets', { query: { folder_id: 1 } })).body.result.assets;
    const mcp = assets.find((a) => a.type === 'mcp_server');
    expect(mcp).toMatchObject({ id: 1, name: 'Orders tools', zip_name: 'orders_tools.mcp_server.json' });
    const manifest = await run('create_export_manifest', {
      body: {
        export_manifest: {
          name: 'MCP',
          folder_id: 1,
          assets: [{ id: 1, type: 'mcp_server', zip_name: 'tools.mcp_server.json' }],
        },
      },
    });
    expect(manifest.status, JSON.stringify(manifest.body)).toBe(201);
    const exported = await run('export_package', { params: { manifest_id: manifest.body.result.id } });
    expect(exported.body.status).toBe('completed');
    const files = unzipSync(await downloadZip(server, exported.body.id));
    expect(Object.keys(files)).toEqual(['tools.mcp_server.json', 'manifest.json']);
    expect(parsed(files['tools.mcp_server.json']).tools).toEqual([
      { name: 'sync_orders', description: 'Syncs orders', recipe_name: 'Orders sync' },
    ]);
  });

  it('exports genies, skills, knowledge bases and MCP servers, and imports them into another project', async () => {
    const { server, run } = await open({ seed: AGENTIC });
    const { files } = await pull(server, run, 1);
    expect(Object.keys(files).sort()).toEqual([
      'Sales/handbook.agentic_knowledge_base.json',
      'Sales/orders_sync.agentic_skill.json',
      RECIPE_FILE,
      'manifest.json',
      'orders_tools.mcp_server.json',
      'sales_assistant.agentic_genie.json',
      CONNECTION_FILE,
    ]);
    expect(parsed(files['orders_tools.mcp_server.json'])).toEqual({
      name: 'Orders tools',
      description: 'For agents',
      authentication_method: 'token',
      tools: [{ name: 'sync_orders', description: 'Syncs orders', recipe_name: 'Orders sync' }],
    });
    expect(parsed(files['Sales/orders_sync.agentic_skill.json'])).toMatchObject({ recipe_name: 'Orders sync' });
    expect(parsed(files['sales_assistant.agentic_genie.json'])).toMatchObject({
      instructions: 'Help sales',
      shared_account_id: { zip_name: CONNECTION_FILE, name: 'Salesforce prod', folder: '' },
    });

    const copy = await newProject(run, 'Copy');
    const imported = await push(server, run, copy, files);
    expect((imported.assets as JsonObject[]).map((a) => [a.type, a.result])).toEqual([
      ['connection', 'created'],
      ['recipe', 'created'],
      ['agentic_skill', 'created'],
      ['agentic_knowledge_base', 'created'],
      ['agentic_genie', 'created'],
      ['mcp_server', 'created'],
    ]);
    const ids = Object.fromEntries((imported.assets as JsonObject[]).map((a) => [a.type, a.id]));
    const copied = (await pull(server, run, copy)).files;
    for (const path of Object.keys(files).filter((p) => p !== 'manifest.json'))
      expect(text(copied[path]), path).toBe(text(files[path]).replace(/"version": \d+/, '"version": 1'));
    const tools = (await run('mcp_list_server_tools', { params: { mcp_server_handle: String(ids.mcp_server) } })).body;
    expect(JSON.stringify(tools)).toContain(`"flow_id":${ids.recipe}`);
    // The imported server has its own token: its mcp_url answers as a created one's does.
    const made = (await run('mcp_get_server', { params: { handle: String(ids.mcp_server) } })).body.data;
    const initialize = { jsonrpc: '2.0', id: 1, method: 'initialize', params: {} };
    const answer = await fetch(made.mcp_url, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json', Accept: 'application/json, text/event-stream' },
      body: JSON.stringify(initialize),
    });
    expect(answer.status, made.mcp_url).toBe(200);
    const again = await push(server, run, copy, files);
    expect((again.assets as JsonObject[]).map((a) => a.result)).toEqual(Array(6).fill('unchanged'));
  });

  it('a manifest naming a type the emulator does not have is the operation’s 400', async () => {
    const { run } = await opened();
    const refused = await run('create_export_manifest', {
      body: { export_manifest: { name: 'R', assets: [{ id: 1, type: 'lcap_app' }] } },
    });
    expect(refused.status).toBe(400);
  });
});
