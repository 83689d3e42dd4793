// The migration of legacy roles (privilege groups) into environment and project roles: the system
// roles all at once, a custom role one at a time; a dry run answers the plan and changes nothing.
import { Refused } from '../../errors.js';
import type { JsonObject, StoredItem } from '../../store/resource-store.js';
import type { HandlerRegistry, TypeName, Workspace } from '../contract.js';
import { notFound } from '../errors.js';
import { isObject } from '../schema.js';
import type { EngineOperation } from '../vocabulary.js';
import { saveGrant } from './grants.js';
import { asType, label, numbers } from './references.js';
import {
  ENVIRONMENTS,
  type Environment,
  type HeldRole,
  heldRoles,
  LEGACY_SYSTEM_ROLES,
  named,
  type PrivilegeMap,
  recountRoles,
  SYSTEM_ENVIRONMENT_ROLES,
  SYSTEM_PROJECT_ROLES,
} from './roles.js';

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

export const roleMigrationHandlers = {
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

/** A legacy privilege map as a role `config`: `Lookup tables: [read]` becomes `lookup_tables: {privileges: [read]}`. */
function configOf(privileges: PrivilegeMap): JsonObject {
  return Object.fromEntries(
    Object.entries(privileges).map(([category, actions]) => {
      const list = Array.isArray(actions) ? actions.map(String) : [];
      return [category.trim().toLowerCase().replace(/\s+/g, '_'), { privileges: list.includes('all') ? 'all' : list }];
    }),
  );
}

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
