// Project grants: a collaborator's or a group's project role on a project, in one environment
// (`upsert_project_grants`, `update_project_grant`); the role migrations make grants the same way.
import type { JsonObject, StoredItem } from '../../store/resource-store.js';
import type { HandlerRegistry, TypeName, Workspace } from '../contract.js';
import { missingReference, notFound } from '../errors.js';
import { isObject } from '../schema.js';
import type { EngineOperation } from '../vocabulary.js';
import { USER_GROUP } from './groups.js';
import { asType, collaborator, label, sameId } from './references.js';
import { ENVIRONMENTS, type Environment, recountRoles } from './roles.js';

/** Environment ids as grants show them; the emulator's workspaces have these three. */
const ENVIRONMENT_IDS: Record<Environment, number> = { dev: 1, test: 2, prod: 3 };

export const grantsHandlers = {
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
} satisfies Partial<HandlerRegistry>;

export interface Assignee {
  typeName: TypeName;
  item: StoredItem;
}

export const projectOf = (grant: StoredItem): JsonObject => (isObject(grant.value.project) ? grant.value.project : {});

export function envOf(grant: StoredItem): Environment {
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
export async function saveGrant(
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
