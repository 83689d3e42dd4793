// POST /_emulator/mcp/{handle}/{token}: an MCP server of the management API as AI clients reach it at
// its `mcp_url`, speaking the Model Context Protocol's JSON-RPC over HTTP (one message a POST, answered
// as JSON). Its tools are the server's, read through the management operations, so they are what
// `mcp_list_server_tools` lists; calling one is an error result, as the emulator runs no recipes.

import type { components } from '@platform-api/spec/types/emulator';
import { renewedTokens } from '../engine/custom/mcp.js';
import type { ResourceEngine } from '../engine/engine.js';
import { Unauthorized } from '../errors.js';
import { jsonReply, type Reply } from '../http/replies.js';
import { type EmulatorEndpoints, endpoint } from '../pipeline/endpoint.js';
import type { JsonObject } from '../store/resource-store.js';
import { unknownUrl } from '../tenants/url-scope.js';

type McpRequest = components['schemas']['McpRequest'];

/** The protocol versions a client may ask for; another gets the latest. */
const PROTOCOL_VERSIONS = ['2025-06-18', '2025-03-26', '2024-11-05'];
const ACCEPTED: Reply = Object.freeze({ status: 202, json: '' });
/** JSON-RPC's codes: the method does not exist; its parameters are invalid. */
const METHOD_NOT_FOUND = -32601;
const INVALID_PARAMS = -32602;

interface Tool {
  name: string;
  title: string;
  description: string;
  flowId: unknown;
}

export function mcpEndpoints(): Pick<EmulatorEndpoints, 'mcp_message'> {
  return {
    mcp_message: endpoint('mcp_message', {
      body: { kind: 'json' },
      // The server and its token are checked before the body is read: a 404 or 401 comes before a 400.
      precheck: ({ tenant, params }) => serverOf(tenant.engine, params.handle, params.token),
      async handle({ tenant, params, body: message }, server) {
        if (message.id === undefined) return ACCEPTED;
        const answer = (body: { result: JsonObject } | { error: { code: number; message: string } }) =>
          jsonReply(200, { jsonrpc: '2.0', id: message.id, ...body });
        switch (message.method) {
          case 'initialize':
            return answer({ result: initialized(server, message.params) });
          case 'ping':
            return answer({ result: {} });
          case 'tools/list': {
            const tools = await toolsOf(tenant.engine, params.handle);
            const listed = tools.map(({ name, title, description }) => ({ name, title, description, inputSchema }));
            return answer({ result: { tools: listed } });
          }
          case 'tools/call': {
            const name = message.params?.name;
            const tool = (await toolsOf(tenant.engine, params.handle)).find((each) => each.name === name);
            if (!tool) return answer({ error: { code: INVALID_PARAMS, message: `Unknown tool: ${String(name)}` } });
            return answer({ result: notRun(tool) });
          }
          default:
            return answer({ error: { code: METHOD_NOT_FOUND, message: `Method not found: ${message.method}` } });
        }
      },
    }),
  };
}

/** Every tool takes an object: the emulator does not know the inputs of the recipes behind them. */
const inputSchema = { type: 'object', additionalProperties: true };

/**
 * The server the path names, if its token is the current one: a token it had before (renewed) is a
 * 401; no server, or any other token (another tenant's server of that handle), the unknown URL's 404.
 */
async function serverOf(engine: ResourceEngine, handle: string, token: string): Promise<JsonObject> {
  const server = (await engine.store.get('mcp_server', handle))?.value;
  if (server?.$token === token) return server;
  if (server && renewedTokens(server).includes(token))
    throw new Unauthorized(
      'INVALID_TOKEN',
      `The token of MCP server ${handle} is not this one; it may have been renewed`,
    );
  throw unknownUrl();
}

function initialized(server: JsonObject, params: McpRequest['params']): JsonObject {
  const asked = params?.protocolVersion;
  const protocolVersion = PROTOCOL_VERSIONS.find((version) => version === asked) ?? PROTOCOL_VERSIONS[0];
  const description = typeof server.description === 'string' ? server.description : undefined;
  return {
    protocolVersion,
    capabilities: { tools: { listChanged: false } },
    serverInfo: { name: server.name, version: '1.0.0' },
    ...(description ? { instructions: description } : {}),
  };
}

/** The server's tools as the management API lists them (derived fields included), page by page. */
async function toolsOf(engine: ResourceEngine, handle: string): Promise<Tool[]> {
  const tools: JsonObject[] = [];
  for (let page = 1; ; page++) {
    const answer = await engine.handle('mcp_list_server_tools', {
      params: { mcp_server_handle: handle, page, per_page: 100 },
      body: undefined,
    });
    const { items, count } = answer.body as { items: JsonObject[]; count: number };
    tools.push(...items);
    if (items.length === 0 || tools.length >= count) break;
  }
  const names = new Set<string>();
  return tools.map((tool) => {
    const name = uniqueName(names, String(tool.name), tool.id);
    const description = String(tool.description ?? tool.original_description ?? tool.name);
    return { name, title: String(tool.name), description, flowId: tool.flow_id };
  });
}

/** A tool's name as MCP wants it (letters, digits, `_` and `-`, at most 64), unique on the server. */
function uniqueName(taken: Set<string>, name: string, id: unknown): string {
  const slug =
    name
      .toLowerCase()
      .replace(/[^a-z0-9_-]+/g, '_')
      .replace(/^_+|_+$/g, '')
      .slice(0, 48) || 'tool';
  const unique = taken.has(slug) ? `${slug}_${id}` : slug;
  taken.add(unique);
  return unique;
}

function notRun(tool: Tool): JsonObject {
  const text = `The local emulator does not run recipes: ${tool.title} (recipe ${tool.flowId}) was not called.`;
  return { content: [{ type: 'text', text }], isError: true };
}
