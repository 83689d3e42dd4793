// Hand-written engine handlers for access and account operations that the vocabulary cannot express:
// account properties (a map per workspace and per project, kept in a hidden `$properties` field of the
// workspace singleton or of the project), tag assignments, project-grant upserts, privileges derived
// from the roles and grants in state, the eligible reviewers of a deployment, and the migration of
// legacy roles into environment and project roles.
import { Refused } from '../../errors.js';
import type { JsonObject, StoredItem } from '../../store/resource-store.js';
import type { HandlerRegistry, TypeName, Workspace } from '../contract.js';
import { conflict, missingReference, notFound } from '../errors.js';
import { isObject } from '../schema.js';
import { complete } from '../values.js';
import type { EngineOperation, ResourceType } from '../vocabulary.js';
import { memberIds, USER_GROUP } from './groups.js';

type PrivilegeMap = Record<string, string[]>;
type Environment = 'dev' | 'test' | 'prod';

/** A role a collaborator holds in one environment (Member.roles). */
interface HeldRole {
  environment: Environment;
  name: string;
  /** `environment` for an environment role, `privilege_group` (or absent) for a legacy role. */
  roleType?: string;
}

/** What a held role gives: its privileges, and the project folders it reaches (undefined: through grants). */
interface RoleAccess {
  privileges: PrivilegeMap;
  folderIds?: number[];
}

const PROPERTIES = '$properties';
const PROPERTY_LIMIT = 1000;
const ENVIRONMENTS: readonly Environment[] = ['dev', 'test', 'prod'];
/** Environment ids as grants show them; the emulator's workspaces have these three. */
const ENVIRONMENT_IDS: Record<Environment, number> = { dev: 1, test: 2, prod: 3 };
const NO_ACCESS = new Set(['NoAccess', 'No access']);
/** The deployment states in which reviewers are assigned. */
const REVIEWABLE = new Set(['pending', 'pending_review']);

const all = { privileges: 'all' };
const only = (...privileges: string[]) => ({ privileges });

/** The environment and project roles the platform provides (`type: system`), by name. */
const SYSTEM_ENVIRONMENT_ROLES: Record<string, JsonObject> = {
  EnvironmentAdmin: { team: all, projects: all, recipes: all, connections: all, jobs: all, deployments: all },
  EnvironmentManager: {
    projects: all,
    recipes: all,
    connections: all,
    jobs: all,
    deployments: only('read', 'create'),
  },
  Member: { projects: only('read'), recipes: only('read'), jobs: only('read') },
};
const SYSTEM_PROJECT_ROLES: Record<string, JsonObject> = {
  ProjectAdmin: { recipes: all, connections: all, folders: all, jobs: all, deployments: all },
  AdvancedBuilder: {
    recipes: only('read', 'create', 'update', 'delete', 'run'),
    connections: only('read', 'create', 'update'),
    folders: only('read', 'create', 'update'),
    jobs: only('read'),
  },
  ProjectOperator: { recipes: only('read', 'run'), connections: only('read'), jobs: only('read') },
};
/** The legacy system roles and the environment and project roles the system-role migration gives for each. */
const LEGACY_SYSTEM_ROLES: Record<string, { environment: string; project: string }> = {
  Admin: { environment: 'EnvironmentAdmin', project: 'ProjectAdmin' },
  Analyst: { environment: 'EnvironmentManager', project: 'AdvancedBuilder' },
  Operator: { environment: 'Member', project: 'ProjectOperator' },
};
/** The privilege areas of a legacy custom role that its migrated project role keeps. */
const PROJECT_AREAS = new Set([
  'recipes',
  'connections',
  'folders',
  'jobs',
  'lookup_tables',
  'data_tables',
  'deployments',
  'project_properties',
]);

