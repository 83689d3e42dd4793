// Projects are folders at the top level, as the platform documents: a folder created without a parent
// (or right under the home folder) is a project's folder, and the project and its folder live and die
// together. The home folder (the workspace's `root_folder_id`) is made on first need, and references a
// request leaves out default to what exists: the home folder, the project of the folder named.

import { RESOURCE_TYPES } from '../../generated/resource-types.js';
import type { JsonObject, StoredItem } from '../../store/resource-store.js';
import type { HandlerRegistry, TypeName, Workspace } from '../contract.js';
import { conflict, invalidFields, missingReference, notFound } from '../errors.js';
import { listPage } from '../listing.js';
import { propertiesOf, requiredOf, resolve, typesOf } from '../schema.js';
import type { EngineOperation, ResourceType } from '../vocabulary.js';

const FOLDER = RESOURCE_TYPES.folder;
const PROJECT = RESOURCE_TYPES.project;

/** The operation `op`, acting on items of another type (a handler that writes more than its own type). */
export function actingOn(workspace: Workspace, op: EngineOperation, typeName: TypeName): EngineOperation {
  const type = workspace.types.get(typeName);
  if (!type) throw new Error(`No resource type '${typeName}'`);
  return { ...op, type, set: {}, add: undefined, remove: undefined, clear: undefined };
}

/** The home folder (marked `$home`, kept but never answered), made on first need. */
export async function homeFolder(workspace: Workspace, op: EngineOperation): Promise<StoredItem> {
  const held = (await workspace.store.list(FOLDER)).find((folder) => folder.value.$home === true);
  if (held) return held;
  const value = await workspace.create(
    actingOn(workspace, op, FOLDER),
    { name: 'Home', parent_id: null, is_project: false, project_id: null, $home: true },
    undefined,
  );
  return { id: String(value.id), value };
}

/** The project whose folder holds `folderId` (at any depth); undefined in the home folder. */
async function projectOfFolder(workspace: Workspace, folderId: unknown): Promise<unknown> {
  const folder = await workspace.store.get(FOLDER, String(folderId));
  return folder?.value.project_id ?? undefined;
}

/**
 * Values for the reference fields a create left out that the item requires: a folder reference is the
 * home folder; a project reference is the project of the item's folder, else the workspace's first
 * project (none: 400 naming the field). Never a value from the spec's examples, which names nothing.
 */
export async function referenceDefaults(
  workspace: Workspace,
  op: EngineOperation,
  type: ResourceType,
  fields: JsonObject,
): Promise<JsonObject> {
  const required = requiredOf(type.schema);
  const defaults: JsonObject = {};
  for (const ref of type.refs) {
    if (fields[ref.field] !== undefined || !required.includes(ref.field)) continue;
    if (typesOf(resolve(workspace.values.document, propertiesOf(type.schema)[ref.field] ?? {})).includes('null'))
      continue;
    if (ref.type === FOLDER) defaults[ref.field] = Number((await homeFolder(workspace, op)).id);
    if (ref.type === PROJECT) {
      const fromFolder =
        fields.folder_id === undefined ? undefined : await projectOfFolder(workspace, fields.folder_id);
      const first = (await workspace.store.list(PROJECT))[0];
      const project = fromFolder ?? first?.value.id;
      if (project === undefined || project === null)
        throw invalidFields({ [ref.field]: 'is required: the workspace has no project to hold it' });
      defaults[ref.field] = project;
    }
  }
  return defaults;
}

