// Reads the `x-resource` extensions of the management spec (spec/management/EXTENSIONS.md) into the
// resource types and operations the engine serves, and each operation's declared effect on state
// (`effect`, `x-effect`, and what create, update, delete and actions imply). A mistake in an annotation
// stops the start with a message naming the schema or operation, so annotators find it at once.

import {
  DERIVATION_KINDS,
  EFFECT_KEYS,
  EFFECT_VERBS,
  type EffectVerb,
  HANDLER_EFFECTS,
  ITEM_OP_KINDS,
  MATCHES,
  type Match,
  ON_DELETE,
  type OnDelete,
  OP_KINDS,
  OPERATION_KEYS,
  type OpKind,
  TYPE_KEYS,
} from '../generated/vocabulary.js';
import { deref, type OpenApiDocument, type Operation, type SchemaObject } from '../spec/bundles.js';
import type { JsonObject } from '../store/resource-store.js';
import { isObject, propertiesOf, resolve, stringOf, typesOf } from './schema.js';

export { EFFECT_VERBS, type EffectVerb, MATCHES, type Match, type OnDelete, OP_KINDS, type OpKind };

export type IdKind = 'integer' | 'uuid' | 'string';

export interface Transition {
  from: unknown[];
  to: unknown;
}

export interface StateMachine {
  field: string;
  initial: unknown;
  transitions: Record<string, Transition>;
}

declare const readFromSpec: unique symbol;
/**
 * A resource type's name as the engine read it from the spec at start: the bundled spec's (see
 * ResourceTypeName), or those of a spec being edited, which may declare types the generated list does
 * not hold yet.
 */
export type SpecTypeName = string & { readonly [readFromSpec]: true };

/**
 * A field the engine computes from state whenever it writes or answers an item (`derived`,
 * EXTENSIONS.md): another field of the item, a field of the item another field names, a count, or a
 * hand-written hook.
 */
export type Derivation =
  | { field: string; kind: 'same'; source: string }
  | { field: string; kind: 'from'; from: string; type: string; take?: string; pick?: string[]; list: boolean }
  | { field: string; kind: 'count'; type: string; by?: string }
  | { field: string; kind: 'any'; type: string; where: string }
  | { field: string; kind: 'hook'; hook: string };

export interface ResourceType {
  name: SpecTypeName;
  /** `#/components/schemas/<name>`: how answers refer to the resource's schema. */
  ref: string;
  schema: SchemaObject;
  id: { field: string; kind: IdKind; prefix: string };
  parent?: { type: string; field?: string };
  refs: { field: string; type: string; onDelete: OnDelete }[];
  order: 'creation' | 'newest_first';
  versions?: { type: string; number: string };
  singleton: boolean;
  states?: StateMachine;
  /** In declaration order: a later one sees the values of the earlier ones. */
  derived: Derivation[];
}

/** The type's id from its counter's next value: the number, or the string behind the type's prefix. */
export function countedId(type: ResourceType, next: number): string | number {
  return type.id.kind === 'integer' ? next : `${type.id.prefix}${next}`;
}

export interface Filter {
  param: string;
  field: string;
  match: Match;
  /** The resource type whose item the (path) parameter names, where the field is no `refs` field. */
  ref?: string;
}

export interface EngineOperation {
  operation: Operation;
  type: ResourceType;
  /** What the operation changes, as the spec declares it (`x-effect` and what x-resource implies); undefined for a read. */
  effect?: DeclaredEffect;
  op: OpKind;
  /** The path parameter naming the item (item operations) and the one naming the parent (sub-collections). */
  param?: string;
  parentParam?: string;
  body?: string;
  /** The body may also hold the item's fields flat, without the `body` wrapper. */
  flat: boolean;
  params: Record<string, string>;
  /** `{<field>: <request field>}`: fields that store the value another field of the request gave. */
  mirror: Record<string, string>;
  filters: Filter[];
  set: JsonObject;
  add?: { field: string; from: string };
  remove?: { field: string; from: string };
  /** An action that deletes every item of this sub-collection type of the item (truncate). */
  clear?: string;
  conflict: number;
  force?: string;
  handler?: string;
  /** `{<answer field>: <item field>}`: an answer that does not hold the item takes these of its fields. */
  answer: Record<string, string>;
}

/** `x-resource` on a resource schema, as written (EXTENSIONS.md). */
interface TypeAnnotation {
  type?: unknown;
  id?: string | { field?: string; prefix?: string };
  parent?: { type: string; field?: string };
  refs?: Record<string, string | { type: string; on_delete?: OnDelete }>;
  order?: string;
  versions?: { type: string; number: string };
  singleton?: boolean;
  derived?: Record<string, Record<string, unknown>>;
}

