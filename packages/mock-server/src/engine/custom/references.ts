// What the hand-written handlers share: the ids a body names and the items they name (a 422 for one
// that names none, in a reference; a 404, in a batch), labels, and an operation as one acting on
// another type.
import type { JsonObject, StoredItem } from '../../store/resource-store.js';
import type { TypeName, Workspace } from '../contract.js';
import { missingReference, notFound } from '../errors.js';
import { isObject } from '../schema.js';
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

/** The ids of a body field (one id or a list). */
export function idsIn(body: unknown, field: string): unknown[] {
  const sent = isObject(body) ? body[field] : undefined;
  return Array.isArray(sent) ? sent : sent === undefined ? [] : [sent];
}

/** The items of the operation's type with these ids; a 404 for the first id that names none. */
export async function itemsNamed(workspace: Workspace, op: EngineOperation, ids: unknown[]): Promise<StoredItem[]> {
  const items: StoredItem[] = [];
  for (const id of ids) {
    const item = await workspace.store.get(op.type.name, String(id));
    if (!item) throw notFound(op.type.name.replace(/_/g, ' '), id);
    items.push(item);
  }
  return items;
}
