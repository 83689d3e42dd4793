// The platform's official CLI, wk 1.0.2, against the emulator: every call of test/support/wk-calls.json
// (wk.md's tables as data) driven in the order wk makes them (prerequisites first, each id sent back as
// wk sends it: a folder id as a string to recipes, as a number to connections), with wk's headers and
// its credential (the static token of an API key of a `token` API client). Each request body is held to
// what wk sends, each answer to what wk decodes (every field there, with the JSON type its Go struct
// needs) and to our spec; what a call changes is read back through the API. On every storage.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Router } from '../src/http/router.js';
import type { MockServer } from '../src/index.js';
import { type CliProcess, type SpawnedEmulator, spawnEmulator, stopSpawned } from './support/cli-process.js';
import { defined } from './support/defined.js';
import { assertConforms, type OperationId, specs, toAnswer, token } from './support/helpers.js';
import { STORAGES } from './support/storages.js';
import { sendsProblems, shapeOf, typeProblems, type WkCall, wk } from './support/wk.js';

// biome-ignore lint/suspicious/noExplicitAny: answers are walked as wk reads them, checked by typeProblems.
type Json = any;

/**
 * Fields wk decodes that the package work of issue 40 (packages in the platform's file format, a change
 * of its own) gives these answers: until it lands they may be absent, never of another type.
 */
const PENDING: Record<string, string[]> = {
  'packages.export_manifest': ['/result/folder_id'],
  'packages.status': ['/name', '/error', '/error_parts', '/created_at', '/updated_at'],
};

/** What wk could not decode of the answer, but for the fields still pending elsewhere. */
function decodeProblems(call: WkCall, body: unknown): string[] {
  const pending = PENDING[call.id] ?? [];
  const absent = (problem: string) => pending.some((pointer) => problem === `${pointer} is absent`);
  return call.reads === null ? [] : typeProblems(body, call.reads).filter((problem) => !absent(problem));
}

const router = new Router(specs.operations.filter((op) => op.api === 'management'));

/** The operation of the management spec a call of wk reaches. */
function operationOf(call: WkCall) {
  const path = `${wk.request.prefix}${call.path.replace(/\{[^}]+\}/g, 'x1')}`;
  const route = router.route(call.method, path);
  return route && 'operation' in route ? route.operation : undefined;
}

describe('wk-calls.json, the calls of wk 1.0.2 as data', () => {
  it('names each answer shape as what wk decodes makes it', () => {
    for (const call of wk.calls) expect(shapeOf(call.reads), call.id).toBe(call.shape);
  });

  it('reaches an operation of the management spec with each call, which declares every query parameter wk sends', () => {
    for (const call of wk.calls) {
      const operation = operationOf(call);
      expect(operation, `${call.method} ${call.path}`).toBeDefined();
      const declared = new Set(operation?.parameters.filter((p) => p.in === 'query').map((p) => p.name));
      const ignored = Object.keys(call.query ?? {}).filter((name) => !declared.has(name));
      expect(ignored, `${call.id}: query parameters the emulator would ignore`).toEqual([]);
    }
  });
});

const CODE = {
  number: 0,
  provider: 'salesforce',
  name: 'new_object',
  as: 'a1b2c3d4',
  keyword: 'trigger',
  input: { sobject_name: 'Order' },
  block: [
    { number: 1, provider: 'netsuite', name: 'create_sales_order', as: 'e5f6a7b8', keyword: 'action', input: {} },
  ],
};
const CONFIG = [
  { keyword: 'application', name: 'salesforce', provider: 'salesforce' },
  { keyword: 'application', name: 'netsuite', provider: 'netsuite' },
];
const JOB = {
  recipe_id: 500,
  started_at: '2026-11-20T08:00:00Z',
  completed_at: '2026-11-20T08:00:04Z',
  is_poll_error: false,
  is_repeat: false,
  is_test: false,
  is_test_case_job: false,
  calling_recipe_id: null,
  calling_job_id: null,
  calling_job_handle: null,
  root_recipe_id: 500,
  master_job_id: null,
  master_job_handle: null,
  lines: [
    {
      recipe_line_number: 0,
      adapter_name: 'salesforce',
      adapter_operation: 'new_object',
      line_stat: { started_at: '2026-11-20T08:00:00Z', completed_at: '2026-11-20T08:00:01Z' },
    },
  ],
};

