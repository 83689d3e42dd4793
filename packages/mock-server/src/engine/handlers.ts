// The registry of the engine's hand-written handlers (`op: custom`) and derivation hooks, assembled from
// custom/, a module per feature (data-table records, lookup rows, batches, copies, access profiles,
// members, grants, roles, schema generation and file links, jobs, packages...), and the families whose
// state the domain keeps (topics, API clients and keys).

import type { DerivationHookName, HandlerName } from '../generated/handlers.js';
import type { Family, Handler, HandlerRegistry } from './contract.js';
import { accessProfilesHandlers } from './custom/access-profiles.js';
import { apiClientsFamily } from './custom/api-clients.js';
import { batchesHandlers } from './custom/batches.js';
import { collectionsHandlers } from './custom/collections.js';
import { connectionsHandlers } from './custom/connections.js';
import { connectorsHandlers } from './custom/connectors.js';
import { copiesHandlers } from './custom/copies.js';
import { deploymentReviewersHandlers } from './custom/deployment-reviewers.js';
import { developerApiClientsHandlers } from './custom/developer-api-clients.js';
import { geniesHandlers } from './custom/genies.js';
import { grantsHandlers } from './custom/grants.js';
import { lookupRowsHandlers } from './custom/lookup-rows.js';
import { mcpHandlers, mcpHooks } from './custom/mcp.js';
import { membersHandlers } from './custom/members.js';
import { packagesHandlers } from './custom/packages.js';
import { privilegesHandlers } from './custom/privileges.js';
import { projectsHandlers } from './custom/projects.js';
import { propertiesHandlers } from './custom/properties.js';
import { recipesHandlers, recipesHooks } from './custom/recipes.js';
import { recordsHandlers } from './custom/records.js';
import { roleMigrationHandlers } from './custom/role-migration.js';
import { rolesHandlers } from './custom/roles.js';
import { runsHandlers } from './custom/runs.js';
import { sdkfilesHandlers } from './custom/sdkfiles.js';
import { tagsHandlers } from './custom/tags.js';
import { topicsFamily } from './custom/topics.js';
import { workspaceHandlers } from './custom/workspace.js';
import type { DerivationHook } from './derived.js';

/** The families whose state the domain keeps; their handlers are among customHandlers. */
export const families: readonly Family[] = [topicsFamily, apiClientsFamily];

/** The hand-written derived fields (`derived: {field: {hook: name}}`), by name. */
export const derivationHooks: Readonly<Record<DerivationHookName, DerivationHook>> = { ...recipesHooks, ...mcpHooks };

/** Every hand-written handler, by the name the spec gives it: tsc holds each to its operations' requests. */
export const customHandlers: HandlerRegistry = {
  ...topicsFamily.handlers,
  ...apiClientsFamily.handlers,
  ...sdkfilesHandlers,
  ...runsHandlers,
  ...propertiesHandlers,
  ...tagsHandlers,
  ...grantsHandlers,
  ...rolesHandlers,
  ...privilegesHandlers,
  ...deploymentReviewersHandlers,
  ...roleMigrationHandlers,
  ...connectionsHandlers,
  ...connectorsHandlers,
  ...geniesHandlers,
  ...projectsHandlers,
  ...packagesHandlers,
  ...recipesHandlers,
  ...mcpHandlers,
  ...collectionsHandlers,
  ...workspaceHandlers,
  ...recordsHandlers,
  ...lookupRowsHandlers,
  ...batchesHandlers,
  ...copiesHandlers,
  ...accessProfilesHandlers,
  ...membersHandlers,
  ...developerApiClientsHandlers,
};

/**
 * The handler the spec names, for the engine, which finds it by the name it read at start: the
 * pipeline checked the request against the same operation whose name it is.
 */
export function customHandler(name: string): Handler | undefined {
  return Object.hasOwn(customHandlers, name) ? (customHandlers[name as HandlerName] as Handler) : undefined;
}

/** The hand-written derived field the spec names, found by the name the engine read at start. */
export function derivationHook(name: string): DerivationHook | undefined {
  return Object.hasOwn(derivationHooks, name) ? derivationHooks[name as DerivationHookName] : undefined;
}