/** `x-resource` on an operation, as written (EXTENSIONS.md). */
export interface OperationAnnotation {
  type: string;
  op: OpKind;
  param?: string;
  parent_param?: string;
  body?: string;
  flat?: boolean;
  params?: Record<string, string>;
  mirror?: Record<string, string>;
  filters?: Record<string, string | { field: string; match?: Match; ref?: string }>;
  set?: JsonObject;
  add?: { field: string; from: string };
  remove?: { field: string; from: string };
  clear?: string;
  conflict?: number;
  force?: string;
  handler?: string;
  answer?: Record<string, string>;
}

export function readResourceTypes(document: OpenApiDocument): Map<string, ResourceType> {
  const types = new Map<string, ResourceType>();
  const schemas = (document.components?.schemas ?? {}) as Record<string, SchemaObject>;
  for (const [name, schema] of Object.entries(schemas)) {
    const annotation = schema['x-resource'];
    if (!annotation) continue;
    const where = `schema ${name}`;
    checkKeys(where, annotation, TYPE_KEYS);
    const type = readType(document, where, name, schema, annotation as TypeAnnotation);
    if (types.has(type.name)) throw new Error(`${where}: resource type '${type.name}' is declared twice`);
    types.set(type.name, type);
  }
  for (const type of types.values()) {
    const derivedTypes = type.derived.flatMap((each) => ('type' in each ? [each.type] : []));
    const named = [type.parent?.type, type.versions?.type, ...type.refs.map((ref) => ref.type), ...derivedTypes];
    for (const other of named) {
      if (other && !types.has(other)) throw new Error(`resource type '${type.name}' names an unknown type '${other}'`);
    }
  }
  return types;
}

function readType(
  document: OpenApiDocument,
  where: string,
  schemaName: string,
  schema: SchemaObject,
  annotation: TypeAnnotation,
): ResourceType {
  if (typeof annotation.type !== 'string') throw new Error(`${where}: x-resource.type must be a string`);
  const order = annotation.order ?? 'creation';
  if (order !== 'creation' && order !== 'newest_first') throw new Error(`${where}: unknown order '${order}'`);
  const states = schema['x-states'] as StateMachine | undefined;
  const refs = Object.entries(annotation.refs ?? {}).map(([field, ref]) => {
    const { type, on_delete: onDelete = 'keep' } = typeof ref === 'string' ? { type: ref } : ref;
    if (!(ON_DELETE as readonly string[]).includes(onDelete))
      throw new Error(`${where}: unknown on_delete '${onDelete}'`);
    return { field, type, onDelete: onDelete as OnDelete };
  });
  return {
    name: annotation.type as SpecTypeName,
    ref: `#/components/schemas/${schemaName}`,
    schema,
    id: readId(document, where, schema, annotation.id),
    parent: annotation.parent,
    refs,
    order,
    versions: annotation.versions,
    singleton: annotation.singleton === true,
    states,
    derived: Object.entries(annotation.derived ?? {}).map(([field, given]) =>
      readDerivation(`${where}: derived.${field}`, field, given, refs),
    ),
  };
}

function readDerivation(
  where: string,
  field: string,
  given: Record<string, unknown>,
  refs: ResourceType['refs'],
): Derivation {
  const kinds = DERIVATION_KINDS.filter((kind) => kind in given);
  if (kinds.length !== 1) throw new Error(`${where} needs one of ${DERIVATION_KINDS.join(', ')}`);
  const text = (key: string) => {
    const value = given[key];
    if (value !== undefined && typeof value !== 'string') throw new Error(`${where}: ${key} must be a string`);
    return value as string | undefined;
  };
  switch (kinds[0]) {
    case 'same':
      return { field, kind: 'same', source: text('same') ?? '' };
    case 'count':
      return { field, kind: 'count', type: text('count') ?? '', by: text('by') };
    case 'any':
      return { field, kind: 'any', type: text('any') ?? '', where: text('where') ?? '' };
    case 'hook':
      return { field, kind: 'hook', hook: text('hook') ?? '' };
    default: {
      const from = text('from') ?? '';
      const type = text('type') ?? refs.find((ref) => ref.field === from)?.type;
      if (!type) throw new Error(`${where}: '${from}' is no reference field; say its type`);
      const pick = given.pick === undefined ? undefined : (given.pick as string[]);
      return { field, kind: 'from', from, type, take: text('take'), pick, list: given.list === true };
    }
  }
}