/**
 * What no wk call creates: the platform's connectors, the workspace's members, its audit log, the
 * identity provider's user groups, and a recipe that has run (its jobs).
 */
const SEED = {
  format: 'platform-api-emulator-state',
  version: 1,
  resources: {
    connector: [
      { name: 'salesforce', title: 'Salesforce', description: 'Accounts, leads and opportunities' },
      { name: 'netsuite', title: 'NetSuite', description: 'Orders, invoices and the ledger' },
    ],
    member: [
      { id: 300, name: 'Dana Whitfield', email: 'dana.whitfield@example.com' },
      { id: 301, name: 'Lee Park', email: 'lee.park@example.com' },
    ],
    activity_log: ['recipe_started', 'connection_created'].map((event_type, index) => ({
      id: index + 1,
      event_type,
      timestamp: `2026-11-2${index}T08:00:00Z`,
      workspace: { id: 1, name: 'Acme' },
      user: { id: 300, name: 'Dana Whitfield', email: 'dana.whitfield@example.com' },
      details: { request: { ip_address: '203.0.113.7', user_agent: 'wk-cli/1.0.2' } },
      resource: { id: 500, type: 'recipe', name: 'Nightly sync' },
    })),
    mcp_user_group: [
      { id: 'ug-support', name: 'Support', users_count: 4 },
      { id: 'ug-sales', name: 'Sales', users_count: 2 },
    ],
    folder: [{ id: 400, name: 'Operations', parent_id: null }],
    recipe: [{ id: 500, name: 'Nightly sync', folder_id: 400, code: JSON.stringify(CODE), running: true }],
    job: [
      { ...JOB, $parent: 500, id: 'j-1', handle: 'j-1', title: 'Order 1', status: 'succeeded', is_error: false },
      { ...JOB, $parent: 500, id: 'j-2', handle: 'j-2', title: 'Order 2', status: 'failed', is_error: true },
    ].map((job) => ({ ...job, error: job.is_error ? 'NetSuite timed out' : null, root_job_id: job.id })),
  },
};

interface Sent {
  params?: Record<string, string | number>;
  query?: Record<string, string | number | boolean>;
  body?: unknown;
  zip?: Uint8Array;
}

/** wk, as far as the emulator can tell: its calls, headers, bodies and what it decodes of each answer. */
class Wk {
  readonly covered = new Set<string>();

  constructor(
    readonly url: string,
    private readonly bearer: string,
  ) {}

  async call(id: string, sent: Sent = {}): Promise<Json> {
    const call = defined(
      wk.calls.find((each) => each.id === id),
      `wk call ${id}`,
    );
    this.checkRequest(call, sent);
    const response = await fetch(this.urlOf(call, sent), this.requestOf(call, sent));
    const answer =
      call.reads === 'bytes'
        ? { status: response.status, headers: response.headers, body: new Uint8Array(await response.arrayBuffer()) }
        : await toAnswer(response);
    expect(answer.status, `${id}: ${JSON.stringify(answer.body)}`).toBeGreaterThanOrEqual(200);
    expect(answer.status, `${id}: ${JSON.stringify(answer.body)}`).toBeLessThan(300);
    if (call.reads !== 'bytes') assertConforms(defined(operationOf(call)).operationId as OperationId, answer);
    expect(decodeProblems(call, answer.body), `${id} as wk decodes it`).toEqual([]);
    this.covered.add(id);
    return answer.body;
  }

  private checkRequest(call: WkCall, sent: Sent): void {
    const unknown = Object.keys(sent.query ?? {}).filter((name) => !(name in (call.query ?? {})));
    expect(unknown, `${call.id}: query parameters wk does not send`).toEqual([]);
    if (sent.body === undefined) expect(call.sends === undefined || sent.zip !== undefined, call.id).toBe(true);
    else if (call.sends !== undefined && typeof call.sends === 'object')
      expect(sendsProblems(sent.body, call.sends), `${call.id}: a body wk does not send`).toEqual([]);
  }

