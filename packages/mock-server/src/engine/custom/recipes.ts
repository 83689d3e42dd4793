// Recipe actions that change the recipe's own fields: `connect` chooses the connection of one of its
// connectors, in the recipe's config.

import type { DerivationHookName } from '../../generated/handlers.js';
import type { JsonObject } from '../../store/resource-store.js';
import type { HandlerRegistry } from '../contract.js';
import type { DerivationHook } from '../derived.js';
import { invalidFields, missingReference } from '../errors.js';
import { isObject } from '../schema.js';

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

export const recipesHandlers = {
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
} satisfies Partial<HandlerRegistry>;

/** A recipe's code, a JSON text (or, seeded, an object): its trigger line, whose `block` holds the actions. */
function codeOf(recipe: JsonObject): JsonObject | undefined {
  const { code } = recipe;
  if (isObject(code)) return code;
  if (typeof code !== 'string') return undefined;
  try {
    const parsed: unknown = JSON.parse(code);
    return isObject(parsed) ? parsed : undefined;
  } catch {
    return undefined;
  }
}

/** The connectors of the code's action lines, at any depth (an action inside an if or a loop), in order, once each. */
function actionProviders(line: JsonObject, found: string[] = []): string[] {
  for (const step of Array.isArray(line.block) ? line.block : []) {
    if (!isObject(step)) continue;
    const { provider } = step;
    if (step.keyword === 'action' && typeof provider === 'string' && !found.includes(provider)) found.push(provider);
    actionProviders(step, found);
  }
  return found;
}

/** The code's trigger connector, or the field's stored value when the code names none (a seeded recipe). */
const triggerOf = (recipe: JsonObject): unknown => {
  const code = codeOf(recipe);
  return code?.keyword === 'trigger' && typeof code.provider === 'string'
    ? code.provider
    : (recipe.trigger_application ?? null);
};

export const recipesHooks = {
  /** `trigger_application`: the provider of the code's trigger line. */
  'recipes.trigger_application': async (_workspace, recipe) => triggerOf(recipe),

  /** `action_applications`: the providers of the code's action lines, each once. */
  'recipes.action_applications': async (_workspace, recipe) => {
    const code = codeOf(recipe);
    return code ? actionProviders(code) : recipe.action_applications;
  },

  /** `applications`: the trigger's connector, then the actions' that differ from it. */
  'recipes.applications': async (_workspace, recipe) => {
    const code = codeOf(recipe);
    if (!code) return recipe.applications;
    const trigger = triggerOf(recipe);
    const actions = actionProviders(code).filter((provider) => provider !== trigger);
    return typeof trigger === 'string' ? [trigger, ...actions] : actions;
  },
} satisfies Partial<Record<DerivationHookName, DerivationHook>>;
