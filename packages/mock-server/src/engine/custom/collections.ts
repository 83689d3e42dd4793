// API collections created from an OpenAPI document: one endpoint, and a recipe that serves it, per path
// and method of the document.

import type { JsonObject } from '../../store/resource-store.js';
import type { Handler } from '../contract.js';
import { invalidFields } from '../errors.js';
import { isObject } from '../schema.js';
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

export const collectionsHandlers: Record<string, Handler> = {
  /**
   * `create_api_collection`: the collection in its project (the first project when left out); with
   * `openapi_spec`, one endpoint per path and method of the document (named by its summary, else its
   * operationId, else `METHOD /path`), each served by a new stopped recipe in the project's folder, and
   * `import_results` counts them. A document that cannot be read is a 400 and creates nothing.
   */
  'api_collections.create': async (workspace, op, { body }) => {
    const request = body as JsonObject;
    const spec = request.openapi_spec as { content: string; format: string } | undefined;
    const operations = spec ? await operationsOf(spec.content, spec.format) : [];
    const fields: JsonObject = { name: request.name };
    if (request.project_id !== undefined) fields.project_id = String(request.project_id);
    if (request.proxy_connection_id !== undefined) fields.proxy_connection_id = request.proxy_connection_id;
    const collection = await workspace.create(op, fields, undefined);
    if (!spec) return { body: collection };
    // The recipes go to the project's folder (the home folder for a seeded project without one).
    const project = await workspace.store.get('project', String(collection.project_id));
    const folder = project && (await workspace.store.get('folder', String(project.value.folder_id)));
    const folderId = Number((folder || (await homeFolder(workspace, op))).id);
    const base = new URL(String(collection.url));
    for (const { method, path, name } of operations) {
      const recipe = await workspace.create(
        actingOn(workspace, op, 'recipe'),
        { name, code: '{}', config: [], folder_id: folderId },
        undefined,
      );
      const basePath = `${base.pathname.replace(/\/$/, '')}${path}`;
      await workspace.create(
        actingOn(workspace, op, 'api_endpoint'),
        {
          api_collection_id: collection.id,
          flow_id: recipe.id,
          name,
          method,
          path,
          base_path: basePath,
          url: new URL(basePath, base.origin).href,
          legacy_url: null,
          legacy: false,
        },
        undefined,
      );
    }
    const import_results = {
      success: true,
      total_endpoints: operations.length,
      failed_endpoints: 0,
      failed_actions: [],
    };
    return { body: { ...collection, message: `Imported ${operations.length} endpoints`, import_results } };
  },
};