export const accessHandlers = {
  /** The properties of the workspace (or of the project `project_id`) whose names start with `prefix`. */
  'properties.list': async (workspace, op, { params }) => {
    const { item } = await propertyOwner(workspace, op, params);
    const prefix = String(params.prefix);
    return { body: Object.fromEntries(Object.entries(propertiesIn(item)).filter(([name]) => name.startsWith(prefix))) };
  },

  /** Merges `properties` into the workspace's (or the project's) map; past 1,000 properties, 422 and no change. */
  'properties.upsert': async (workspace, op, { params, body }) => {
    const { type, item } = await propertyOwner(workspace, op, params);
    const merged = { ...propertiesIn(item), ...body.properties };
    if (Object.keys(merged).length > PROPERTY_LIMIT)
      throw new Refused(422, `At most ${PROPERTY_LIMIT} properties are allowed here`, [
        { pointer: '/properties', message: `would make ${Object.keys(merged).length} properties` },
      ]);
    await workspace.store.put(type, { ...item, value: { ...item.value, [PROPERTIES]: merged } });
    return { body: { success: true } };
  },

  /**
   * Adds `add_tags` to and removes `remove_tags` from the `tags` of every recipe and connection named;
   * a tag, recipe or connection that does not exist is refused (422) before anything changes. Each tag
   * named gets its `assignment_count`, and `last_assigned_at` when it was applied.
   */
  'tags.assign': async (workspace, op, { body }) => {
    // TagAssignmentsRequest's anyOf (recipe_ids or connection_ids) is generated as unknown.
    const request = body as JsonObject;
    const add = idList(request.add_tags);
    const remove = idList(request.remove_tags);
    const tags = [
      ...(await existing(workspace, op, 'tag', 'add_tags', add)),
      ...(await existing(workspace, op, 'tag', 'remove_tags', remove)),
    ];
    const assets = [
      ...(await existing(workspace, op, 'recipe', 'recipe_ids', idList(request.recipe_ids))),
      ...(await existing(workspace, op, 'connection', 'connection_ids', idList(request.connection_ids))),
    ];
    for (const [typeName, asset] of assets) {
      const held = Array.isArray(asset.value.tags) ? asset.value.tags.map(String) : [];
      const next = [...held, ...add.filter((handle) => !held.includes(handle))].filter((h) => !remove.includes(h));
      // Tagging is not an edit of the asset: no new recipe version, no updated_at.
      await workspace.store.put(typeName, { ...asset, value: { ...asset.value, tags: next } });
    }
    const tagged = [...(await workspace.store.list('recipe')), ...(await workspace.store.list('connection'))];
    for (const [, tag] of tags) {
      const count = tagged.filter((a) => Array.isArray(a.value.tags) && a.value.tags.includes(tag.id)).length;
      const value: JsonObject = { ...tag.value, assignment_count: count };
      if (add.includes(tag.id) && assets.length > 0) value.last_assigned_at = workspace.values.now;
      await workspace.store.put('tag', { ...tag, value });
    }
    return {};
  },

  /**
   * Gives each collaborator or group its project role on the project named in the path: a grant it
   * already holds there is updated, else one is created (in the environment of the project's earlier
   * grants, else `dev`). Every member, group and project role named must exist (422 before any change).
   */
  'project_grants.upsert': async (workspace, op, { params, body }) => {
    const project = await workspace.store.get('project', String(params.id));
    if (!project) throw notFound('project', params.id);
    const requested = body.project_grants;
    const resolved: { assignee: Assignee; role: StoredItem }[] = [];
    for (const [index, entry] of requested.entries()) {
      const typeName = entry.assignment_type === 'User' ? 'member' : USER_GROUP;
      const item = await workspace.store.get(typeName, String(entry.assignment_id));
      if (!item)
        throw missingReference(
          op.operation,
          `project_grants/${index}/assignment_id`,
          label(typeName),
          entry.assignment_id,
        );
      const role = await workspace.store.get('project_role', String(entry.project_role_id));
      if (!role)
        throw missingReference(
          op.operation,
          `project_grants/${index}/project_role_id`,
          'project role',
          entry.project_role_id,
        );
      resolved.push({ assignee: { typeName, item }, role });
    }
    const environment = await projectEnvironment(workspace, project);
    const touched = new Map<string, JsonObject>();
    for (const { assignee, role } of resolved) {
      const grant = await saveGrant(workspace, op, project, environment, assignee, role);
      touched.set(String(grant.id), grant);
    }
    await recountRoles(workspace);
    return { items: [...touched.values()] };
  },

  /**
   * One entry per environment where the collaborator holds a role (not NoAccess): the role's privileges
   * (an environment role's `config`, a legacy role's `privileges`; `all` as `["all"]`) and the project
   * folders it reaches (a legacy role's `folder_ids`, every project when empty; for an environment role,
   * the projects of the grants the collaborator holds there, directly or through a group).
   */
  'members.privileges': async (workspace, op, { params }) => {
    const member = await workspace.itemOf(op, params);
    const projects = await workspace.store.list('project');
    const reach = await grantsReaching(workspace, member);
    const data: JsonObject[] = [];
    for (const held of heldRoles(member)) {
      if (NO_ACCESS.has(held.name)) continue;
      const access = await roleAccess(workspace, held);
      const folderIds =
        access.folderIds ??
        projects
          .filter((p) =>
            reach.some(({ grant }) => sameId(projectOf(grant).id, p.id) && envOf(grant) === held.environment),
          )
          .map((p) => Number(p.value.folder_id));
      data.push({
        environment_type: held.environment,
        name: held.name,
        privileges: access.privileges,
        folder_ids: folderIds,
      });
    }
    return { body: { data } };
  },

  /**
   * One entry per project and environment the collaborator reaches: through project grants (their own,
   * or a group's they belong to, named in `user_group_ids`), and through a legacy role's folders.
   * Privileges of several grants on one project are merged.
   */
  'members.projects_privileges': async (workspace, op, { params }) => {
    const member = await workspace.itemOf(op, params);
    const projects = await workspace.store.list('project');
    const entries = new Map<
      string,
      { project: StoredItem; environment: string; privileges: PrivilegeMap; groups: Set<string> }
    >();
    const reached = (project: StoredItem, environment: string, privileges: PrivilegeMap, group?: string) => {
      const key = `${project.id}|${environment}`;
      const entry = entries.get(key) ?? { project, environment, privileges: {}, groups: new Set<string>() };
      entry.privileges = mergePrivileges(entry.privileges, privileges);
      if (group !== undefined) entry.groups.add(group);
      entries.set(key, entry);
    };
    for (const held of heldRoles(member)) {
      if (NO_ACCESS.has(held.name)) continue;
      const access = await roleAccess(workspace, held);
      if (!access.folderIds) continue;
      const folders = access.folderIds;
      for (const project of projects.filter((p) => folders.includes(Number(p.value.folder_id))))
        reached(project, held.environment, access.privileges);
    }
    for (const { grant, group } of await grantsReaching(workspace, member)) {
      const project = projects.find((p) => sameId(projectOf(grant).id, p.id));
      if (project) reached(project, envOf(grant), await projectRolePrivileges(workspace, grant), group);
    }
    const order = (e: { project: StoredItem; environment: string }) =>
      projects.indexOf(e.project) * ENVIRONMENTS.length + ENVIRONMENTS.indexOf(e.environment as Environment);
    const data = [...entries.values()]
      .sort((a, b) => order(a) - order(b))
      .map(({ project, environment, privileges, groups }) => ({
        project_id: Number(project.id),
        project_name: String(project.value.name),
        environment_type: environment,
        privileges,
        user_group_ids: [...groups],
      }));
    return { body: { data } };
  },

  /**
   * `update_member_roles`: the collaborator's role in each environment of `env_roles` becomes the one
   * named there; `NoAccess` takes the environment's role away. The other environments keep theirs, and
   * the roles' `members_count` follow.
   */
  'members.update_roles': async (workspace, op, { params, body }) => {
    const member = await workspace.itemOf(op, params);
    const given = heldRolesOf(isObject(body) ? body.env_roles : undefined);
    const environments = new Set(given.map((role) => role.environment_type));
    const held = (Array.isArray(member.value.roles) ? member.value.roles : []).filter(
      (role) => !isObject(role) || !environments.has(role.environment_type),
    );
    const roles = [...held, ...given.filter((role) => !NO_ACCESS.has(String(role.role_name)))];
    const updated = await workspace.update(op, member, { roles });
    await recountRoles(workspace);
    return { item: updated };
  },

  /** `update_project_grant`: the grant's project role becomes `project_role_id`'s (which must exist); the roles' counts follow. */
  'project_grants.update': async (workspace, op, { params, body }) => {
    const grant = await workspace.itemOf(op, params);
    const roleId = isObject(body) ? body.project_role_id : undefined;
    const role = await workspace.store.get('project_role', String(roleId));
    if (!role) throw missingReference(op.operation, 'project_role_id', 'project role', roleId);
    const updated = await workspace.update(op, grant, { project_role: { id: role.id, name: String(role.value.name) } });
    await recountRoles(workspace);
    return { item: updated };
  },

  /**
   * `assign_deployment_reviewers`: the reviewers become those of `reviewer_ids` (collaborators, each must
   * exist), while the deployment is `pending` or `pending_review`; a reviewer kept keeps its review, a new
   * one gets a `pending` review, and the reviews of those left out are dropped.
   */
  'deployments.assign_reviewers': async (workspace, op, { params, body }) => {
    const deployment = await workspace.itemOf(op, params);
    if (!REVIEWABLE.has(String(deployment.value.state)))
      throw conflict(
        op.conflict,
        `deployment ${deployment.id} is ${deployment.value.state}: reviewers are assigned while it is pending or pending_review`,
        'state',
        `is ${deployment.value.state}`,
      );
    const held = (Array.isArray(deployment.value.reviews) ? deployment.value.reviews : []).filter(isObject);
    const reviews: JsonObject[] = [];
    for (const id of numbers(isObject(body) ? body.reviewer_ids : undefined)) {
      const member = await workspace.store.get('member', String(id));
      if (!member) throw missingReference(op.operation, 'reviewer_ids', 'collaborator', id);
      const kept = held.find((review) => isObject(review.reviewer) && sameId(review.reviewer.id, member.id));
      reviews.push(kept ?? { reviewer: collaborator(member), status: 'pending', comment: null });
    }
    return { item: await workspace.update(op, deployment, { reviews }) };
  },

  /** Every workspace collaborator except the deployment's authors (nobody reviews their own changes). */
  'deployments.eligible_reviewers': async (workspace, op, { params }) => {
    const deployment = await workspace.itemOf(op, params);
    const authors = Array.isArray(deployment.value.authors) ? deployment.value.authors : [];
    const authorIds = new Set(authors.map((author) => String(isObject(author) ? author.id : author)));
    const members = (await workspace.store.list('member')).filter((member) => !authorIds.has(member.id));
    return { body: { data: members.map((member) => collaborator(member)) } };
  },

  /**
   * Legacy system roles become environment and project roles: Admin gives EnvironmentAdmin and
   * ProjectAdmin, Analyst EnvironmentManager and AdvancedBuilder, Operator Member and ProjectOperator.
   */
  'role_migration.system_roles': async (workspace, op, { body }) => {
    const dryRun = isObject(body) && body.dry_run === true;
    const plan = await migrationPlan(workspace, (held) =>
      held.roleType === 'environment' ? undefined : LEGACY_SYSTEM_ROLES[held.name],
    );
    const environmentRoles = Object.entries(SYSTEM_ENVIRONMENT_ROLES).map(([name, config]) => ({ name, config }));
    const projectRoles = Object.entries(SYSTEM_PROJECT_ROLES).map(([name, config]) => ({ name, config }));
    if (!dryRun) await carryOut(workspace, op, plan, environmentRoles, projectRoles, 'system');
    return { body: { data: resultOf(plan, environmentRoles, projectRoles) } };
  },

  /**
   * A legacy custom role becomes an environment role (all its privileges) and a project role (those of
   * project areas), both named as it; its holders get the environment role, and a grant of the project
   * role on each project its folders reach. The legacy role stays; a second migration is a 422.
   */
  'role_migration.custom_role': async (workspace, op, { body }) => {
    const request = body;
    const legacy = await workspace.store.get(op.type.name, String(request.role_id));
    if (!legacy) throw notFound('legacy role', request.role_id);
    const name = String(legacy.value.name ?? `Role ${legacy.id}`);
    for (const typeName of ['environment_role', 'project_role'] as const) {
      if ((await workspace.store.list(typeName)).some((role) => role.value.name === name))
        throw new Refused(
          422,
          `The legacy role ${legacy.id} was migrated already: a ${label(typeName)} ${name} exists`,
          [{ pointer: '/role_id', message: `a ${label(typeName)} named ${name} exists` }],
        );
    }
    const config = configOf(isObject(legacy.value.privileges) ? (legacy.value.privileges as PrivilegeMap) : {});
    const projectConfig = Object.fromEntries(Object.entries(config).filter(([area]) => PROJECT_AREAS.has(area)));
    const folderIds = numbers(legacy.value.folder_ids);
    const plan = await migrationPlan(
      workspace,
      (held) =>
        held.roleType === 'environment' || held.name !== name ? undefined : { environment: name, project: name },
      (project) => folderIds.length === 0 || folderIds.includes(Number(project.value.folder_id)),
    );
    const environmentRoles = [{ name, config }];
    const projectRoles = [{ name, config: projectConfig }];
    if (request.dry_run !== true) await carryOut(workspace, op, plan, environmentRoles, projectRoles, 'custom');
    return { body: { data: resultOf(plan, environmentRoles, projectRoles) } };
  },
} satisfies Partial<HandlerRegistry>;