function readId(
  document: OpenApiDocument,
  where: string,
  schema: SchemaObject,
  given: TypeAnnotation['id'],
): ResourceType['id'] {
  const { field = 'id', prefix } = typeof given === 'string' ? { field: given } : (given ?? {});
  const property = propertiesOf(schema)[field];
  if (!property) throw new Error(`${where}: the id field '${field}' is not a property`);
  const fieldSchema = resolve(document, property);
  if (typesOf(fieldSchema).includes('integer')) return { field, kind: 'integer', prefix: '' };
  if (fieldSchema.format === 'uuid') return { field, kind: 'uuid', prefix: '' };
  // The literal start of a pattern such as ^gin-[A-Za-z0-9_-]+$ is the prefix the platform's ids carry.
  const patternPrefix = /^\^([A-Za-z0-9_-]+)/.exec(stringOf(fieldSchema, 'pattern') ?? '')?.[1] ?? '';
  return { field, kind: 'string', prefix: prefix ?? patternPrefix };
}

export function readEngineOperations(
  document: OpenApiDocument,
  operations: Operation[],
  types: Map<string, ResourceType>,
): Map<string, EngineOperation> {
  const result = new Map<string, EngineOperation>();
  for (const operation of operations) {
    const annotation = operationExtension(document, operation, 'x-resource');
    if (!annotation) continue;
    const where = `operation ${operation.operationId}`;
    checkKeys(where, annotation, OPERATION_KEYS);
    const read = readOperation(where, operation, annotation as OperationAnnotation, types);
    const written = operationExtension(document, operation, 'x-effect');
    read.effect = readEffect(where, operation, annotation as OperationAnnotation, read.type, written);
    result.set(operation.operationId, read);
  }
  return result;
}

const READ_METHODS = ['GET', 'HEAD'];

/** A handler's effect by its name: a generic one, or a family's `<family>.create`, `.update`, `.delete`. */
function handlerEffect(handler: string): { verb: EffectVerb; from?: string; by?: string } | undefined {
  const verb = SUFFIX_VERBS[handler.slice(handler.lastIndexOf('.') + 1)];
  return HANDLER_EFFECTS[handler] ?? (handler.includes('.') && verb ? { verb } : undefined);
}

const SUFFIX_VERBS: Record<string, EffectVerb> = { create: 'creates', update: 'updates', delete: 'deletes' };

/**
 * The effect a non-GET operation declares (EXTENSIONS.md, "Effects"): `x-effect: {none: reason}`, or
 * what its `x-resource` implies (create, update and delete; an action's state move in `x-states`, `set`,
 * `add`, `remove` and `clear`; the generic handlers), completed or overridden by `x-effect`, which names
 * the verb of a hand-written handler and how an effect is read back. Undefined for a read, and for an
 * operation that declares nothing (`npm run lint` refuses those).
 */
export function readEffect(
  where: string,
  operation: Operation,
  annotation: OperationAnnotation | undefined,
  type: ResourceType | undefined,
  written: unknown,
): DeclaredEffect | undefined {
  if (READ_METHODS.includes(operation.method.toUpperCase()) && written === undefined) return undefined;
  if (written !== undefined && !isObject(written)) throw new Error(`${where}: x-effect must be an object`);
  for (const verb of ['none', 'unsupported'] as const) {
    if (!written || !(verb in written)) continue;
    if (typeof written[verb] !== 'string' || Object.keys(written).length !== 1)
      throw new Error(`${where}: x-effect: ${verb} takes the reason, and no other key`);
    return { verb, reason: written[verb] as string };
  }
  const declared = (written ?? {}) as EffectAnnotation;
  checkKeys(where, declared, EFFECT_KEYS, 'x-effect');
  const verbs = EFFECT_VERBS.filter((verb) => declared[verb] !== undefined);
  if (verbs.length > 1) throw new Error(`${where}: x-effect names ${verbs.join(' and ')}; one verb at most`);
  const implied = annotation && impliedEffect(annotation);
  const set = { ...annotation?.set, ...stateMove(type, operation.operationId) };
  const verb = verbs[0] ?? implied?.verb ?? (Object.keys(set).length > 0 ? 'updates' : undefined);
  if (!verb) return undefined;
  const by = typeof declared.by === 'string' ? { [declared.by]: '' } : (declared.by ?? implied?.by);
  const [byRequest, byField] = Object.entries(by ?? {})[0] ?? [];
  const read =
    typeof declared.read === 'string' ? { operation: declared.read } : (declared.read ?? emptied(declared.empties));
  const named = verb === 'empties' ? undefined : verbs[0] && declared[verbs[0]];
  const { fields } = declared;
  return {
    verb,
    type: named || implied?.type || String(annotation?.type),
    read: read && { operation: read.operation, query: read.query ?? {} },
    fields: Array.isArray(fields) ? Object.fromEntries(fields.map((name) => [name, name])) : fields,
    set: verb === 'deletes' ? {} : set,
    changes: declared.changes ?? [],
    renews: declared.renews ?? [],
    shows: declared.shows,
    by: byRequest === undefined ? undefined : { request: byRequest, field: byField || '' },
    from: declared.from ?? implied?.from,
    field: implied?.field,
    refs: declared.refs ?? {},
    when: declared.when ?? {},
    fill: declared.fill,
  };
}

