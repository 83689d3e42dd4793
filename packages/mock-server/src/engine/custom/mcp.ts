// MCP servers, as the platform's CLI drives them: a server made on an API collection (`asset_id`)
// gets the collection's endpoints as its tools, `assign_tools` adds recipes as tools, and each
// server has a token (hidden `$token`) that its `mcp_url` carries and `token_renew` replaces. The URL
// names the emulator's MCP endpoint for the server (control/mcp.ts), which answers AI clients from
// the same state.

import type { DerivationHookName } from '../../generated/handlers.js';
import { RESOURCE_TYPES } from '../../generated/resource-types.js';
import type { JsonObject } from '../../store/resource-store.js';
import type { HandlerRegistry, Workspace } from '../contract.js';
import type { DerivationHook } from '../derived.js';
import { missingReference } from '../errors.js';
import type { EngineOperation } from '../vocabulary.js';
import { actingOn } from './projects.js';
import { hostOf } from './sdkfiles.js';
import { randomSecret } from './secrets.js';

const API_COLLECTION = RESOURCE_TYPES.api_collection;
const API_ENDPOINT = RESOURCE_TYPES.api_endpoint;
const MCP_SERVER_TOOL = RESOURCE_TYPES.mcp_server_tool;
const RECIPE = RESOURCE_TYPES.recipe;

/** Where AI clients reach the server: the emulator's MCP endpoint, the server's token in the path, its tenant in the query. */
const mcpUrl = ({ urls }: Workspace, host: string | undefined, handle: unknown, token: unknown) =>
  `http://${hostOf(host)}/_emulator/mcp/${handle}/${token}?${urls.query}`;

/**
 * How many of a server's renewed tokens it remembers: a client still configured with one of them is
 * told its token was renewed (401) rather than that there is no server (404, as for any other token).
 */
const RENEWED_TOKENS_KEPT = 10;

/** The server's tokens before its current one, latest last. */
export const renewedTokens = (server: JsonObject): unknown[] =>
  Array.isArray(server.$renewed_tokens) ? server.$renewed_tokens : [];

/** Adds a tool per recipe (`flow_id`) the server does not have yet, named as given. */
async function addTools(
  workspace: Workspace,
  op: EngineOperation,
  handle: string,
  tools: { flowId: number; name: unknown }[],
): Promise<void> {
  const server = await workspace.store.get(op.type.name, handle);
  if (!server) throw new Error(`No MCP server ${handle}`);
  const toolOp = actingOn(workspace, op, MCP_SERVER_TOOL);
  const held = new Set((await workspace.store.list(MCP_SERVER_TOOL, handle)).map((tool) => tool.value.flow_id));
  for (const { flowId, name } of tools) {
    if (held.has(flowId)) continue;
    held.add(flowId);
    await workspace.create(toolOp, { flow_id: flowId, name, description: null }, server);
  }
}

/** The recipes behind the endpoints of an API collection, each named as its endpoint. */
async function endpointTools(workspace: Workspace, collectionId: unknown) {
  const endpoints = (await workspace.store.list(API_ENDPOINT)).filter(
    (endpoint) => String(endpoint.value.api_collection_id) === String(collectionId),
  );
  return endpoints.map(({ value }) => ({ flowId: Number(value.flow_id), name: value.name }));
}

export const mcpHandlers = {
  /**
   * `mcp_create_server`: the server with its token; with `asset_id`, built on that API collection
   * (422 when there is none), whose endpoints become its tools.
   */
  'mcp_servers.create': async (workspace, op, { body }) => {
    const { asset_id: assetId, ...fields } = body;
    if (assetId !== undefined && !(await workspace.store.get(API_COLLECTION, String(assetId))))
      throw missingReference(op.operation, 'asset_id', API_COLLECTION, assetId);
    const onCollection = assetId !== undefined;
    const server = await workspace.create(
      op,
      {
        ...fields,
        asset_type: onCollection ? 'api_collection' : 'custom',
        $token: randomSecret(workspace),
        $api_collection_id: onCollection ? Number(assetId) : null,
      },
      undefined,
    );
    if (onCollection) await addTools(workspace, op, String(server.id), await endpointTools(workspace, assetId));
    const stored = await workspace.store.get(op.type.name, String(server.id));
    return { item: stored?.value ?? server };
  },

  /**
   * `mcp_assign_server_tools`: each recipe named (its ID, as a string) becomes a tool of the server,
   * unless it is one already; a recipe that does not exist is a 422 before anything changes.
   */
  'mcp_servers.assign_tools': async (workspace, op, { params, body }) => {
    const server = await workspace.itemOf(op, params);
    const sent = (body as { tools: { id: string }[] }).tools;
    const tools: { flowId: number; name: unknown }[] = [];
    for (const [index, { id }] of sent.entries()) {
      const recipe = await workspace.store.get(RECIPE, String(id));
      if (!recipe) throw missingReference(op.operation, `tools/${index}/id`, RECIPE, id);
      tools.push({ flowId: Number(recipe.id), name: recipe.value.name });
    }
    await addTools(workspace, op, server.id, tools);
    return {};
  },

  /** `mcp_renew_server_token`: a new token, so a new `mcp_url`; the old URL is refused from now on. */
  'mcp_servers.renew_token': async (workspace, op, { params }) => {
    const server = await workspace.itemOf(op, params);
    const renewed = [...renewedTokens(server.value), server.value.$token].slice(-RENEWED_TOKENS_KEPT);
    return { item: await workspace.update(op, server, { $token: randomSecret(workspace), $renewed_tokens: renewed }) };
  },
} satisfies Partial<HandlerRegistry>;

export const mcpHooks = {
  /** `mcp_url`: the emulator's MCP endpoint for the server, with its current token. */
  'mcp_servers.url': async (workspace, server, { host }) => mcpUrl(workspace, host, server.id, server.$token),

  /** `api_collection`: the collection the server was made on (null for none, or once it is deleted). */
  'mcp_servers.api_collection': async (workspace, server) => {
    const id = server.$api_collection_id;
    const collection =
      id === null || id === undefined ? undefined : await workspace.store.get(API_COLLECTION, String(id));
    if (!collection) return null;
    const { name, created_at, updated_at } = collection.value;
    const proxy = collection.value.proxy_connection_id;
    const type = proxy === undefined || proxy === null ? 'recipe' : 'proxy';
    return { id: Number(collection.id), type, name, created_at, updated_at };
  },
} satisfies Partial<Record<DerivationHookName, DerivationHook>>;