// --- properties ---

/** Where the properties live: the project named by `project_id` (it must exist), else the workspace. */
async function propertyOwner(
  workspace: Workspace,
  op: EngineOperation,
  params: Readonly<JsonObject>,
): Promise<{ type: TypeName; item: StoredItem }> {
  if (params.project_id !== undefined) {
    const project = await workspace.store.get('project', String(params.project_id));
    if (!project) throw missingReference(op.operation, 'project_id', 'project', params.project_id);
    return { type: 'project', item: project };
  }
  const held = await workspace.store.get('workspace', 'workspace');
  if (held) return { type: 'workspace', item: held };
  // The workspace singleton as a get answers it before anything was written.
  const type = typeNamed(workspace, 'workspace');
  const value = complete(workspace.values, type.schema, { created_at: workspace.values.now });
  return { type: 'workspace', item: { id: 'workspace', value } };
}

function propertiesIn(item: StoredItem): JsonObject {
  const held = item.value[PROPERTIES];
  return isObject(held) ? held : {};
}

// --- references ---

function idList(sent: unknown): string[] {
  return Array.isArray(sent) ? sent.map(String) : [];
}

function numbers(sent: unknown): number[] {
  return Array.isArray(sent) ? sent.map(Number) : [];
}

/** The items of the type with these ids, each with its type; the first id that names none is refused. */
async function existing(
  workspace: Workspace,
  op: EngineOperation,
  typeName: TypeName,
  field: string,
  ids: string[],
): Promise<[TypeName, StoredItem][]> {
  const items: [TypeName, StoredItem][] = [];
  for (const id of ids) {
    const item = await workspace.store.get(typeName, id);
    if (!item) throw missingReference(op.operation, field, label(typeName), id);
    items.push([typeName, item]);
  }
  return items;
}

