// POST /_emulator/mcp/{handle}/{token}, the address an MCP server's `mcp_url` gives: the Model Context
// Protocol over JSON-RPC, from the server's state (its name, its tools as the management API lists
// them), its token checked, every answer held to spec/emulator.
import { describe, expect, it } from 'vitest';
import type { MockServer } from '../../src/index.js';
import { control, emulatorErrorOf } from '../support/control/emulator-api.js';
import { type Run, session } from '../support/helpers.js';

const SEED = {
  version: 1,
  resources: {
    folder: [{ id: 10, name: 'Support', parent_id: null }],
    recipe: [
      { id: 20, name: 'Order status', description: 'Looks an order up', folder_id: 10, code: '{}' },
      { id: 21, name: 'Order status', description: 'The same, for returns', folder_id: 10, code: '{}' },
    ],
  },
};

/** A server with two tools of one name, and the parts of its mcp_url. */
async function serverWithTools(): Promise<{ server: MockServer; run: Run; handle: string; token: string }> {
  const { server, run } = await session({ seed: SEED });
  const created = await run('mcp_create_server', {
    body: { name: 'Support desk', folder_id: 10, description: 'For agents' },
  });
  const handle = created.body.data.id;
  const tools = [
    { trigger_application: 'workato_api_platform', id: '20' },
    { trigger_application: 'workato_api_platform', id: '21' },
  ];
  expect((await run('mcp_assign_server_tools', { params: { handle }, body: { tools } })).status).toBe(200);
  const url = new URL(created.body.data.mcp_url);
  expect(url.origin).toBe(server.url);
  const token = url.pathname.split('/').at(-1) ?? '';
  expect(url.pathname).toBe(`/_emulator/mcp/${handle}/${token}`);
  return { server, run, handle, token };
}

const message = (server: MockServer, handle: string, token: string, body: object) =>
  control(server, 'mcp_message', { params: { handle, token }, body: { jsonrpc: '2.0', ...body } });

describe('an MCP server at its mcp_url', () => {
  it("initializes with its name, lists its tools (unique names, their recipes' descriptions), answers ping", async () => {
    const { server, handle, token } = await serverWithTools();
    const init = await message(server, handle, token, {
      id: 1,
      method: 'initialize',
      params: { protocolVersion: '2025-03-26' },
    });
    expect(init.body).toMatchObject({
      id: 1,
      result: { protocolVersion: '2025-03-26', serverInfo: { name: 'Support desk' }, instructions: 'For agents' },
    });
    const newer = await message(server, handle, token, {
      id: 2,
      method: 'initialize',
      params: { protocolVersion: '2099-01-01' },
    });
    expect(newer.body?.result?.protocolVersion).toBe('2025-06-18');
    expect((await message(server, handle, token, { method: 'notifications/initialized' })).status).toBe(202);
    const listed = await message(server, handle, token, { id: 'list', method: 'tools/list' });
    const tools = (listed.body?.result?.tools ?? []) as { name: string; title: string; description: string }[];
    expect(tools.map(({ name, title, description }) => [name, title, description])).toEqual([
      ['order_status', 'Order status', 'Looks an order up'],
      [expect.stringMatching(/^order_status_\d+$/), 'Order status', 'The same, for returns'],
    ]);
    expect((await message(server, handle, token, { id: 3, method: 'ping' })).body).toEqual({
      jsonrpc: '2.0',
      id: 3,
      result: {},
    });
  });

  it('answers a call with an error result, an unknown tool or method with a JSON-RPC error', async () => {
    const { server, handle, token } = await serverWithTools();
    const called = await message(server, handle, token, {
      id: 1,
      method: 'tools/call',
      params: { name: 'order_status', arguments: {} },
    });
    expect(called.body?.result).toMatchObject({
      isError: true,
      content: [{ type: 'text', text: expect.stringMatching(/does not run recipes/) }],
    });
    const unknownTool = await message(server, handle, token, { id: 2, method: 'tools/call', params: { name: 'nope' } });
    expect(unknownTool.body?.error?.code).toBe(-32602);
    const unknownMethod = await message(server, handle, token, { id: 3, method: 'resources/list' });
    expect(unknownMethod.body?.error?.code).toBe(-32601);
  });

  it('refuses the token a renewal replaced (401), another token or an unknown server (404) and a body that is no JSON-RPC message (400)', async () => {
    const { server, run, handle, token } = await serverWithTools();
    await run('mcp_renew_server_token', { params: { handle } });
    const old = await message(server, handle, token, { id: 1, method: 'ping' });
    expect([old.status, emulatorErrorOf(old).message]).toEqual([401, expect.stringMatching(/renewed/)]);
    const fresh =
      new URL((await run('mcp_get_server', { params: { handle } })).body.data.mcp_url).pathname.split('/').at(-1) ?? '';
    expect((await message(server, handle, fresh, { id: 1, method: 'ping' })).status).toBe(200);
    expect((await message(server, 'mcps-404', fresh, { id: 1, method: 'ping' })).status).toBe(404);
    // A token the server never had is no renewed one: the 404 of a URL the emulator did not give.
    const never = await message(server, handle, 'f'.repeat(32), { id: 1, method: 'ping' });
    expect([never.status, emulatorErrorOf(never).message]).toEqual([404, expect.stringMatching(/^Nothing answers/)]);
    expect((await control(server, 'mcp_message', { params: { handle, token: fresh }, body: { id: 1 } })).status).toBe(
      400,
    );
    await run('mcp_delete_server', { params: { handle } });
    expect((await message(server, handle, fresh, { id: 1, method: 'ping' })).status).toBe(404);
  });
});