export const projectsHandlers = {
  /**
   * `list_folders`: the direct sub-folders of `parent_id`, at any depth with `with_nested_folders`;
   * without `parent_id`, those of the home folder (and folders seeded without a parent). The home
   * folder itself is the root and never listed.
   */
  'folders.list': async (workspace, op, { params }) => {
    const folders = (await workspace.store.list(FOLDER)).map((item) => item.value);
    const home = folders.find((folder) => folder.$home === true);
    const top = (folder: JsonObject) =>
      folder.parent_id === null || folder.parent_id === undefined || folder.parent_id === home?.id;
    const under = (parents: Set<unknown>) => (folder: JsonObject) =>
      folder.$home !== true && (parents.size === 0 ? top(folder) : parents.has(folder.parent_id));
    const parents = new Set<unknown>(params.parent_id === undefined ? [] : [params.parent_id]);
    let found = folders.filter(under(parents));
    const listed = [...found];
    while (params.with_nested_folders === true && found.length > 0) {
      found = folders.filter(under(new Set(found.map((folder) => folder.id)))).filter((f) => !listed.includes(f));
      listed.push(...found);
    }
    return listPage(op.operation, params, listed, 'id');
  },

  /**
   * `create_folder`: under `parent_id`, a folder of the parent's project; without one (or right under
   * the home folder), a project: the folder (`is_project`, in the home folder) and its project, with
   * the project's id as the folder's `project_id`. An unknown parent is a 422.
   */
  'folders.create': async (workspace, op, { body }) => {
    // The other fields the spec lets a client send are stored as given, as the generic create does.
    const { name, parent_id: parentSent, ...sent } = body as { name: string; parent_id?: string | number };
    const home = await homeFolder(workspace, op);
    const parent = parentSent === undefined ? home : await workspace.store.get(FOLDER, String(parentSent));
    if (!parent) throw missingReference(op.operation, 'parent_id', FOLDER, parentSent);
    const parentId = Number(parent.id);
    if (parent.id !== home.id) {
      const project_id = parent.value.project_id ?? null;
      return {
        item: await workspace.create(
          op,
          { ...sent, name, parent_id: parentId, is_project: false, project_id },
          undefined,
        ),
      };
    }
    const folder = await workspace.create(
      op,
      { ...sent, name, parent_id: parentId, is_project: true, project_id: null },
      undefined,
    );
    const project = await workspace.create(
      actingOn(workspace, op, PROJECT),
      { name, description: '', folder_id: folder.id },
      undefined,
    );
    const stored = await workspace.store.get(FOLDER, String(folder.id));
    if (!stored) throw notFound(FOLDER, folder.id);
    return { item: await workspace.update(op, stored, { project_id: project.id }) };
  },

  /**
   * `update_folder`: a new name (a project's folder renames its project too) or a new parent. A
   * project's folder cannot move, and a folder cannot move into itself, into one of its sub-folders or
   * under the home folder (it would become a project): 422. A moved folder and its sub-folders take
   * the `project_id` of their new place. An unknown parent is a 422.
   */
  'folders.update': async (workspace, op, { params, body }) => {
    const folder = await workspace.itemOf(op, params);
    const { name, parent_id: parentSent } = body as { name?: string; parent_id?: string | number };
    const fields: JsonObject = name === undefined ? {} : { name };
    if (parentSent !== undefined && Number(parentSent) !== folder.value.parent_id) {
      if (folder.value.is_project === true) throw refusal(op, 'parent_id', "a project's folder cannot move");
      const parent = await workspace.store.get(FOLDER, String(parentSent));
      if (!parent) throw missingReference(op.operation, 'parent_id', FOLDER, parentSent);
      if (parent.value.$home === true) throw refusal(op, 'parent_id', 'a folder cannot become a project');
      const inside = await subtree(workspace, folder.id);
      if (inside.some((each) => each.id === parent.id))
        throw refusal(op, 'parent_id', 'a folder cannot move into itself or its sub-folders');
      fields.parent_id = Number(parent.id);
      fields.project_id = parent.value.project_id ?? null;
      for (const each of inside)
        if (each.id !== folder.id) await workspace.update(op, each, { project_id: fields.project_id });
    }
    const updated = await workspace.update(op, folder, fields);
    if (folder.value.is_project === true && name !== undefined) await renameProject(workspace, op, updated);
    return { item: updated };
  },

  /** `update_project`: its name and description; a new name renames the project's folder too. */
  'projects.update': async (workspace, op, { params, body }) => {
    const project = await workspace.itemOf(op, params);
    const { name, description } = body as { name?: string; description?: string | null };
    const fields: JsonObject = {};
    if (name !== undefined) fields.name = name;
    if (description !== undefined) fields.description = description;
    const updated = await workspace.update(op, project, fields);
    const folder = await workspace.store.get(FOLDER, String(updated.folder_id));
    if (folder && name !== undefined) await workspace.update(actingOn(workspace, op, FOLDER), folder, { name });
    return { item: updated };
  },

  /**
   * `delete_project`: the project goes with its folder and everything in it (sub-folders, recipes,
   * connections, data tables, lookup tables, API collections), as documented; nothing is refused.
   */
  'projects.delete': async (workspace, op, { params }) => {
    const project = await workspace.itemOf(op, params);
    const folder = await workspace.store.get(FOLDER, String(project.value.folder_id));
    if (folder) await workspace.delete(actingOn(workspace, op, FOLDER), folder, true);
    if (await workspace.store.get(PROJECT, project.id)) await workspace.delete(op, project, true);
    return { item: project.value };
  },
} satisfies Partial<HandlerRegistry>;

/** The folder and every folder below it. */
async function subtree(workspace: Workspace, folderId: string): Promise<StoredItem[]> {
  const folders = await workspace.store.list(FOLDER);
  const found = folders.filter((folder) => folder.id === folderId);
  for (let at = 0; at < found.length; at += 1) {
    const id = Number(found[at]?.id);
    found.push(...folders.filter((folder) => folder.value.parent_id === id));
  }
  return found;
}

/** The project whose folder was renamed takes the folder's name. */
async function renameProject(workspace: Workspace, op: EngineOperation, folder: JsonObject): Promise<void> {
  const project = await workspace.store.get(PROJECT, String(folder.project_id));
  if (project) await workspace.update(actingOn(workspace, op, PROJECT), project, { name: folder.name });
}

/** A change the folder rules forbid, with the operation's conflict status (422 for update_folder). */
function refusal(op: EngineOperation, field: string, why: string) {
  return conflict(op.conflict, `${field}: ${why}`, field, why);
}