const label = (typeName: string) => (typeName === USER_GROUP ? 'collaborator group' : typeName.replace(/_/g, ' '));

const sameId = (a: unknown, b: unknown) => a !== undefined && a !== null && String(a) === String(b);

function typeNamed(workspace: Workspace, name: TypeName): ResourceType {
  const type = workspace.types.get(name);
  if (!type) throw new Error(`No resource type '${name}'`);
  return type;
}

/** The operation as one acting on another type (for the items a handler writes besides its own). */
function asType(workspace: Workspace, op: EngineOperation, typeName: TypeName): EngineOperation {
  return { ...op, type: typeNamed(workspace, typeName), set: {}, add: undefined, remove: undefined, clear: undefined };
}

// --- grants ---

interface Assignee {
  typeName: TypeName;
  item: StoredItem;
}

/** A member's roles (Member.roles) from the `env_roles` of invite_member and update_member_roles. */
export function heldRolesOf(envRoles: unknown): JsonObject[] {
  return (Array.isArray(envRoles) ? envRoles : []).filter(isObject).map((role) => ({
    environment_type: role.environment_type,
    role_name: role.name,
    role_type: role.role_type ?? 'privilege_group',
  }));
}

function collaborator(member: StoredItem): JsonObject {
  return { id: Number(member.id), name: String(member.value.name), email: String(member.value.email) };
}

