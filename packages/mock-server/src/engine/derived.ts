// Fields computed from state (`derived` on a resource schema, EXTENSIONS.md): the engine gives them
// their value whenever it writes an item and whenever it answers one, so they follow what they are
// made from (a skill's `running` its recipe's, an MCP server's `tools_count` its tools) and never
// hold a value of their own.
import type { JsonObject, StoredItem } from '../store/resource-store.js';
import type { Workspace } from './contract.js';
import type { Derivation, ResourceType } from './vocabulary.js';

/** What a hook may know of the request besides the state: the Host it was sent to (URLs of the emulator). */
export interface DeriveContext {
  host?: string;
}

/** A hand-written derived field (`{hook: name}`): its value for the item, from the state. */
export type DerivationHook = (workspace: Workspace, value: JsonObject, context: DeriveContext) => Promise<unknown>;

/** How deep a derived field may follow references whose items have derived fields of their own. */
const MAX_DEPTH = 3;

/** The item with its derived fields computed, in declaration order (a later one sees the earlier ones). */
export async function derive(
  workspace: Workspace,
  hooks: Readonly<Record<string, DerivationHook>>,
  type: ResourceType,
  value: JsonObject,
  context: DeriveContext,
  depth = 0,
): Promise<JsonObject> {
  if (type.derived.length === 0 || depth > MAX_DEPTH) return value;
  const result = { ...value };
  for (const derivation of type.derived) {
    const computed = await derivedValue(workspace, hooks, type, derivation, result, context, depth);
    if (computed !== undefined) result[derivation.field] = computed;
  }
  return result;
}

/** The derived value; undefined keeps the field as it is (the item a reference names is gone). */
async function derivedValue(
  workspace: Workspace,
  hooks: Readonly<Record<string, DerivationHook>>,
  type: ResourceType,
  derivation: Derivation,
  value: JsonObject,
  context: DeriveContext,
  depth: number,
): Promise<unknown> {
  const id = String(value[type.id.field]);
  switch (derivation.kind) {
    case 'same':
      return value[derivation.source];
    case 'count':
      return (await related(workspace, derivation.type, id, derivation.by)).length;
    case 'any':
      return (await related(workspace, derivation.type, id)).some((child) => child.value[derivation.where] === true);
    case 'hook': {
      const hook = hooks[derivation.hook];
      if (!hook) throw new Error(`No derivation hook '${derivation.hook}'`);
      return hook(workspace, value, context);
    }
    case 'from':
      return fromReference(workspace, hooks, derivation, value[derivation.from], context, depth);
  }
}

/** The children of the item of this id (`by` absent), or the items whose field `by` holds it. */
async function related(workspace: Workspace, typeName: string, id: string, by?: string): Promise<StoredItem[]> {
  const type = workspace.types.get(typeName);
  if (!type) throw new Error(`No resource type '${typeName}'`);
  if (by === undefined) return workspace.store.list(type.name, id);
  const holds = (held: unknown) => (Array.isArray(held) ? held : [held]).some((each) => String(each) === id);
  return (await workspace.store.list(type.name)).filter((item) => holds(item.value[by]));
}

async function fromReference(
  workspace: Workspace,
  hooks: Readonly<Record<string, DerivationHook>>,
  derivation: Extract<Derivation, { kind: 'from' }>,
  id: unknown,
  context: DeriveContext,
  depth: number,
): Promise<unknown> {
  if (id === null || id === undefined) return derivation.list ? [] : null;
  const type = workspace.types.get(derivation.type);
  const stored = type && (await workspace.store.get(type.name, String(id)));
  if (!type || !stored) return undefined;
  const referenced = await derive(workspace, hooks, type, stored.value, context, depth + 1);
  if (derivation.take !== undefined) return referenced[derivation.take];
  const picked = Object.fromEntries((derivation.pick ?? []).map((field) => [field, referenced[field] ?? null]));
  return derivation.list ? [picked] : picked;
}
