// The URLs the emulator gives out to be opened without credentials (a connection's OAuth URL, an MCP
// server's mcp_url) serve the tenant that answered them and only it (issue 42): in two workspaces, one
// with prod, each tenant's connection 1 and server mcps-1 side by side, a URL opened as given reaches
// its own, and one whose workspace or environment was changed is the same 404 as an unknown one. The
// emulator has an admin token, which none of these URLs needs.
import { describe, expect, it } from 'vitest';
import type { MockServer } from '../../src/index.js';
import { unknownUrl } from '../../src/tenants/url-scope.js';
import { storages } from '../support/control/storages.js';
import { type Run, session } from '../support/helpers.js';
import { makeWorkspace } from '../support/tenants.js';

const ADMIN_TOKEN = 'scoped-urls-admin-token';
const UNKNOWN_URL = unknownUrl().message;

/** Workspace 1 (the emulator as started), workspace A's dev, workspace B's dev and prod: one `run` each. */
async function fourTenants(options = {}): Promise<{ server: MockServer; tenants: Record<string, Run> }> {
  const { server, run } = await session({ adminToken: ADMIN_TOKEN, ...options });
  const [a] = await makeWorkspace(server, 'A');
  const [bDev, bProd] = await makeWorkspace(server, 'B', ['prod']);
  const runs = [a, bDev, bProd].map((tenant) => tenant?.run as Run);
  const [aDev, bDevRun, bProdRun] = runs as [Run, Run, Run];
  return { server, tenants: { one: run, aDev, bDev: bDevRun, bProd: bProdRun } };
}

/** A folder and a connection named after the tenant: connection 1 in each. */
async function connectionIn(run: Run, name: string): Promise<{ id: number; url: string; folderId: number }> {
  const folder = await run('create_folder', { body: { name } });
  const made = await run('create_connection', { body: { name, provider: 'salesforce', folder_id: folder.body.id } });
  expect(made.status).toBe(200);
  const { url } = (await run('get_connection_oauth_url', { params: { connection_id: made.body.id } })).body.data;
  return { id: made.body.id, url, folderId: folder.body.id };
}

async function statusOf(run: Run, id: number): Promise<string | null> {
  const listed = await run('list_connections');
  return listed.body.find((connection) => connection.id === id)?.authorization_status ?? null;
}

/** The URL with query parameters changed, as a tampering client would. */
function tampered(url: string, changes: Record<string, string>): string {
  const changed = new URL(url);
  for (const [name, value] of Object.entries(changes)) changed.searchParams.set(name, value);
  return changed.href;
}

/** Each other tenant, and none, named in the URL of B's prod: every one has the item the URL names. */
const tamperings = (aWorkspace: string): Record<string, string>[] => [
  { workspace: aWorkspace, environment: 'dev' },
  { workspace: aWorkspace },
  { environment: 'dev' },
  { workspace: '1', environment: 'dev' },
  { workspace: '999' },
];

/** An MCP answer as the tests read it: a JSON-RPC result, or the emulator's error. */
interface McpAnswer {
  status: number;
  body: { result?: { tools: { title: string }[] }; message?: string };
}

async function mcpPost(url: string, body: object): Promise<McpAnswer> {
  const answer = await fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ jsonrpc: '2.0', ...body }),
  });
  return { status: answer.status, body: await answer.json() };
}

/** An MCP server whose one tool is a recipe named `tool`: mcps-1 in each tenant. */
async function mcpServerIn(run: Run, tool: string): Promise<string> {
  const folder = await run('create_folder', { body: { name: `${tool} folder` } });
  const recipe = await run('create_recipe', {
    body: { recipe: { name: tool, code: '{}', folder_id: folder.body.id } },
  });
  const made = await run('mcp_create_server', { body: { name: `${tool} server`, folder_id: folder.body.id } });
  const handle = made.body.data.id;
  const tools = [{ trigger_application: 'workato_api_platform', id: String(recipe.body.id) }];
  expect((await run('mcp_assign_server_tools', { params: { handle }, body: { tools } })).status).toBe(200);
  return made.body.data.mcp_url;
}