const projectOf = (grant: StoredItem): JsonObject => (isObject(grant.value.project) ? grant.value.project : {});

function envOf(grant: StoredItem): Environment {
  const environment = projectOf(grant).environment;
  const type = isObject(environment) ? environment.type : undefined;
  return ENVIRONMENTS.includes(type as Environment) ? (type as Environment) : 'dev';
}

/** The environment of the project's earlier grants, else `dev`. */
async function projectEnvironment(workspace: Workspace, project: StoredItem): Promise<Environment> {
  const earlier = (await workspace.store.list('project_grant')).find((g) => sameId(projectOf(g).id, project.id));
  return earlier ? envOf(earlier) : 'dev';
}

/** Creates the assignee's grant on the project in the environment, or changes the role of the one it holds. */
async function saveGrant(
  workspace: Workspace,
  op: EngineOperation,
  project: StoredItem,
  environment: Environment,
  assignee: Assignee,
  role: StoredItem,
): Promise<JsonObject> {
  const grantOp = asType(workspace, op, 'project_grant');
  const isUser = assignee.typeName === 'member';
  const holder = (grant: StoredItem) => (isUser ? grant.value.user : grant.value.user_group);
  const held = (await workspace.store.list('project_grant')).find(
    (grant) =>
      sameId(projectOf(grant).id, project.id) &&
      envOf(grant) === environment &&
      isObject(holder(grant)) &&
      sameId((holder(grant) as JsonObject).id, assignee.item.id),
  );
  const fields: JsonObject = {
    project: {
      id: Number(project.id),
      name: String(project.value.name),
      environment: { id: ENVIRONMENT_IDS[environment], type: environment },
    },
    project_role: { id: role.id, name: String(role.value.name) },
    user: isUser ? collaborator(assignee.item) : null,
    user_group: isUser ? null : { id: assignee.item.id, name: String(assignee.item.value.name) },
  };
  return held ? workspace.update(grantOp, held, fields) : workspace.create(grantOp, fields, undefined);
}