/** `empties: <operation>` names the read whose list the operation empties. */
function emptied(operation: string | undefined): { operation: string; query?: JsonObject } | undefined {
  return operation === undefined ? undefined : { operation };
}

/** The state field's new value, when the type's `x-states` move it (a transition that only guards moves nothing). */
export function stateMove(type: ResourceType | undefined, operationId: string): JsonObject {
  const machine = type?.states;
  const move = machine?.transitions[operationId];
  if (!machine || !move || move.from.every((state) => JSON.stringify(state) === JSON.stringify(move.to))) return {};
  return { [machine.field]: move.to };
}

/** The verb, type and ids an operation's kind and keys imply without `x-effect`. */
function impliedEffect(
  annotation: OperationAnnotation,
): { verb: EffectVerb; type: string; from?: string; field?: string; by?: Record<string, string> } | undefined {
  const { op, type } = annotation;
  const generic = annotation.handler === undefined ? undefined : handlerEffect(annotation.handler);
  if (generic)
    return { verb: generic.verb, type, from: generic.from, by: generic.by ? { [generic.by]: '' } : undefined };
  if (op === 'create') return { verb: 'creates', type };
  if (op === 'delete') return { verb: 'deletes', type };
  if (op === 'update') return { verb: 'updates', type };
  if (annotation.clear) return { verb: 'clears', type: annotation.clear };
  if (op === 'action' && annotation.add) return { verb: 'adds', type, ...annotation.add };
  if (op === 'action' && annotation.remove) return { verb: 'removes', type, ...annotation.remove };
  return undefined;
}

/** An `x-` extension of an operation, as the bundle has it. */
export function operationExtension(document: OpenApiDocument, operation: Operation, name: string): unknown {
  const pathItem: unknown = document.paths[operation.path] && deref(document, document.paths[operation.path] ?? {});
  const item = isObject(pathItem) ? pathItem[operation.method.toLowerCase()] : undefined;
  return isObject(item) ? item[name] : undefined;
}

function readOperation(
  where: string,
  operation: Operation,
  annotation: OperationAnnotation,
  types: Map<string, ResourceType>,
): EngineOperation {
  const type = types.get(annotation.type);
  if (!type) throw new Error(`${where}: unknown resource type '${annotation.type}'`);
  const { op } = annotation;
  if (!OP_KINDS.includes(op)) throw new Error(`${where}: unknown op '${op}'`);
  if (op === 'custom' && typeof annotation.handler !== 'string')
    throw new Error(`${where}: a custom op needs a handler`);
  const pathParams = operation.parameters.filter((p) => p.in === 'path').map((p) => p.name);
  const pathOrder = [...operation.path.matchAll(/\{([^}]+)\}/g)].map((m) => m[1] ?? '');
  const ordered = pathOrder.filter((name) => pathParams.includes(name));
  // A custom operation acts on an item when the path names one beyond the parent.
  const namesItem =
    op === 'custom' ? ordered.length > (type.parent ? 1 : 0) : (ITEM_OP_KINDS as readonly OpKind[]).includes(op);
  const isItemOp = namesItem && !type.singleton;
  const param: string | undefined = annotation.param ?? (isItemOp ? ordered.at(-1) : undefined);
  const parentDefault = isItemOp ? ordered[ordered.indexOf(param ?? '') - 1] : ordered.at(-1);
  const parentParam: string | undefined = type.parent ? (annotation.parent_param ?? parentDefault) : undefined;
  for (const name of [param, parentParam]) {
    if (name !== undefined && !pathParams.includes(name)) throw new Error(`${where}: no path parameter '${name}'`);
  }
  if (isItemOp && !param) throw new Error(`${where}: a ${op} needs a path parameter naming the item`);
  // A custom handler may find its item without the parent (resume_job finds its job by a token).
  if (type.parent && !parentParam && op !== 'custom')
    throw new Error(`${where}: no path parameter names the parent ${type.parent.type}`);
  return {
    operation,
    type,
    op,
    param,
    parentParam,
    body: annotation.body,
    flat: annotation.flat === true,
    params: annotation.params ?? {},
    mirror: annotation.mirror ?? {},
    filters: Object.entries(annotation.filters ?? {}).map(([param, filter]) => {
      const { field, match = 'equals', ref } = typeof filter === 'string' ? { field: filter } : filter;
      if (!MATCHES.includes(match)) throw new Error(`${where}: unknown match '${match}'`);
      if (ref !== undefined && !types.has(ref))
        throw new Error(`${where}: filters.${param} names an unknown type '${ref}'`);
      return { param, field, match, ...(ref === undefined ? {} : { ref }) };
    }),
    set: annotation.set ?? {},
    add: annotation.add,
    remove: annotation.remove,
    clear: annotation.clear,
    conflict: annotation.conflict ?? firstDocumented(operation, [409, 422, 400]),
    force: annotation.force,
    handler: annotation.handler,
    answer: annotation.answer ?? {},
  };
}

