// The requests of the effect test (effects.test.ts): each operation's path parameters, query and body,
// from the spec's examples, with the ids they name pointed at items of the world (effect-world.ts): the
// item the operation acts on, its parent, the fields `refs`, `from` and `x-resource`'s references name.
import { strToU8, zipSync } from 'fflate';
import type { Effect, EngineOperation, ResourceType } from '../../../src/engine/vocabulary.js';
import type { Operation } from '../../../src/spec/bundles.js';
import type { JsonObject } from '../../../src/store/resource-store.js';
import { exampleBody, exampleParameter } from '../helpers.js';
import { engineOps, idOf, sameKind, typeNamed, type World } from './effect-world.js';

/** An item the operation acts on or a read reads back (`created`: a new one, not the world's). */
export type Target = { type: ResourceType; id: string; parent?: string; created?: boolean };

/** How the operation's request names items: the world, the item it acts on, and the ids given out. */
export interface Scene {
  world: World;
  /** The item the path names (item operations), or the effect's item (`by`). */
  target?: { type: ResourceType; item: JsonObject };
  /** A request field (path, query or body) naming items, by the type it names. */
  refs: Record<string, string>;
  /** Example id -> world id, per type, so that one example id names one item throughout the request. */
  mapped: Map<string, Map<string, unknown>>;
  /** The scalar values of the request's example, which the item an unknown id becomes should share. */
  hints: Set<string>;
}

export const first = (scene: Scene, typeName: string): JsonObject | undefined => scene.world.get(typeName)?.[0];

/**
 * An id sent for items of the type that names no world item becomes one: of those the request names
 * no other way, the one sharing most values with the request (for `adapter_name: netsuite`, a NetSuite
 * connection). One example id becomes one world id throughout the request.
 */
function worldId(scene: Scene, typeName: string, sent: unknown): unknown {
  const type = typeNamed(typeName);
  const items = scene.world.get(typeName) ?? [];
  const mapped = scene.mapped.get(typeName) ?? new Map<string, unknown>();
  scene.mapped.set(typeName, mapped);
  if (items.some((item) => idOf(type, item) === String(sent))) {
    mapped.set(String(sent), sent);
    return sent;
  }
  if (!mapped.has(String(sent))) {
    const taken = new Set([...mapped.values()].map(String));
    const free = items.filter((item) => !taken.has(idOf(type, item)));
    const shared = (item: JsonObject) => Object.values(item).filter((value) => scene.hints.has(String(value))).length;
    const best = free.sort((a, b) => shared(b) - shared(a))[0] ?? items[0];
    mapped.set(String(sent), best ? sameKind(sent, best[type.id.field]) : sent);
  }
  return mapped.get(String(sent));
}

/** The scalar values in a request example. */
export function scalars(value: unknown, into = new Set<string>()): Set<string> {
  if (Array.isArray(value)) for (const each of value) scalars(each, into);
  else if (value && typeof value === 'object') for (const inner of Object.values(value)) scalars(inner, into);
  else if (value !== undefined && value !== null) into.add(String(value));
  return into;
}

/** Points the ids at `path` (dotted; arrays on the way are walked) of `value` at world items of the type. */
function mapIds(scene: Scene, value: unknown, path: string[], typeName: string): unknown {
  if (Array.isArray(value)) return value.map((each) => mapIds(scene, each, path, typeName));
  if (path.length === 0) return value === null || value === undefined ? value : worldId(scene, typeName, value);
  if (!value || typeof value !== 'object') return value;
  const [key = '', ...rest] = path;
  const object = value as JsonObject;
  if (object[key] !== undefined) object[key] = mapIds(scene, object[key], rest, typeName);
  return value;
}

const isQueryParameter = (op: Operation, name: string) =>
  op.parameters.some((parameter) => parameter.in === 'query' && parameter.name === name);

function pathNames(op: Operation): string[] {
  return [...op.path.matchAll(/\{([^}]+)\}/g)].map((m) => m[1] ?? '');
}

/** The path parameters: the item acted on and its parent, the items `refs` and `params` name, else the examples. */
export function pathParams(scene: Scene, op: Operation, item?: Target) {
  const served = engineOps.get(op.operationId);
  const params: Record<string, string> = {};
  for (const name of pathNames(op)) {
    const declared = op.parameters.find((p) => p.in === 'path' && p.name === name);
    params[name] = String(pathValue(scene, served, name, item) ?? (declared ? exampleParameter(declared) : 1));
  }
  return params;
}

