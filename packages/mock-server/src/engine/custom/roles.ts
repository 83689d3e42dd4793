// Collaborators' roles: the environment and project roles the platform provides, the roles a member
// holds (Member.roles), what each gives (privileges, and the project folders a legacy role reaches),
// the roles' `members_count`, and `update_member_roles`.
import type { JsonObject, StoredItem } from '../../store/resource-store.js';
import type { HandlerRegistry, TypeName, Workspace } from '../contract.js';
import { isObject } from '../schema.js';
import { memberIds, USER_GROUP } from './groups.js';
import { numbers, sameId } from './references.js';

export type PrivilegeMap = Record<string, string[]>;
export type Environment = 'dev' | 'test' | 'prod';

/** A role a collaborator holds in one environment (Member.roles). */
export interface HeldRole {
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

export const ENVIRONMENTS: readonly Environment[] = ['dev', 'test', 'prod'];
export const NO_ACCESS = new Set(['NoAccess', 'No access']);

const all = { privileges: 'all' };
const only = (...privileges: string[]) => ({ privileges });

/** The environment and project roles the platform provides (`type: system`), by name. */
export const SYSTEM_ENVIRONMENT_ROLES: Record<string, JsonObject> = {
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
export const SYSTEM_PROJECT_ROLES: Record<string, JsonObject> = {
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
export const LEGACY_SYSTEM_ROLES: Record<string, { environment: string; project: string }> = {
  Admin: { environment: 'EnvironmentAdmin', project: 'ProjectAdmin' },
  Analyst: { environment: 'EnvironmentManager', project: 'AdvancedBuilder' },
  Operator: { environment: 'Member', project: 'ProjectOperator' },
};

export const rolesHandlers = {
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
} satisfies Partial<HandlerRegistry>;

/** A member's roles (Member.roles) from the `env_roles` of invite_member and update_member_roles. */
export function heldRolesOf(envRoles: unknown): JsonObject[] {
  return (Array.isArray(envRoles) ? envRoles : []).filter(isObject).map((role) => ({
    environment_type: role.environment_type,
    role_name: role.name,
    role_type: role.role_type ?? 'privilege_group',
  }));
}

/** Sets each environment and project role's `members_count` from the members and grants in state. */
export async function recountRoles(workspace: Workspace): Promise<void> {
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

export function heldRoles(member: StoredItem): HeldRole[] {
  const roles = Array.isArray(member.value.roles) ? member.value.roles : [];
  return roles.filter(isObject).map((role) => ({
    environment: role.environment_type as Environment,
    name: String(role.role_name),
    roleType: role.role_type === undefined ? undefined : String(role.role_type),
  }));
}

export async function named(workspace: Workspace, typeName: TypeName, name: string): Promise<StoredItem | undefined> {
  return (await workspace.store.list(typeName)).find((role) => role.value.name === name);
}

/**
 * What a held role gives. A legacy role (`privilege_group`) is looked up among the legacy roles, then
 * the legacy system roles (which reach every project); an environment role among the environment
 * roles, then the system ones. A role found nowhere gives no privileges.
 */
export async function roleAccess(workspace: Workspace, held: HeldRole): Promise<RoleAccess> {
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
export function privilegesOf(config: unknown): PrivilegeMap {
  if (!isObject(config)) return {};
  return Object.fromEntries(
    Object.entries(config).map(([area, entry]) => {
      const privileges = isObject(entry) ? entry.privileges : undefined;
      const actions = privileges === 'all' ? ['all'] : Array.isArray(privileges) ? privileges.map(String) : [];
      return [categoryOf(area), actions];
    }),
  );
}

const categoryOf = (area: string) => {
  const words = area.split('_');
  return [`${words[0]?.charAt(0).toUpperCase()}${words[0]?.slice(1)}`, ...words.slice(1)].join(' ');
};

export function mergePrivileges(a: PrivilegeMap, b: PrivilegeMap): PrivilegeMap {
  const merged: PrivilegeMap = { ...a };
  for (const [category, actions] of Object.entries(b)) {
    const held = merged[category] ?? [];
    const union = [...held, ...actions.filter((action) => !held.includes(action))];
    merged[category] = union.includes('all') ? ['all'] : union;
  }
  return merged;
}