  private urlOf(call: WkCall, { params = {}, query = {} }: Sent): string {
    const path = call.path.replace(/\{([^}]+)\}/g, (_, name: string) =>
      encodeURIComponent(String(defined(params[name], `${call.id}: {${name}}`))),
    );
    const search = new URLSearchParams(Object.entries(query).map(([name, value]) => [name, String(value)]));
    return `${this.url}${wk.request.prefix}${path}${search.size > 0 ? `?${search}` : ''}`;
  }

  private requestOf(call: WkCall, { body, zip }: Sent): RequestInit {
    const headers: Record<string, string> = { ...wk.request.headers, Authorization: `Bearer ${this.bearer}` };
    if (zip) headers['Content-Type'] = 'application/octet-stream';
    else if (body !== undefined) headers['Content-Type'] = 'application/json';
    const payload = zip ? new Uint8Array(zip) : body === undefined ? undefined : JSON.stringify(body);
    return { method: call.method, headers, body: payload };
  }

  /** A read of the management API that is no call of wk's, to see what one changed. */
  async read(path: string): Promise<{ status: number; body: Json }> {
    const response = await fetch(`${this.url}/api${path}`, { headers: { Authorization: `Bearer ${this.bearer}` } });
    return toAnswer(response);
  }
}

/** A JSON-RPC request as `wk mcp test <url>` sends it: a POST to the URL, no token. */
async function mcpPost(url: string, method: string, id?: number): Promise<{ status: number; body: Json }> {
  const message = id === undefined ? { jsonrpc: '2.0', method } : { jsonrpc: '2.0', id, method, params: {} };
  const response = await fetch(url, {
    method: 'POST',
    headers: {
      'User-Agent': wk.request.headers['User-Agent'] ?? '',
      'Content-Type': 'application/json',
      Accept: 'application/json, text/event-stream',
    },
    body: JSON.stringify(message),
  });
  return toAnswer(response);
}

/** An emulator's state as PUT /_emulator/state takes it. */
async function putState(url: string, state: unknown): Promise<void> {
  const answer = await fetch(`${url}/_emulator/state`, { method: 'PUT', body: JSON.stringify(state) });
  expect(answer.status, await answer.text()).toBe(204);
}

/** The static token wk authenticates with: an API key of an API client whose auth_type is `token`. */
async function staticToken(server: SpawnedEmulator): Promise<string> {
  const admin = await token(server as MockServer);
  const post = async (path: string, body: unknown) => {
    const answer = await fetch(`${server.url}${path}`, {
      method: 'POST',
      headers: { Authorization: `Bearer ${admin}`, 'Content-Type': 'application/json' },
      body: JSON.stringify(body),
    });
    expect(answer.status).toBe(200);
    return (await answer.json()) as Json;
  };
  const client = await post('/api/v2/api_clients', { name: 'wk on CI', auth_type: 'token' });
  const key = await post(`/api/v2/api_clients/${client.data.id}/api_keys`, { name: 'wk' });
  return key.data.auth_token;
}

