// Properties as assets of the packages: the environment's properties as `account_property` assets, a
// project's as `project_property`, one asset per property. Properties have no IDs (the emulator keeps
// one map per workspace and per project, properties.ts), so an asset's id is its place: the
// environment's numbered 1, 2, ... in the order they were made, the projects' likewise, across the
// projects in the order those were made. A package holds each as `<name>.<type>.json`, `{name, value}`
// (chosen: the platform's format of these files is not documented): the environment's at the top of
// the zip, a project's in its project's folder. An import creates the properties the target lacks and
// keeps the value of each it has: a value is its environment's (an endpoint, a mailbox), which a
// promotion from dev must not overwrite.

import type { JsonObject, StoredItem } from '../../store/resource-store.js';
import type { Workspace } from '../contract.js';
import { resolve, type SchemaNode } from '../schema.js';
import { type PropertyOwner, propertiesIn, putProperties, workspacePropertyOwner } from './properties.js';

export const PROPERTY_TYPES = ['account_property', 'project_property'] as const;
export type PropertyType = (typeof PROPERTY_TYPES)[number];

export const isPropertyType = (type: unknown): type is PropertyType =>
  (PROPERTY_TYPES as readonly unknown[]).includes(type);

/** A property as an asset. */
export interface HeldProperty {
  type: PropertyType;
  id: number;
  /** What a manifest keeps to find it again: its owner and its name. */
  key: string;
  name: string;
  value: unknown;
  /** The folder holding it: its project's; undefined for the environment's, which belong to no folder. */
  folderId: unknown;
}

/** Every property of the workspace as an asset: the environment's, then each project's. */
export async function heldProperties(workspace: Workspace): Promise<HeldProperty[]> {
  const environment = await workspacePropertyOwner(workspace);
  const held: HeldProperty[] = Object.entries(propertiesIn(environment.item)).map(([name, value], index) => ({
    type: 'account_property',
    id: index + 1,
    key: keyOf(environment, name),
    name,
    value,
    folderId: undefined,
  }));
  let id = 0;
  for (const project of await workspace.store.list('project')) {
    const owner: PropertyOwner = { type: 'project', item: project };
    for (const [name, value] of Object.entries(propertiesIn(project))) {
      id += 1;
      held.push({
        type: 'project_property',
        id,
        key: keyOf(owner, name),
        name,
        value,
        folderId: project.value.folder_id,
      });
    }
  }
  return held;
}

const keyOf = ({ type, item }: PropertyOwner, name: string) => JSON.stringify([type, item.id, name]);

/** A property's file in a package. */
export const propertyFile = ({ name, value }: HeldProperty): JsonObject => ({ name, value });

/**
 * Where an imported property goes: the environment's properties, or those of the import folder's
 * project (undefined outside a project).
 */
export async function propertyOwnerFor(
  workspace: Workspace,
  type: PropertyType,
  target: StoredItem,
): Promise<PropertyOwner | undefined> {
  if (type === 'account_property') return workspacePropertyOwner(workspace);
  const projectId = target.value.project_id;
  const project =
    projectId === null || projectId === undefined ? undefined : await workspace.store.get('project', String(projectId));
  return project && { type: 'project', item: project };
}

/** Why a property file's name and value are not a property (PropertyMap's rules); undefined when they are. */
export function propertyFileProblem(workspace: Workspace, content: JsonObject): string | undefined {
  const { document } = workspace.values;
  const map = resolve(document, { $ref: '#/components/schemas/PropertyMap' });
  const limitOf = (node: unknown) => Number(resolve(document, node as SchemaNode).maxLength);
  const [nameMax, valueMax] = [limitOf(map.propertyNames), limitOf(map.additionalProperties)];
  const { name, value } = content;
  if (String(name).length > nameMax) return `a property name is at most ${nameMax} characters`;
  if (typeof value !== 'string') return 'a property file holds its `value`, a string';
  if (value.length > valueMax) return `a property value is at most ${valueMax} characters`;
  return undefined;
}

/** What an import did to a property: made with the file's value, or kept with the target's. */
export type PropertyResult = 'created' | 'unchanged';

/**
 * The owner's properties once the files are imported: each it lacks added with the file's value, each
 * it has kept as it is; with what happened to each file's.
 */
export async function addMissingProperties(
  workspace: Workspace,
  owner: PropertyOwner,
  files: readonly JsonObject[],
): Promise<PropertyResult[]> {
  const properties = { ...propertiesIn(owner.item) };
  const results = files.map(({ name, value }): PropertyResult => {
    if (Object.hasOwn(properties, String(name))) return 'unchanged';
    properties[String(name)] = value;
    return 'created';
  });
  if (results.includes('created')) await putProperties(workspace, owner, properties);
  return results;
}

/** How many properties the owner would hold once the files are imported. */
export function propertiesAfter(owner: PropertyOwner, files: readonly JsonObject[]): number {
  return new Set([...Object.keys(propertiesIn(owner.item)), ...files.map(({ name }) => String(name))]).size;
}

/** The asset id the property of that name has now in the owner. */
export async function propertyId(
  workspace: Workspace,
  owner: PropertyOwner,
  name: string,
): Promise<number | undefined> {
  const key = keyOf(owner, name);
  return (await heldProperties(workspace)).find((property) => property.key === key)?.id;
}
