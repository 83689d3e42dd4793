// Recipe actions that change the recipe's own fields: `connect` chooses the connection of one of its
// connectors, in the recipe's config.

import type { JsonObject } from '../../store/resource-store.js';
import type { Handler } from '../contract.js';
import { invalidFields, missingReference } from '../errors.js';

/** A recipe's config lines, stored as a list (a seed may hold JSON text). */
export function configLines(config: unknown): JsonObject[] {
  if (Array.isArray(config)) return config as JsonObject[];
  if (typeof config !== 'string') return [];
  try {
    const parsed: unknown = JSON.parse(config);
    return Array.isArray(parsed) ? (parsed as JsonObject[]) : [];
  } catch {
    return [];
  }
}

export const recipesHandlers: Record<string, Handler> = {
  /**
   * `update_recipe_connection`: the config line of the connector `adapter_name` (by `provider`, else
   * `name`) gets `account_id` = `connection_id`; a recipe without that connector gets a line for it.
   * The connection must exist (400) and, when it names its connector, be one of `adapter_name` (400); a
   * running recipe is refused with 400 (the recipe's x-states), and nothing changes.
   */
  'recipes.connect': async (workspace, op, { params, body }) => {
    const recipe = await workspace.itemOf(op, params);
    const { adapter_name: adapter, connection_id: connectionId } = body as {
      adapter_name: string;
      connection_id: number;
    };
    const connection = await workspace.store.get('connection', String(connectionId));
    if (!connection) throw missingReference(op.operation, 'connection_id', 'connection', connectionId);
    const provider = connection.value.provider ?? connection.value.application;
    if (typeof provider === 'string' && provider !== adapter)
      throw invalidFields({ connection_id: `is a ${provider} connection, not one of ${adapter}` });
    const lines = configLines(recipe.value.config);
    const uses = (line: JsonObject) => (line.provider ?? line.name) === adapter;
    const config = lines.some(uses)
      ? lines.map((line) => (uses(line) ? { ...line, account_id: connectionId } : line))
      : [...lines, { keyword: 'application', name: adapter, provider: adapter, account_id: connectionId }];
    return { item: await workspace.update(op, recipe, { config }) };
  },
};
