// Account properties: a map per workspace and per project, kept in a hidden `$properties` field of the
// workspace singleton or of the project.
import { Refused } from '../../errors.js';
import type { JsonObject, StoredItem } from '../../store/resource-store.js';
import type { HandlerRegistry, TypeName, Workspace } from '../contract.js';
import { missingReference } from '../errors.js';
import { isObject } from '../schema.js';
import { complete } from '../values.js';
import type { EngineOperation } from '../vocabulary.js';
import { typeNamed } from './references.js';

const PROPERTIES = '$properties';
/** Most properties a workspace, or a project, holds (PropertyMap in the spec). */
export const PROPERTY_LIMIT = 1000;

/** Where a map of properties is kept: the workspace singleton, or a project. */
export interface PropertyOwner {
  type: TypeName;
  item: StoredItem;
}

export const propertiesHandlers = {
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
    await putProperties(workspace, { type, item }, merged);
    return { body: { success: true } };
  },
} satisfies Partial<HandlerRegistry>;

/** Where the properties live: the project named by `project_id` (it must exist), else the workspace. */
async function propertyOwner(
  workspace: Workspace,
  op: EngineOperation,
  params: Readonly<JsonObject>,
): Promise<PropertyOwner> {
  if (params.project_id !== undefined) {
    const project = await workspace.store.get('project', String(params.project_id));
    if (!project) throw missingReference(op.operation, 'project_id', 'project', params.project_id);
    return { type: 'project', item: project };
  }
  return workspacePropertyOwner(workspace);
}

/** The workspace singleton, which keeps the environment properties. */
export async function workspacePropertyOwner(workspace: Workspace): Promise<PropertyOwner> {
  const held = await workspace.store.get('workspace', 'workspace');
  if (held) return { type: 'workspace', item: held };
  // The workspace singleton as a get answers it before anything was written.
  const type = typeNamed(workspace, 'workspace');
  const value = complete(workspace.values, type.schema, { created_at: workspace.values.now });
  return { type: 'workspace', item: { id: 'workspace', value } };
}

/** The owner's properties, name to value, in the order they were made. */
export function propertiesIn(item: StoredItem): JsonObject {
  const held = item.value[PROPERTIES];
  return isObject(held) ? held : {};
}

/** The owner's properties become `properties`. */
export async function putProperties(workspace: Workspace, { type, item }: PropertyOwner, properties: JsonObject) {
  await workspace.store.put(type, { ...item, value: { ...item.value, [PROPERTIES]: properties } });
}