function pathValue(scene: Scene, served: EngineOperation | undefined, name: string, item?: Target): unknown {
  const firstId = (typeName: string) => {
    const found = first(scene, typeName);
    return found?.[typeNamed(typeName).id.field];
  };
  const own = served && item && item.type.name === served.type.name ? item : undefined;
  // A new item read back is named by its own id, whatever the request's `refs` named by that parameter.
  if (own?.created && served?.param === name) return own.id;
  if (scene.refs[name]) return firstId(scene.refs[name]);
  if (!served) return undefined;
  // A parameter stored in a reference field names that type's item (create_api_endpoint's collection `id`).
  const field = served.params[name];
  const ref = field && served.type.refs.find((each) => each.field === field);
  if (ref) return firstId(ref.type);
  if (served.param === name) return firstId(served.type.name);
  if (served.parentParam === name && served.type.parent) return own?.parent ?? firstId(served.type.parent.type);
  return undefined;
}

/** The query: required parameters from their examples, and the request fields naming items, from the world. */
export function queryOf(
  scene: Scene,
  op: Operation,
  effect?: Effect,
): Record<string, string | number | (string | number)[]> {
  const query: Record<string, string | number | (string | number)[]> = {};
  for (const parameter of op.parameters.filter((p) => p.in === 'query')) {
    const named = namedType(scene, effect, parameter.name);
    if (named) {
      const id = first(scene, named)?.[typeNamed(named).id.field];
      query[parameter.name] = parameter.schema?.type === 'array' ? [String(id)] : String(id);
    } else if (parameter.required) query[parameter.name] = exampleParameter(parameter);
  }
  return query;
}

/** The type of the items a request field names: `refs`, or the effect's own ids (`from`). */
function namedType(scene: Scene, effect: Effect | undefined, field: string): string | undefined {
  if (scene.refs[field]) return scene.refs[field];
  if (effect && effect.from === field) return idsType(effect);
  return undefined;
}

/** The type of the ids an effect's `from` names: of the item's field for an action's add or remove. */
function idsType(effect: Effect): string | undefined {
  if (!effect.field) return effect.type;
  return typeNamed(effect.type).refs.find((ref) => ref.field === effect.field)?.type;
}

/** The body: the operation's first example, its fields naming items pointed at the world. */
function bodyOf(scene: Scene, op: Operation, effect: Effect): unknown {
  const body = exampleBody(op);
  if (!body || typeof body !== 'object') return body;
  // `when` first: the ids it gives are pointed at the world like the example's.
  for (const [name, value] of Object.entries(effect.when))
    if (!isQueryParameter(op, name)) (body as JsonObject)[name] = structuredClone(value);
  const served = engineOps.get(op.operationId);
  const fields = (served?.body ? (body as JsonObject)[served.body] : body) as JsonObject | undefined;
  if (served && fields && typeof fields === 'object')
    for (const ref of served.type.refs) mapIds(scene, fields, [ref.field], ref.type);
  for (const [field, typeName] of Object.entries(scene.refs)) mapIds(scene, body, field.split('.'), typeName);
  const from = effect.from && idsType(effect);
  if (effect.from && from) mapIds(scene, body, effect.from.split('.'), from);
  if (effect.by && scene.target) {
    const { type, item } = scene.target;
    (body as JsonObject)[effect.by.request] = item[effect.by.field || type.id.field];
  }
  return body;
}

/** A package to import: a zip holding the manifest and one lookup table (the JSON examples cannot hold a zip). */
export function packageZip(): Uint8Array {
  const table = { name: 'Effect check', schema: JSON.stringify([{ label: 'code' }]) };
  return zipSync({
    'manifest.json': strToU8(JSON.stringify({ name: 'Effect check' })),
    'effect_check.lookup_table.json': strToU8(JSON.stringify(table)),
  });
}

/** The operation's request on the scene: path parameters, query and body. */
export interface Request {
  params: Record<string, string>;
  query: JsonObject;
  body: unknown;
}

export function requestFor(scene: Scene, op: Operation, effect: Effect | undefined, target?: Target): Request {
  const query: JsonObject = queryOf(scene, op, effect);
  const body = effect ? bodyOf(scene, op, effect) : exampleBody(op);
  for (const [name, value] of Object.entries(effect?.when ?? {}))
    if (isQueryParameter(op, name)) query[name] = String(value);
  return { params: pathParams(scene, op, target), query, body };
}