for (const storage of STORAGES) {
  const skipped = storage.missing === undefined ? '' : ` (skipped: ${storage.missing})`;
  describe.skipIf(storage.missing !== undefined)(`wk 1.0.2 runs unchanged, ${storage.name}${skipped}`, () => {
    let cli: CliProcess;
    let wkCli: Wk;
    // What earlier calls made, as wk keeps it (ids it sends back).
    const made: Record<string, Json> = {};

    beforeAll(async () => {
      const spawned = await spawnEmulator(await storage.args());
      cli = spawned.cli;
      await putState(spawned.emulator.url, SEED);
      wkCli = new Wk(spawned.emulator.url, await staticToken(spawned.emulator));
    });

    afterAll(() => stopSpawned(cli));

    it('auth login reads the workspace; auth status lists a recipe', async () => {
      made.workspace = await wkCli.call('workspace.current');
      const listed = await wkCli.call('recipes.list', { query: { per_page: 1 } });
      expect(listed.items.map((recipe: Json) => recipe.id)).toEqual([500]);
    });

    it('workspace users (by email), properties set and list, the audit log by time and event type', async () => {
      const members = await wkCli.call('workspace.members', { query: { email: 'lee.park@example.com' } });
      expect(members.data.map((member: Json) => member.id)).toEqual([301]);
      await wkCli.call('workspace.properties.set', { body: { properties: { 'wk.region': 'us', 'wk.team': 'ops' } } });
      const properties = await wkCli.call('workspace.properties.list', { query: { prefix: 'wk.' } });
      expect(properties).toEqual({ 'wk.region': 'us', 'wk.team': 'ops' });
      const log = await wkCli.call('workspace.audit_log', {
        query: { from: '2026-11-01T00:00:00Z', to: '2026-12-01T00:00:00Z', event_type: 'connection_created' },
      });
      expect(log.data.map((entry: Json) => entry.event_type)).toEqual(['connection_created']);
    });

    it('folders create (a project, then a folder in it) and list', async () => {
      made.project = await wkCli.call('folders.create', { body: { name: 'Orders' } });
      expect(made.project.is_project).toBe(true);
      made.folder = await wkCli.call('folders.create', { body: { name: 'Inbound', parent_id: made.project.id } });
      expect(made.folder).toMatchObject({ parent_id: made.project.id, project_id: made.project.project_id });
      const listed = await wkCli.call('folders.list', { query: { parent_id: made.project.id } });
      expect(listed.map((folder: Json) => folder.id)).toEqual([made.folder.id]);
    });

    it('connections create, list (by folder) and update', async () => {
      made.connection = await wkCli.call('connections.create', {
        body: { name: 'Salesforce prod', provider: 'salesforce', folder_id: made.folder.id },
      });
      const listed = await wkCli.call('connections.list', {
        query: { folder_id: made.folder.id, page: 1, per_page: 100 },
      });
      expect(listed.map((connection: Json) => connection.id)).toEqual([made.connection.id]);
      const renamed = await wkCli.call('connections.update', {
        params: { id: made.connection.id },
        body: { name: 'Salesforce production' },
      });
      expect(renamed).toMatchObject({
        id: made.connection.id,
        name: 'Salesforce production',
        application: 'salesforce',
      });
    });

    it('connectors list: the catalogue without applications, one connector with them', async () => {
      const all = await wkCli.call('connectors.list');
      expect(all.items.map((connector: Json) => connector.name)).toEqual(['salesforce', 'netsuite']);
      const one = await wkCli.call('connectors.list', { query: { applications: 'netsuite' } });
      expect(one.items).toEqual([
        expect.objectContaining({ name: 'netsuite', description: 'Orders, invoices and the ledger' }),
      ]);
    });

    it('recipes import: the fields flat, code and config as JSON text, folder_id a string; the trigger from the code', async () => {
      const created = await wkCli.call('recipes.import', {
        body: {
          name: 'Orders to NetSuite',
          description: 'One sales order per new order',
          code: JSON.stringify(CODE),
          config: JSON.stringify(CONFIG),
          folder_id: String(made.folder.id),
        },
      });
      made.recipe = await wkCli.call('recipes.get', { params: { id: created.id } });
      expect(made.recipe).toMatchObject({
        name: 'Orders to NetSuite',
        description: 'One sales order per new order',
        folder_id: made.folder.id,
        trigger_application: 'salesforce',
        running: false,
        active: false,
        version: 1,
      });
      expect(JSON.parse(made.recipe.code)).toEqual(CODE);
    });

    it('recipes update: the fields flat, without folder_id; the recipe reads back changed', async () => {
      const code = { ...CODE, input: { sobject_name: 'Opportunity' } };
      await wkCli.call('recipes.update', {
        params: { id: made.recipe.id },
        body: {
          name: 'Opportunities to NetSuite',
          description: 'Now opportunities',
          code: JSON.stringify(code),
          config: JSON.stringify(CONFIG),
        },
      });
      const read = await wkCli.call('recipes.get', { params: { id: made.recipe.id } });
      expect(read).toMatchObject({ name: 'Opportunities to NetSuite', description: 'Now opportunities', version: 2 });
      expect(JSON.parse(read.code)).toEqual(code);
    });

    it('recipes move: the exported recipe sent back flat with a new folder_id, as a string', async () => {
      const exported = await wkCli.call('recipes.export', { params: { id: made.recipe.id } });
      const { name, description, code, config, version } = exported;
      await wkCli.call('recipes.move', {
        params: { id: made.recipe.id },
        body: {
          name,
          description,
          code: typeof code === 'string' ? code : JSON.stringify(code),
          config: JSON.stringify(config),
          version,
          folder_id: String(made.project.id),
        },
      });
      const moved = await wkCli.call('recipes.get', { params: { id: made.recipe.id } });
      expect(moved).toMatchObject({ folder_id: made.project.id, name: 'Opportunities to NetSuite' });
    });

    it('recipes copy: a new recipe in the folder given as a string, its id in new_flow_id', async () => {
      const copied = await wkCli.call('recipes.copy', {
        params: { id: made.recipe.id },
        body: { folder_id: String(made.folder.id) },
      });
      expect(copied.success).toBe(true);
      expect(copied.new_flow_id).not.toBe(made.recipe.id);
      made.copy = await wkCli.call('recipes.get', { params: { id: copied.new_flow_id } });
      expect(made.copy).toMatchObject({
        name: 'Opportunities to NetSuite',
        folder_id: made.folder.id,
        code: made.recipe.code.replace('Order', 'Opportunity'),
        running: false,
      });
    });

    it('recipes update-connection, start, list by folder and state, versions and a comment', async () => {
      await wkCli.call('recipes.connect', {
        params: { id: made.recipe.id },
        body: { adapter_name: 'salesforce', connection_id: made.connection.id },
      });
      const connected = await wkCli.call('recipes.get', { params: { id: made.recipe.id } });
      expect(connected.config).toContainEqual(
        expect.objectContaining({ provider: 'salesforce', account_id: made.connection.id }),
      );
      await wkCli.call('recipes.start', { params: { id: made.recipe.id } });
      const folder = made.project.id;
      const running = await wkCli.call('recipes.list', {
        query: { folder_id: folder, active: true, page: 1, per_page: 100 },
      });
      expect(running.items.map((recipe: Json) => [recipe.id, recipe.active])).toEqual([[made.recipe.id, true]]);
      const stopped = await wkCli.call('recipes.list', { query: { folder_id: folder, active: false } });
      expect(stopped.items).toEqual([]);
      const versions = await wkCli.call('recipes.versions', {
        params: { id: made.recipe.id },
        query: { page: 1, per_page: 10 },
      });
      expect(versions.data.map((version: Json) => version.version_no).sort()).toEqual([1, 2, 3, 4]);
      const latest = defined(versions.data.find((version: Json) => version.version_no === 4));
      const version = await wkCli.call('recipes.version', { params: { id: made.recipe.id, vid: latest.id } });
      expect(version.id).toBe(latest.id);
      const commented = await wkCli.call('recipes.version_comment', {
        params: { id: made.recipe.id, vid: latest.id },
        body: { comment: 'Connected to production' },
      });
      expect(commented.comment).toBe('Connected to production');
      expect((await wkCli.call('recipes.version', { params: { id: made.recipe.id, vid: latest.id } })).comment).toBe(
        'Connected to production',
      );
    });

    it('recipes jobs (by status), a job, retry; recipes stop', async () => {
      const failed = await wkCli.call('recipes.jobs', {
        params: { id: 500 },
        query: { status: 'failed', per_page: 10 },
      });
      expect(failed.items.map((job: Json) => job.id)).toEqual(['j-2']);
      const job = await wkCli.call('recipes.job', { params: { id: 500, job_id: 'j-1' } });
      expect(job.lines[0].adapter_name).toBe('salesforce');
      const retried = await wkCli.call('recipes.repeat_jobs', {
        params: { id: 500 },
        body: { job_ids: ['j-2', 'j-404'] },
      });
      expect(retried.results.map((result: Json) => result.status)).toEqual(['enqueued', 'failed']);
      const all = await wkCli.call('recipes.jobs', { params: { id: 500 }, query: { per_page: 10 } });
      expect(all.items).toHaveLength(3);
      await wkCli.call('recipes.stop', { params: { id: made.recipe.id } });
      expect((await wkCli.call('recipes.get', { params: { id: made.recipe.id } })).running).toBe(false);
    });

    it('tags create, list (q), update, apply and remove, delete', async () => {
      const tag = await wkCli.call('tags.create', {
        body: { title: 'Finance', description: 'Money in', color: 'green' },
      });
      const listed = await wkCli.call('tags.list', { query: { q: 'fin', page: 1, per_page: 10 } });
      expect(listed.data.tags.map((each: Json) => each.handle)).toEqual([tag.handle]);
      expect((await wkCli.call('tags.list', { query: { q: 'nothing like it' } })).data.tags).toEqual([]);
      const updated = await wkCli.call('tags.update', {
        params: { handle: tag.handle },
        body: { description: 'Money out' },
      });
      expect(updated).toMatchObject({ title: 'Finance', description: 'Money out' });
      await wkCli.call('tags.assign', {
        body: { add_tags: [tag.handle], recipe_ids: [made.recipe.id], connection_ids: [made.connection.id] },
      });
      const tagged = await wkCli.read(`/recipes/${made.recipe.id}?includes[]=tags`);
      expect(tagged.body.tags).toEqual([tag.handle]);
      await wkCli.call('tags.assign', { body: { remove_tags: [tag.handle], recipe_ids: [made.recipe.id] } });
      expect((await wkCli.read(`/recipes/${made.recipe.id}?includes[]=tags`)).body.tags).toEqual([]);
      await wkCli.call('tags.delete', { params: { handle: tag.handle } });
      expect((await wkCli.call('tags.list')).data.tags).toEqual([]);
    });

    it('API collections create (project_id a string) and list; endpoints create, list, enable and disable', async () => {
      made.collection = await wkCli.call('api.collections.create', {
        body: { name: 'Orders API', project_id: String(made.project.project_id) },
      });
      expect(made.collection.project_id).toBe(made.project.project_id);
      const collections = await wkCli.call('api.collections.list', { query: { page: 1, per_page: 100 } });
      expect(collections.map((collection: Json) => collection.id)).toEqual([made.collection.id]);
      made.endpoint = await wkCli.call('api.endpoints.create', {
        params: { cid: made.collection.id },
        body: {
          name: 'Get order',
          method: 'GET',
          path: 'orders/:id',
          flow_id: made.recipe.id,
          description: 'Reads one order',
        },
      });
      expect(made.endpoint).toMatchObject({
        api_collection_id: made.collection.id,
        flow_id: made.recipe.id,
        description: 'Reads one order',
        url: `${made.collection.url.replace(/\/$/, '')}/orders/:id`,
        active: false,
      });
      const endpoints = await wkCli.call('api.endpoints.list', {
        query: { api_collection_id: made.collection.id, page: 1, per_page: 100 },
      });
      expect(endpoints.map((endpoint: Json) => endpoint.id)).toEqual([made.endpoint.id]);
      await wkCli.call('api.endpoints.enable', { params: { id: made.endpoint.id } });
      const enabled = await wkCli.call('api.endpoints.list', { query: { api_collection_id: made.collection.id } });
      expect(enabled[0].active).toBe(true);
      await wkCli.call('api.endpoints.disable', { params: { id: made.endpoint.id } });
    });

    it('API clients create (collection ids as strings), keys create, get and list with their counts, key refresh', async () => {
      const created = await wkCli.call('api.clients.create', {
        body: { name: 'Partner portal', api_collection_ids: [String(made.collection.id)], auth_type: 'token' },
      });
      made.client = created.data;
      expect(made.client).toMatchObject({
        api_collections: [{ id: made.collection.id, name: 'Orders API' }],
        active_api_keys_count: 0,
        total_api_keys_count: 0,
        api_keys: [],
        mtls_enabled: false,
      });
      const key = await wkCli.call('api.clients.create_key', {
        params: { id: made.client.id },
        body: { name: 'partner', active: true },
      });
      expect(key.data.ip_deny_list).toEqual([]);
      const read = await wkCli.call('api.clients.get', { params: { id: made.client.id } });
      expect(read.data).toMatchObject({ active_api_keys_count: 1, total_api_keys_count: 1 });
      expect(read.data.api_keys.map((each: Json) => [each.id, each.auth_token])).toEqual([[key.data.id, '********']]);
      const listed = await wkCli.call('api.clients.list', { query: { page: 1, per_page: 100 } });
      expect(listed.data.find((client: Json) => client.id === made.client.id)?.total_api_keys_count).toBe(1);
      const refreshed = await wkCli.call('api.clients.refresh_key', {
        params: { id: made.client.id, kid: key.data.id },
      });
      expect(refreshed.data.auth_token).not.toBe(key.data.auth_token);
    });

    it('skills create from a recipe: its name, description, folder, project and connectors; list and get', async () => {
      const created = await wkCli.call('skills.create', { body: { recipe_id: made.recipe.id } });
      made.skill = created.data;
      expect(made.skill).toMatchObject({
        name: 'Opportunities to NetSuite',
        description: 'Now opportunities',
        provider_id: made.recipe.id,
        provider_type: 'recipe',
        folder_id: made.project.id,
        project_id: made.project.project_id,
        running: false,
        genies_count: 0,
        applications: ['salesforce', 'netsuite'],
      });
      const listed = await wkCli.call('skills.list', { query: { page: 1, per_page: 100 } });
      expect(listed.data.map((skill: Json) => skill.id)).toEqual([made.skill.id]);
      await wkCli.call('recipes.start', { params: { id: made.recipe.id } });
      expect((await wkCli.call('skills.get', { params: { id: made.skill.id } })).data.running).toBe(true);
      await wkCli.call('recipes.stop', { params: { id: made.recipe.id } });
    });

    it('MCP user groups list; a server created on an API collection, its endpoints its tools; list, get, update', async () => {
      const groups = await wkCli.call('mcp.user_groups.list', { query: { page: 1, per_page: 100 } });
      expect(groups.data.map((group: Json) => group.id)).toEqual(['ug-support', 'ug-sales']);
      const created = await wkCli.call('mcp.servers.create', {
        body: {
          name: 'Orders assistant',
          folder_id: made.folder.id,
          description: 'Orders for AI agents',
          asset_id: made.collection.id,
        },
      });
      made.server = created.data;
      expect(made.server).toMatchObject({
        folder_id: made.folder.id,
        project_id: made.project.project_id,
        folders: [{ id: made.folder.id, name: 'Inbound' }],
        api_collection: { id: made.collection.id, name: 'Orders API' },
        tools_count: 1,
        idp_user_group_ids: [],
      });
      expect(new URL(made.server.mcp_url).origin).toBe(wkCli.url);
      const query = {
        project_id: made.project.project_id,
        folder_id: made.folder.id,
        authentication_method: made.server.authentication_method,
        page: 1,
        per_page: 10,
      };
      const listed = await wkCli.call('mcp.servers.list', { query });
      expect(listed.data.map((server: Json) => server.id)).toEqual([made.server.id]);
      const updated = await wkCli.call('mcp.servers.update', {
        params: { handle: made.server.id },
        body: { description: 'Orders and returns' },
      });
      expect(updated.data.description).toBe('Orders and returns');
      expect((await wkCli.call('mcp.servers.get', { params: { handle: made.server.id } })).data.description).toBe(
        'Orders and returns',
      );
    });

    it('MCP tools list, add a recipe, update, remove; the server answers wk mcp test at its mcp_url', async () => {
      const handle = made.server.id;
      const before = await wkCli.call('mcp.tools.list', { params: { handle }, query: { page: 1, per_page: 100 } });
      expect(before.items.map((tool: Json) => tool.flow_id)).toEqual([made.recipe.id]);
      await wkCli.call('mcp.tools.assign', {
        params: { handle },
        body: { tools: [{ trigger_application: made.copy.trigger_application, id: String(made.copy.id) }] },
      });
      const after = await wkCli.call('mcp.tools.list', { params: { handle } });
      const added = defined(
        after.items.find((tool: Json) => tool.flow_id === made.copy.id),
        'the added tool',
      );
      expect(added).toMatchObject({
        name: made.copy.name,
        trigger_application: 'salesforce',
        action_applications: ['netsuite'],
        active: false,
      });
      expect((await wkCli.call('mcp.servers.get', { params: { handle } })).data.tools_count).toBe(2);
      const updated = await wkCli.call('mcp.tools.update', {
        params: { handle, tool_id: added.id },
        body: { description: 'Copies an opportunity' },
      });
      expect(updated).toMatchObject({ id: added.id, description: 'Copies an opportunity' });
      const initialized = await mcpPost(made.server.mcp_url, 'initialize', 1);
      expect(initialized.body.result.serverInfo.name).toBe('Orders assistant');
      expect((await mcpPost(made.server.mcp_url, 'notifications/initialized')).status).toBe(202);
      const tools = await mcpPost(made.server.mcp_url, 'tools/list', 2);
      expect(tools.body.result.tools.map((tool: Json) => tool.description)).toContain('Copies an opportunity');
      await wkCli.call('mcp.tools.delete', { params: { handle, tool_id: added.id } });
      expect((await wkCli.call('mcp.tools.list', { params: { handle } })).items).toHaveLength(1);
    });

    it('MCP policies read before a first set, set and read back; user groups assigned and removed', async () => {
      const handle = made.server.id;
      const first = await wkCli.call('mcp.policies.get', { params: { handle } });
      expect(first).toMatchObject({ mcp_server_id: handle, rate_limits: null, ip_allow_list: [] });
      const policy = { rate_limits: { limit: 100, interval: 'minute' }, ip_allow_list: ['10.0.0.0/8'] };
      const set = await wkCli.call('mcp.policies.set', { params: { handle }, body: { mcp_server_policy: policy } });
      expect(set).toMatchObject({ ...policy, id: first.id, mcp_server_id: handle });
      expect(await wkCli.call('mcp.policies.get', { params: { handle } })).toMatchObject(policy);
      await wkCli.call('mcp.user_groups.assign', {
        params: { handle },
        body: { idp_user_group_ids: ['ug-support', 'ug-sales'] },
      });
      const assigned = await wkCli.call('mcp.servers.get', { params: { handle } });
      expect(assigned.data.idp_user_group_ids).toEqual(['ug-support', 'ug-sales']);
      await wkCli.call('mcp.user_groups.remove', { params: { handle }, body: { idp_user_group_ids: ['ug-support'] } });
      expect((await wkCli.call('mcp.servers.get', { params: { handle } })).data.idp_user_group_ids).toEqual([
        'ug-sales',
      ]);
    });

    it('MCP token renew: a new mcp_url that works, the old one refused', async () => {
      const renewed = await wkCli.call('mcp.servers.token_renew', { params: { handle: made.server.id } });
      expect(renewed.data.mcp_url).not.toBe(made.server.mcp_url);
      expect((await wkCli.call('mcp.servers.get', { params: { handle: made.server.id } })).data.mcp_url).toBe(
        renewed.data.mcp_url,
      );
      expect((await mcpPost(renewed.data.mcp_url, 'initialize', 1)).status).toBe(200);
      const old = await mcpPost(made.server.mcp_url, 'initialize', 1);
      expect(old.status).toBe(401);
      expect(old.body.message).toMatch(/token/);
    });

    it('pull and push: export manifest, package export, status, download, import', async () => {
      const manifest = await wkCli.call('packages.export_manifest', {
        body: {
          export_manifest: { name: 'wk-export-1790000000', folder_id: made.project.id, auto_generate_assets: true },
        },
      });
      const exported = await wkCli.call('packages.export', { params: { manifest_id: manifest.result.id } });
      const status = await wkCli.call('packages.status', { params: { id: exported.id } });
      expect(status.status).toBe('completed');
      const zip = await wkCli.call('packages.download', { params: { id: exported.id } });
      const imported = await wkCli.call('packages.import', {
        params: { folder_id: made.project.id },
        query: { restart_recipes: false },
        zip,
      });
      expect((await wkCli.call('packages.status', { params: { id: imported.id } })).status).toBe('completed');
    });

    it('deletes: the API client, the MCP server, the API collection with its endpoints, a connection, recipes, a folder, the project', async () => {
      await wkCli.call('api.clients.delete', { params: { id: made.client.id } });
      expect((await wkCli.read(`/v2/api_clients/${made.client.id}`)).status).toBe(404);
      await wkCli.call('mcp.servers.delete', { params: { handle: made.server.id } });
      expect((await wkCli.read(`/mcp/mcp_servers/${made.server.id}`)).status).toBe(404);
      await wkCli.call('api.collections.delete', { params: { id: made.collection.id } });
      expect(await wkCli.call('api.collections.list')).toEqual([]);
      expect(await wkCli.call('api.endpoints.list', { query: { api_collection_id: made.collection.id } })).toEqual([]);
      await wkCli.call('connections.disconnect', { params: { id: made.connection.id } });
      await wkCli.call('connections.delete', { params: { id: made.connection.id } });
      expect(await wkCli.call('connections.list', { query: { folder_id: made.folder.id } })).toEqual([]);
      await wkCli.call('recipes.delete', { params: { id: made.copy.id } });
      expect((await wkCli.read(`/recipes/${made.copy.id}`)).status).toBe(404);
      await wkCli.call('folders.delete', { params: { id: made.folder.id } });
      expect(await wkCli.call('folders.list', { query: { parent_id: made.project.id } })).toEqual([]);
      await wkCli.call('projects.delete', { params: { project_id: made.project.project_id } });
      expect((await wkCli.read(`/recipes/${made.recipe.id}`)).status).toBe(404);
    });

    it('drove every call of wk-calls.json', () => {
      expect(wk.calls.map((call) => call.id).filter((id) => !wkCli.covered.has(id))).toEqual([]);
    });
  });
}