/** The collaborator groups the member belongs to (the built-in `system` group holds everyone). */
async function groupsOf(workspace: Workspace, member: StoredItem): Promise<string[]> {
  return (await workspace.store.list(USER_GROUP))
    .filter((group) => group.value.system === true || memberIds(group).includes(member.id))
    .map((group) => group.id);
}

/** The grants that reach the member: its own, and those of its groups (with the group's id). */
async function grantsReaching(
  workspace: Workspace,
  member: StoredItem,
): Promise<{ grant: StoredItem; group?: string }[]> {
  const groups = await groupsOf(workspace, member);
  const reach: { grant: StoredItem; group?: string }[] = [];
  for (const grant of await workspace.store.list('project_grant')) {
    const { user, user_group: group } = grant.value;
    if (isObject(user) && sameId(user.id, member.id)) reach.push({ grant });
    else if (isObject(group) && groups.includes(String(group.id))) reach.push({ grant, group: String(group.id) });
  }
  return reach;
}

/** The privileges of a grant's project role (from state, else the system role of that name). */
async function projectRolePrivileges(workspace: Workspace, grant: StoredItem): Promise<PrivilegeMap> {
  const named = isObject(grant.value.project_role) ? grant.value.project_role : {};
  const role = await workspace.store.get('project_role', String(named.id));
  if (role) return privilegesOf(role.value.config);
  return privilegesOf(SYSTEM_PROJECT_ROLES[String(named.name)]);
}

/** Sets each environment and project role's `members_count` from the members and grants in state. */
async function recountRoles(workspace: Workspace): Promise<void> {
  const members = await workspace.store.list('member');
  const groups = await workspace.store.list(USER_GROUP);
  const grants = await workspace.store.list('project_grant');
  const setCount = async (typeName: TypeName, role: StoredItem, count: number) => {
    if (role.value.members_count !== count)
      await workspace.store.put(typeName, { ...role, value: { ...role.value, members_count: count } });
  };
  for (const role of await workspace.store.list('environment_role')) {
    const holders = members.filter((m) =>
      heldRoles(m).some((held) => held.roleType === 'environment' && held.name === role.value.name),
    );
    await setCount('environment_role', role, holders.length);
  }
  for (const role of await workspace.store.list('project_role')) {
    const holders = new Set<string>();
    for (const grant of grants) {
      const granted = grant.value.project_role;
      if (!isObject(granted) || !sameId(granted.id, role.id)) continue;
      const { user, user_group: group } = grant.value;
      if (isObject(user)) holders.add(String(user.id));
      const held = isObject(group) ? groups.find((g) => sameId(group.id, g.id)) : undefined;
      if (held)
        for (const id of held.value.system === true ? members.map((m) => m.id) : memberIds(held)) holders.add(id);
    }
    await setCount('project_role', role, holders.size);
  }
}