/** The first of `statuses` the operation documents; the last one when it documents none of them. */
export function firstDocumented(operation: Operation, statuses: [...number[], number]): number {
  return statuses.find((status) => operation.responses[String(status)]) ?? statuses[statuses.length - 1] ?? 400;
}

function checkKeys(
  where: string,
  annotation: unknown,
  allowed: readonly string[],
  extension = 'x-resource',
): asserts annotation is object {
  if (!isObject(annotation)) throw new Error(`${where}: ${extension} must be an object`);
  const unknown = Object.keys(annotation).filter((key) => !allowed.includes(key));
  if (unknown.length > 0) throw new Error(`${where}: unknown ${extension} keys ${unknown.join(', ')}`);
}

/** The operation that reads an effect back: a get or list (or a read by POST, `x-effect: none`), with query parameters. */
export interface ReadBack {
  operation: string;
  query: JsonObject;
}

/**
 * What a non-GET operation changes, normalized from its declaration: the verb and the type of the items
 * it happens to, how to read it back, and what the read shows afterwards.
 */
export interface Effect {
  verb: EffectVerb;
  type: string;
  /** Default: the type's get, else its list; `empties` names it. */
  read?: ReadBack;
  /** Item field -> the request field whose sent value it holds afterwards; undefined: every field of the type the body sends. */
  fields?: Record<string, string>;
  /** Literal values the item holds afterwards (`set`, the `to` of a state move). */
  set: JsonObject;
  /** Fields whose value the operation changes (read before and after). */
  changes: string[];
  /** Fields the operation's answer gives a new value each time (a secret, shown only then). */
  renews: string[];
  /** A request field whose sent value the read-back answer holds (a map merged into what it shows). */
  shows?: string;
  /** The request's body field that names the item, when the path does not, and the item's field it holds ('' for the id). */
  by?: { request: string; field: string };
  /** The request field (body or query) naming the items added, removed, deleted or copied. */
  from?: string;
  /** adds, removes: the item's array field the ids go in (an action's `add`, `remove`). */
  field?: string;
  /** Other request fields (path, query or body; dotted for nested ones) that name items, by the type they name. */
  refs: Record<string, string>;
  /** Body values under which the effect holds (a dry run changes nothing). */
  when: JsonObject;
  /** An operation performed first, on the same item, so that there is something to remove or empty. */
  fill?: string;
}

/**
 * An operation declared to change nothing the platform would show (`none`), or refused because the
 * emulator cannot carry it out (`unsupported`: a 501 naming it), with the reason.
 */
export interface NoEffect {
  verb: 'none' | 'unsupported';
  reason: string;
}

export type DeclaredEffect = Effect | NoEffect;

/** `x-effect` on an operation, as written (besides `none` and `unsupported`). */
interface EffectAnnotation {
  creates?: string;
  updates?: string;
  deletes?: string;
  adds?: string;
  removes?: string;
  clears?: string;
  empties?: string;
  read?: string | { operation: string; query?: JsonObject };
  fields?: string[] | Record<string, string>;
  changes?: string[];
  renews?: string[];
  shows?: string;
  by?: string | Record<string, string>;
  from?: string;
  refs?: Record<string, string>;
  when?: JsonObject;
  fill?: string;
}
