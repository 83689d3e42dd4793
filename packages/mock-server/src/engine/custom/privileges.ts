// A collaborator's privileges, derived from the roles and grants in state: per environment
// (`get_member_privileges`) and per project and environment (`get_member_projects_privileges`).
import type { JsonObject, StoredItem } from '../../store/resource-store.js';
import type { HandlerRegistry, Workspace } from '../contract.js';
import { isObject } from '../schema.js';
import { envOf, projectOf } from './grants.js';
import { memberIds, USER_GROUP } from './groups.js';
import { sameId } from './references.js';
import {
  ENVIRONMENTS,
  type Environment,
  heldRoles,
  mergePrivileges,
  NO_ACCESS,
  type PrivilegeMap,
  privilegesOf,
  roleAccess,
  SYSTEM_PROJECT_ROLES,
} from './roles.js';

export const privilegesHandlers = {
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
} satisfies Partial<HandlerRegistry>;

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
