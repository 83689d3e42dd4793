// The world the effect test (effects.test.ts) starts every operation from, a state document: every item
// that the management spec's answer examples hold, by resource type (the examples name each other's ids,
// so a request's example finds the items it names), a second item of each type that has one only, one
// made-up item of each type that has none, and the few items the request examples name that no answer
// holds (SEEDS). Sub-collection items are put under a parent of the world, and references that name
// nothing of the world are pointed at an item that exists.
import { createResourceEngine } from '../../../src/engine/engine.js';
import { type EngineOperation, operationExtension, type ResourceType } from '../../../src/engine/vocabulary.js';
import type { MockServer } from '../../../src/index.js';
import { deref, type Operation } from '../../../src/spec/bundles.js';
import { SchemaChecks } from '../../../src/spec/checks.js';
import type { JsonObject } from '../../../src/store/resource-store.js';
import { defined } from '../defined.js';
import { specs } from '../helpers.js';

export const document = specs.documents.management;
// The spec's metadata, read with the emulator's own vocabulary reader; the servers under test are separate.
export const engine = createResourceEngine(specs);
export const engineOps: ReadonlyMap<string, EngineOperation> = new Map(
  engine.operations.map((op) => [op.operation.operationId, op]),
);
/** The types the domain keeps, in the state document's `topics`, `api_clients` and `api_keys`. */
const domainTypes = new Set([...engine.types.keys()].filter((name) => !engine.storedTypes.has(name)));

export function typeNamed(name: string): ResourceType {
  return defined(engine.types.get(name), `resource type ${name}`);
}

export type World = Map<string, JsonObject[]>;

/** The spawned emulator, as much of a MockServer as call() and token() use. */
export type Emulator = Pick<MockServer, 'url' | 'clientId' | 'clientSecret'>;

/**
 * Items the request examples name that no answer example holds, added to the world: the connector of
 * the examples' Salesforce connections, with the pick list the pick-list example asks for (hidden state,
 * EXTENSIONS.md: given in a seed, shown by no answer), and the other NetSuite connection a recipe's
 * connection is switched to.
 */
const SEEDS: Record<string, JsonObject[]> = {
  connector: [
    {
      name: 'salesforce',
      title: 'Salesforce',
      $pick_lists: { sobject_fields: [['Invoice number', 'invoice_number']] },
    },
  ],
  connection: [{ id: 77245, name: 'NetSuite sandbox', provider: 'netsuite', application: 'netsuite' }],
};

/** Operations whose answer examples the world takes first: those of reads, which show items as they are, not as a change leaves them. */
const readsFirst = [...specs.operations.filter((op) => op.api === 'management')].sort(
  (a, b) => Number(a.method.toUpperCase() !== 'GET') - Number(b.method.toUpperCase() !== 'GET'),
);

const checks = new SchemaChecks(specs.documents, 'values');
const validators = new Map(
  [...engine.types.values()].map((type) => [type.name, checks.component('management', type.ref)]),
);

/** The values of an operation's 2xx JSON answer examples. */
function answerExamples(op: Operation): unknown[] {
  const values: unknown[] = [];
  for (const [status, response] of Object.entries(op.responses)) {
    if (!status.startsWith('2')) continue;
    const media = deref(document, response).content?.['application/json'];
    for (const example of Object.values(media?.examples ?? {})) values.push(deref(document, example).value);
  }
  return values;
}

/** The objects inside `value` that are valid items of the type. */
export function itemsIn(value: unknown, type: ResourceType, into: JsonObject[]): void {
  if (Array.isArray(value)) for (const each of value) itemsIn(each, type, into);
  else if (value && typeof value === 'object') {
    if (defined(validators.get(type.name), type.name)(value)) into.push(structuredClone(value) as JsonObject);
    else for (const inner of Object.values(value)) itemsIn(inner, type, into);
  }
}

/** A made-up id of the type, none of `taken`: 901, 902, ..., behind the type's prefix; UUIDs fixed. */
function madeUpId(type: ResourceType, taken: ReadonlyMap<string, unknown> = new Map()): string | number {
  for (let n = 901; ; n++) {
    const id =
      type.id.kind === 'integer'
        ? n
        : type.id.kind === 'uuid'
          ? `00000000-0000-4000-8000-${String(n).padStart(12, '0')}`
          : `${type.id.prefix}${n}`;
    if (!taken.has(String(id))) return id;
  }
}

/** Types in an order where each parent comes before its children. */
function parentsFirst(): ResourceType[] {
  const ordered: ResourceType[] = [];
  const visit = (type: ResourceType) => {
    if (ordered.includes(type)) return;
    if (type.parent) visit(typeNamed(type.parent.type));
    ordered.push(type);
  };
  for (const type of engine.types.values()) visit(type);
  return ordered;
}

export const idOf = (type: ResourceType, item: JsonObject) => String(item[type.id.field]);