// --- roles and privileges ---

function heldRoles(member: StoredItem): HeldRole[] {
  const roles = Array.isArray(member.value.roles) ? member.value.roles : [];
  return roles.filter(isObject).map((role) => ({
    environment: role.environment_type as Environment,
    name: String(role.role_name),
    roleType: role.role_type === undefined ? undefined : String(role.role_type),
  }));
}

async function named(workspace: Workspace, typeName: TypeName, name: string): Promise<StoredItem | undefined> {
  return (await workspace.store.list(typeName)).find((role) => role.value.name === name);
}

/**
 * What a held role gives. A legacy role (`privilege_group`) is looked up among the legacy roles, then
 * the legacy system roles (which reach every project); an environment role among the environment
 * roles, then the system ones. A role found nowhere gives no privileges.
 */
async function roleAccess(workspace: Workspace, held: HeldRole): Promise<RoleAccess> {
  const projects = await workspace.store.list('project');
  const everyFolder = projects.map((project) => Number(project.value.folder_id));
  if (held.roleType !== 'environment') {
    const legacy = await named(workspace, 'legacy_role', held.name);
    if (legacy) {
      const folders = numbers(legacy.value.folder_ids);
      return {
        privileges: isObject(legacy.value.privileges) ? (legacy.value.privileges as PrivilegeMap) : {},
        folderIds: folders.length > 0 ? folders : everyFolder,
      };
    }
    const system = LEGACY_SYSTEM_ROLES[held.name];
    if (system) {
      const privileges = mergePrivileges(
        privilegesOf(SYSTEM_ENVIRONMENT_ROLES[system.environment]),
        privilegesOf(SYSTEM_PROJECT_ROLES[system.project]),
      );
      return { privileges, folderIds: everyFolder };
    }
    if (held.roleType === 'privilege_group') return { privileges: {}, folderIds: [] };
  }
  const role = await named(workspace, 'environment_role', held.name);
  return { privileges: privilegesOf(role ? role.value.config : SYSTEM_ENVIRONMENT_ROLES[held.name]) };
}

/** A role `config` (area: {privileges}) as a privilege map (Category: [actions]); `all` stays `["all"]`. */
function privilegesOf(config: unknown): PrivilegeMap {
  if (!isObject(config)) return {};
  return Object.fromEntries(
    Object.entries(config).map(([area, entry]) => {
      const privileges = isObject(entry) ? entry.privileges : undefined;
      const actions = privileges === 'all' ? ['all'] : Array.isArray(privileges) ? privileges.map(String) : [];
      return [categoryOf(area), actions];
    }),
  );
}

/** A legacy privilege map as a role `config`: `Lookup tables: [read]` becomes `lookup_tables: {privileges: [read]}`. */
function configOf(privileges: PrivilegeMap): JsonObject {
  return Object.fromEntries(
    Object.entries(privileges).map(([category, actions]) => {
      const list = Array.isArray(actions) ? actions.map(String) : [];
      return [category.trim().toLowerCase().replace(/\s+/g, '_'), { privileges: list.includes('all') ? 'all' : list }];
    }),
  );
}

const categoryOf = (area: string) => {
  const words = area.split('_');
  return [`${words[0]?.charAt(0).toUpperCase()}${words[0]?.slice(1)}`, ...words.slice(1)].join(' ');
};

function mergePrivileges(a: PrivilegeMap, b: PrivilegeMap): PrivilegeMap {
  const merged: PrivilegeMap = { ...a };
  for (const [category, actions] of Object.entries(b)) {
    const held = merged[category] ?? [];
    const union = [...held, ...actions.filter((action) => !held.includes(action))];
    merged[category] = union.includes('all') ? ['all'] : union;
  }
  return merged;
}

// --- role migration ---

interface RoleDefinition {
  name: string;
  config: JsonObject;
}

