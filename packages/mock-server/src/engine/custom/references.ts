// What the access handlers share (properties, tags, grants, roles, privileges, deployment reviewers,
// role migrations): the ids a body names and the items they name, labels, and an operation as one
// acting on another type.
import type { JsonObject, StoredItem } from '../../store/resource-store.js';
import type { TypeName, Workspace } from '../contract.js';
import { missingReference } from '../errors.js';
import type { EngineOperation, ResourceType } from '../vocabulary.js';
import { USER_GROUP } from './groups.js';

export function idList(sent: unknown): string[] {
  return Array.isArray(sent) ? sent.map(String) : [];
}

export function numbers(sent: unknown): number[] {
  return Array.isArray(sent) ? sent.map(Number) : [];
}

/** The items of the type with these ids, each with its type; the first id that names none is refused. */
export async function existing(
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

export const label = (typeName: string) =>
  typeName === USER_GROUP ? 'collaborator group' : typeName.replace(/_/g, ' ');

export const sameId = (a: unknown, b: unknown) => a !== undefined && a !== null && String(a) === String(b);

export function typeNamed(workspace: Workspace, name: TypeName): ResourceType {
  const type = workspace.types.get(name);
  if (!type) throw new Error(`No resource type '${name}'`);
  return type;
}

/** The operation as one acting on another type (for the items a handler writes besides its own). */
export function asType(workspace: Workspace, op: EngineOperation, typeName: TypeName): EngineOperation {
  return { ...op, type: typeNamed(workspace, typeName), set: {}, add: undefined, remove: undefined, clear: undefined };
}

/** A collaborator as a grant or a review names it. */
export function collaborator(member: StoredItem): JsonObject {
  return { id: Number(member.id), name: String(member.value.name), email: String(member.value.email) };
}
