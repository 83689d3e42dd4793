// API collections created from an OpenAPI document: one endpoint, and a recipe that serves it, per path
// and method of the document; and endpoints added to a collection one by one.

import type { JsonObject } from '../../store/resource-store.js';
import type { HandlerRegistry, Workspace } from '../contract.js';
import { invalidFields, missingReference, notFound } from '../errors.js';
import { isObject } from '../schema.js';
import type { EngineOperation } from '../vocabulary.js';
import { actingOn, homeFolder } from './projects.js';

const METHODS = ['get', 'put', 'post', 'delete', 'options', 'head', 'patch', 'trace'];

interface DocumentOperation {
  method: string;
  path: string;
  name: string;
}

/** The operations of an OpenAPI document given as JSON or YAML text; 400 naming `openapi_spec.content` when it is none. */
async function operationsOf(content: string, format: string): Promise<DocumentOperation[]> {
  let document: unknown;
  try {
    // Loaded on first use: most emulators never read a YAML document, and start-up pays for every import.
    document = format === 'yaml' ? (await import('yaml')).parse(content) : JSON.parse(content);
  } catch (error) {
    throw invalidFields({ 'openapi_spec.content': `is not ${format.toUpperCase()}: ${(error as Error).message}` });
  }
  if (!isObject(document) || !isObject(document.paths) || (!document.openapi && !document.swagger))
    throw invalidFields({ 'openapi_spec.content': 'is not an OpenAPI document (no `openapi` version and `paths`)' });
  const operations: DocumentOperation[] = [];
  for (const [path, item] of Object.entries(document.paths)) {
    if (!isObject(item)) continue;
    for (const method of METHODS) {
      const operation = item[method];
      if (!isObject(operation)) continue;
      const named = [operation.summary, operation.operationId].find((n) => typeof n === 'string' && n !== '');
      operations.push({
        method: method.toUpperCase(),
        path,
        name: (named as string) ?? `${method.toUpperCase()} ${path}`,
      });
    }
  }
  return operations;
}

interface NewEndpoint extends DocumentOperation {
  description?: unknown;
  /** The recipe that serves it; a new stopped recipe when absent. */
  flowId?: number;
}

/** The folder of the collection's project, where the recipes of its endpoints go (the home folder for a seeded project without one). */
async function projectFolderId(workspace: Workspace, op: EngineOperation, collection: JsonObject): Promise<number> {
  const project = await workspace.store.get('project', String(collection.project_id));
  const folder = project && (await workspace.store.get('folder', String(project.value.folder_id)));
  return Number((folder || (await homeFolder(workspace, op))).id);
}

/** An endpoint of the collection, disabled, its URL under the collection's; a new stopped recipe serves it unless one is named. */
async function addEndpoint(
  workspace: Workspace,
  op: EngineOperation,
  collection: JsonObject,
  { method, path, name, description = null, flowId }: NewEndpoint,
): Promise<JsonObject> {
  const recipeOp = actingOn(workspace, op, 'recipe');
  const folderId = flowId === undefined ? await projectFolderId(workspace, op, collection) : undefined;
  const recipeId =
    flowId ?? (await workspace.create(recipeOp, { name, code: '{}', config: [], folder_id: folderId }, undefined)).id;
  const base = new URL(String(collection.url));
  const basePath = `${base.pathname.replace(/\/$/, '')}/${path.replace(/^\//, '')}`;
  return workspace.create(
    actingOn(workspace, op, 'api_endpoint'),
    {
      api_collection_id: collection.id,
      flow_id: recipeId,
      name,
      description,
      method: method.toUpperCase(),
      path,
      base_path: basePath,
      url: new URL(basePath, base.origin).href,
      legacy_url: null,
      legacy: false,
    },
    undefined,
  );
}

export const collectionsHandlers = {
  /**
   * `create_api_collection`: the collection in its project (the first project when left out); with
   * `openapi_spec`, one endpoint per path and method of the document (named by its summary, else its
   * operationId, else `METHOD /path`), each served by a new stopped recipe in the project's folder, and
   * `import_results` counts them. A document that cannot be read is a 400 and creates nothing.
   */
  'api_collections.create': async (workspace, op, { body }) => {
    const request = body;
    const spec = request.openapi_spec as { content: string; format: string } | undefined;
    const operations = spec ? await operationsOf(spec.content, spec.format) : [];
    const fields: JsonObject = { name: request.name };
    if (request.project_id !== undefined) fields.project_id = Number(request.project_id);
    if (request.proxy_connection_id !== undefined) fields.proxy_connection_id = request.proxy_connection_id;
    const collection = await workspace.create(op, fields, undefined);
    if (!spec) return { body: collection };
    for (const operation of operations) await addEndpoint(workspace, op, collection, operation);
    const import_results = {
      success: true,
      total_endpoints: operations.length,
      failed_endpoints: 0,
      failed_actions: [],
    };
    return { body: { ...collection, message: `Imported ${operations.length} endpoints`, import_results } };
  },

  /**
   * `create_api_endpoint`: an endpoint of the collection in the path (404 when there is none), served
   * by `flow_id` (or `recipe_id`; 422 when it names no recipe), else by a new stopped recipe.
   */
  'api_endpoints.create': async (workspace, op, { params, body }) => {
    const collection = await workspace.store.get('api_collection', String(params.id));
    if (!collection) throw notFound('api collection', params.id);
    const request = body;
    const field = request.flow_id === undefined ? 'recipe_id' : 'flow_id';
    const recipeId = request[field];
    if (recipeId !== undefined && !(await workspace.store.get('recipe', String(recipeId))))
      throw missingReference(op.operation, field, 'recipe', recipeId);
    const endpoint = {
      method: String(request.method),
      path: String(request.path),
      name: String(request.name),
      description: request.description ?? null,
      flowId: recipeId === undefined ? undefined : Number(recipeId),
    };
    return { item: await addEndpoint(workspace, op, collection.value, endpoint) };
  },
} satisfies Partial<HandlerRegistry>;