interface MigratedMember {
  member: StoredItem;
  /** The member's roles after the migration. */
  roles: JsonObject[];
  /** The environment roles it gives, and the project role per environment. */
  given: { environment: Environment; name: string; project: string }[];
}

interface MigrationPlan {
  members: MigratedMember[];
  projects: { project: StoredItem; environment: Environment; holders: { member: StoredItem; project: string }[] }[];
}

/** Which members' roles the migration changes (`map` names the new roles of a held role), and the grants it makes. */
async function migrationPlan(
  workspace: Workspace,
  map: (held: HeldRole) => { environment: string; project: string } | undefined,
  reaches: (project: StoredItem) => boolean = () => true,
): Promise<MigrationPlan> {
  const members: MigratedMember[] = [];
  for (const member of await workspace.store.list('member')) {
    const roles = Array.isArray(member.value.roles) ? member.value.roles.filter(isObject) : [];
    const given: MigratedMember['given'] = [];
    const next = roles.map((role, index) => {
      const held = heldRoles(member)[index];
      const mapped = held && map(held);
      if (!held || !mapped) return role;
      given.push({ environment: held.environment, name: mapped.environment, project: mapped.project });
      return { ...role, role_name: mapped.environment, role_type: 'environment' };
    });
    if (given.length > 0) members.push({ member, roles: next, given });
  }
  const projects: MigrationPlan['projects'] = [];
  for (const project of (await workspace.store.list('project')).filter(reaches)) {
    for (const environment of ENVIRONMENTS) {
      const holders = members.flatMap(({ member, given }) =>
        given.filter((g) => g.environment === environment).map((g) => ({ member, project: g.project })),
      );
      if (holders.length > 0) projects.push({ project, environment, holders });
    }
  }
  return { members, projects };
}

/** The migration's answer: the roles, each collaborator's (and moderator's) new roles, the project roles given. */
function resultOf(plan: MigrationPlan, environmentRoles: RoleDefinition[], projectRoles: RoleDefinition[]): JsonObject {
  const person = ({ member, given }: MigratedMember) => ({
    user_id: Number(member.id),
    email: String(member.value.email),
    name: String(member.value.name),
    roles: given.map((g) => ({ environment: g.environment, name: g.name })),
  });
  const moderator = (m: MigratedMember) => m.member.value.grant_type === 'federation_manager';
  return {
    environment_roles: environmentRoles,
    project_roles: projectRoles,
    collaborators: plan.members.filter((m) => !moderator(m)).map(person),
    projects: plan.projects.map(({ project, environment, holders }) => ({
      id: Number(project.id),
      name: String(project.value.name),
      environment,
      collaborators: holders.map(({ member, project: role }) => ({
        user_id: Number(member.id),
        email: String(member.value.email),
        name: String(member.value.name),
        project_role: role,
      })),
    })),
    moderators: plan.members.filter(moderator).map(person),
  };
}

/** Creates the roles not in state yet (by name), gives the members their new roles and the grants, recounts. */
async function carryOut(
  workspace: Workspace,
  op: EngineOperation,
  plan: MigrationPlan,
  environmentRoles: RoleDefinition[],
  projectRoles: RoleDefinition[],
  category: 'system' | 'custom',
): Promise<void> {
  const ensure = async (typeName: TypeName, definition: RoleDefinition) =>
    (await named(workspace, typeName, definition.name)) ??
    (await workspace.store.get(
      typeName,
      String(
        (
          await workspace.create(asType(workspace, op, typeName), { ...definition, type: category }, undefined)
        ).id,
      ),
    ));
  for (const definition of environmentRoles) await ensure('environment_role', definition);
  const roles = new Map<string, StoredItem>();
  for (const definition of projectRoles) {
    const role = await ensure('project_role', definition);
    if (role) roles.set(definition.name, role);
  }
  const memberOp = asType(workspace, op, 'member');
  for (const { member, roles: next } of plan.members) await workspace.update(memberOp, member, { roles: next });
  for (const { project, environment, holders } of plan.projects) {
    for (const { member, project: roleName } of holders) {
      const role = roles.get(roleName);
      const current = await workspace.store.get('member', member.id);
      if (role && current)
        await saveGrant(workspace, op, project, environment, { typeName: 'member', item: current }, role);
    }
  }
  await recountRoles(workspace);
}