describe('URLs given out to be opened without credentials, in their own tenant only', () => {
  it('an OAuth URL authorizes its own connection only; a tampered workspace or environment is a 404', async () => {
    const { tenants } = await fourTenants();
    const made = Object.fromEntries(
      await Promise.all(Object.entries(tenants).map(async ([name, run]) => [name, await connectionIn(run, name)])),
    ) as Record<string, { id: number; url: string }>;
    expect(new Set(Object.values(made).map(({ id }) => id))).toEqual(new Set([made.one?.id]));
    const bProd = made.bProd as { id: number; url: string };
    const aWorkspace = new URL(String(made.aDev?.url)).searchParams.get('workspace') ?? '';
    for (const changes of tamperings(aWorkspace)) {
      const url = tampered(bProd.url, changes);
      const answer = await fetch(url);
      expect([answer.status, (await answer.json()).message], url).toEqual([404, UNKNOWN_URL]);
    }
    for (const [name, run] of Object.entries(tenants)) expect(await statusOf(run, bProd.id), name).toBeNull();

    expect((await fetch(bProd.url)).status).toBe(200);
    const statuses = await Promise.all(Object.values(tenants).map((run) => statusOf(run, bProd.id)));
    expect(statuses).toEqual([null, null, null, 'success']);
    // Workspace 1's URL, opened without the admin token the emulator has, authorizes workspace 1's.
    expect((await fetch(String(made.one?.url))).status).toBe(200);
    expect(await statusOf(tenants.one as Run, bProd.id)).toBe('success');
    expect(await statusOf(tenants.aDev as Run, bProd.id)).toBeNull();
  });

  it("a runtime user connection's OAuth URL authorizes it in its tenant", async () => {
    const { tenants } = await fourTenants();
    const [bProd, bDev] = [tenants.bProd as Run, tenants.bDev as Run];
    const [, parent] = await Promise.all([connectionIn(bDev, 'parent'), connectionIn(bProd, 'parent')]);
    const child = async (run: Run) => {
      const body = { parent_id: parent.id, folder_id: parent.folderId, external_id: 'lucy@example.com' };
      return (await run('create_runtime_user_connection', { body })).body.data;
    };
    // The same ids in dev, so that the URL with `dev` names a child there.
    const [inProd, inDev] = [await child(bProd), await child(bDev)];
    expect(inDev.id).toBe(inProd.id);
    expect((await fetch(tampered(inProd.url, { environment: 'dev' }))).status).toBe(404);
    expect((await fetch(inProd.url)).status).toBe(200);
    const listed = async (run: Run) => {
      const all = await run('list_connections', { query: { include_runtime_connections: 'true' } });
      return all.body.find((connection) => connection.id === inProd.id)?.authorization_status;
    };
    expect([await listed(bProd), await listed(bDev)]).toEqual(['success', null]);
  });

  it("an MCP URL lists its own server's tools only; a tampered workspace or environment is a 404", async () => {
    const { tenants } = await fourTenants();
    const urls = Object.fromEntries(
      await Promise.all(Object.entries(tenants).map(async ([name, run]) => [name, await mcpServerIn(run, name)])),
    ) as Record<string, string>;
    expect(new Set(Object.values(urls).map((url) => new URL(url).pathname.split('/')[3]))).toEqual(new Set(['mcps-1']));
    for (const [name, url] of Object.entries(urls)) {
      const listed = await mcpPost(url, { id: 1, method: 'tools/list' });
      expect(
        listed.body.result?.tools.map((tool) => tool.title),
        name,
      ).toEqual([name]);
    }
    const bProd = urls.bProd as string;
    const aWorkspace = new URL(String(urls.aDev)).searchParams.get('workspace') ?? '';
    for (const changes of tamperings(aWorkspace)) {
      const url = tampered(bProd, changes);
      const answer = await mcpPost(url, { id: 1, method: 'tools/list' });
      expect([answer.status, answer.body.message], url).toEqual([404, UNKNOWN_URL]);
    }
  });

  it('an OAuth URL given before a restart opens after it (data dir)', async () => {
    const [, dataDir] = storages;
    const options = await dataDir?.options();
    const first = await fourTenants(options);
    const { id, url } = await connectionIn(first.tenants.bProd as Run, 'kept');
    await first.server.close();
    // The restarted emulator serves the workspaces on record, on another port.
    const { server } = await session({ adminToken: ADMIN_TOKEN, ...options });
    const opened = await fetch(url.replace(new URL(url).origin, server.url));
    expect([opened.status, await opened.text()]).toEqual([200, expect.stringContaining(`kept (${id})`)]);
  });
});