/** The world as the examples give it, each sub-collection item under a parent of the world. */
function exampleWorld(): World {
  const world: World = new Map();
  for (const type of parentsFirst()) {
    const found: JsonObject[] = [];
    for (const op of readsFirst) {
      if ((operationExtension(document, op, 'x-resource') as JsonObject | undefined)?.type === type.name)
        for (const value of answerExamples(op)) itemsIn(value, type, found);
    }
    const unique = new Map<string, JsonObject>();
    for (const item of found) if (!unique.has(idOf(type, item))) unique.set(idOf(type, item), item);
    const items = unique.size > 0 ? [...unique.values()] : [{ [type.id.field]: madeUpId(type) }];
    // Two items at least, so that a request naming two ids of the type names two items.
    if (items.length === 1 && !type.singleton && unique.size > 0)
      items.push({ [type.id.field]: madeUpId(type, unique) });
    placeUnderParents(world, type, items);
    items.push(...structuredClone(SEEDS[type.name] ?? []));
    world.set(type.name, type.singleton ? singletons(items) : items);
  }
  for (const type of engine.types.values())
    for (const item of world.get(type.name) ?? []) {
      for (const ref of type.refs) pointAtWorld(world, item, ref.field, ref.type);
    }
  return world;
}

/** Each item of a sub-collection under the parent its parent field names, else the world's first parent. */
function placeUnderParents(world: World, type: ResourceType, items: JsonObject[]): void {
  if (!type.parent) return;
  const parentType = typeNamed(type.parent.type);
  const parents = world.get(parentType.name) ?? [];
  const { field } = type.parent;
  for (const item of items) {
    const named = field && parents.find((parent) => idOf(parentType, parent) === String(item[field]));
    const parent = named || defined(parents[0], `a ${parentType.name} of the world`);
    item.$parent = idOf(parentType, parent);
    if (field) item[field] = parent[parentType.id.field];
  }
}

/** One singleton per parent. */
function singletons(items: JsonObject[]): JsonObject[] {
  const seen = new Set<unknown>();
  return items.filter((item) => !seen.has(item.$parent) && seen.add(item.$parent));
}

/** A reference field of a world item that names nothing of the world names the type's first item. */
function pointAtWorld(world: World, item: JsonObject, field: string, typeName: string): void {
  const value = item[field];
  const type = typeNamed(typeName);
  const first = world.get(typeName)?.[0];
  if (value === undefined || value === null || !first) return;
  // A reference to its own type (a folder's parent) that names nothing is left out: pointing it at the
  // first item could make the item its own parent.
  if (type.name === typeOfItem(world, item)) {
    const found = (world.get(typeName) ?? []).some((each) => each !== item && idOf(type, each) === String(value));
    if (!found) item[field] = null;
    return;
  }
  const known = new Set((world.get(typeName) ?? []).map((each) => idOf(type, each)));
  const fix = (one: unknown) => (known.has(String(one)) ? one : sameKind(one, first[type.id.field]));
  item[field] = Array.isArray(value) ? value.map(fix) : fix(value);
}

function typeOfItem(world: World, item: JsonObject): string | undefined {
  return [...world].find(([, items]) => items.includes(item))?.[0];
}

/** `id` as a string or a number, as `like` is. */
export function sameKind(like: unknown, id: unknown): unknown {
  if (typeof like === 'number' && Number.isFinite(Number(id))) return Number(id);
  return typeof like === 'string' ? String(id) : id;
}

/** The state document of a world. */
export function stateDocument(world: World): JsonObject {
  const resources: JsonObject = {};
  const state: JsonObject = { version: 1, resources };
  for (const [name, items] of world) {
    if (domainTypes.has(name))
      state[`${name}s`] = items.map(({ $parent: _parent, ...fields }) => ({
        ...fields,
        // The state document holds a key's secret, which no answer shows.
        ...(name === 'api_key' ? { secret: `secret-${fields.id}` } : {}),
      }));
    else resources[name] = items;
  }
  return state;
}

export async function putState(emulator: Emulator, state: JsonObject): Promise<Response> {
  return fetch(`${emulator.url}/_emulator/state`, { method: 'PUT', body: JSON.stringify(state) });
}

export async function stateOf(emulator: Emulator): Promise<JsonObject> {
  return (await (await fetch(`${emulator.url}/_emulator/state`)).json()) as JsonObject;
}

/**
 * The example world less the items the emulator refuses to load (an example answer may hold a shape a
 * seed does not take); loaded once to find out.
 */
export async function loadableWorld(emulator: Emulator): Promise<World> {
  const world = exampleWorld();
  for (let attempt = 0; attempt < 50; attempt++) {
    const answer = await putState(emulator, stateDocument(world));
    if (answer.status === 204) return world;
    const message = JSON.stringify(await answer.json());
    const [, section, type, index] = /(resources\.)?([a-z_]+)\[(\d+)\]/.exec(message) ?? [];
    const name = section ? type : type?.replace(/s$/, '');
    const items = name === undefined ? undefined : world.get(name);
    if (!items || items.length <= 1) throw new Error(`The example world does not load: ${message}`);
    items.splice(Number(index), 1);
  }
  throw new Error('The example world does not load');
}

/** The items of a type in a state document. */
export function itemsOfState(state: JsonObject, typeName: string): JsonObject[] {
  const resources = state.resources as Record<string, JsonObject[]> | undefined;
  return (domainTypes.has(typeName) ? (state[`${typeName}s`] as JsonObject[]) : resources?.[typeName]) ?? [];
}
