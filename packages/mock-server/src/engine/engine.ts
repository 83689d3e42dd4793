// The resource engine: serves every management operation the spec annotates with `x-resource`
// (spec/management/EXTENSIONS.md) from its own store, with generic code for list, find, create, get,
// update, delete and actions, and the few hand-written handlers the vocabulary names.
import type { ValidateFunction } from 'ajv/dist/2020.js';
import type { Scope } from '../domain/model.js';
import { InvalidRequest, NotFound, Refused } from '../errors.js';
import type { HandlerName } from '../generated/handlers.js';
import type { OpenApiDocument, Specs } from '../spec/bundles.js';
import { SchemaChecks } from '../spec/checks.js';
import { IsoTimeFormatter } from '../spec/date-time.js';
import { violations } from '../spec/validators.js';
import { MemoryResourceStore } from '../store/memory/resources.js';
import type { JsonObject, ResourceStore, StoredItem } from '../store/resource-store.js';
import { UrlScope } from '../tenants/url-scope.js';
import { type AnswerShape, answerShape, buildAnswer } from './answers.js';
import type {
  CheckedRequest,
  Domain,
  Family,
  FileBody,
  Handler,
  HandlerResult,
  TenantUrls,
  Workspace,
  WorkspaceIdentity,
} from './contract.js';
import { referenceDefaults } from './custom/projects.js';
import { derive } from './derived.js';
import { conflict, missingReference, notFound } from './errors.js';
import { customHandler, derivationHook, derivationHooks, families } from './handlers.js';
import { listPage, matchesFilters } from './listing.js';
import { isObject, propertiesOf, resolve, type SchemaNode } from './schema.js';
import type { StateSection } from './sections.js';
import { coerce, complete, idPaths, numericIds, uuidFrom, type ValueContext } from './values.js';
import {
  countedId,
  type EngineOperation,
  type OnDelete,
  type ResourceType,
  readEngineOperations,
  readResourceTypes,
} from './vocabulary.js';

export interface EngineOptions {
  /** Milliseconds since the epoch; timestamps use it. Default Date.now. */
  clock?: () => number;
  /** A float in [0, 1), like Math.random (the default); UUIDs are made from it, so a seeded one repeats. */
  random?: () => number;
  /** Default a new MemoryResourceStore. */
  store?: ResourceStore;
  /**
   * The checks (not coercing) of the items' schemas; a server shares its own, whose compiled checks
   * emulators of the same bundles share. Default new ones.
   */
  checks?: SchemaChecks;
  /** The emulator's domain, which keeps the state of some families (topics, API clients and keys); none: their operations throw. */
  domain?: Domain;
  /** The workspace `GET /api/users/me` names (a workspace made at run time); default the stored details. */
  identity?: WorkspaceIdentity;
  /** What its URLs to be opened without credentials carry (a tenant's); default workspace 1's, keyed by the engine's own secret. */
  urls?: TenantUrls;
}

export interface EngineAnswer {
  status: number;
  headers?: Record<string, string>;
  /** The JSON body; undefined for an answer without one (204). */
  body?: unknown;
  /** A body that is not JSON, instead of `body` (download_package's zip). */
  file?: FileBody;
}

export interface ResourceEngine {
  /** True for the operations the engine serves (those with `x-resource`). */
  handles(operationId: string): boolean;
  /**
   * Answers one request, its parameters and body already checked against the spec (the pipeline's
   * job, pipeline/call.ts), or throws the refusal (an EmulatorError: errors.ts renders it with the status
   * and body the operation documents).
   */
  handle(operationId: string, request: CheckedRequest): Promise<EngineAnswer>;
  readonly operationIds: readonly string[];
  /** The operations it serves, as the vocabulary reads them (the emulator API runs creates and deletes by type). */
  readonly operations: readonly EngineOperation[];
  readonly store: ResourceStore;
  readonly types: ReadonlyMap<string, ResourceType>;
  /** The types the engine's store holds: all but those whose family's state the domain keeps. */
  readonly storedTypes: ReadonlyMap<string, ResourceType>;
  /**
   * For an operation of a family whose state the domain keeps (topics, API clients and keys): the right the
   * caller's key needs. Such operations are the engine's in every mode, `--mode prism` included.
   */
  domainScope(operationId: string): Scope | undefined;
  /**
   * What is checked of the request before its body is read (the item its path names exists), for the
   * operations whose family says so; undefined for the others.
   */
  precheck(operationId: string, params: Readonly<JsonObject>): Promise<void> | undefined;
  /** The state document's sections of the families whose state the domain keeps (needs the domain). */
  familySections(): StateSection[];
  /** A complete item of the type from the given fields (defaults, timestamps, its parent's id), as a create makes it. */
  completeItem(typeName: string, fields: JsonObject, id: string | number, parent?: string): JsonObject;
  /** Why an item does not match its schema, or undefined when it does. */
  itemProblems(typeName: string, value: JsonObject): string | undefined;
}

export function createResourceEngine(specs: Specs, options: EngineOptions = {}): ResourceEngine {
  return new Engine(specs, options);
}

/**
 * The engine, made on first use (the first management request, state document or console view). For
 * a spec whose vocabulary was read when it was built (scripts/build-checks.mjs; spec/checks.ts, builtFrom): a mistake in it
 * would otherwise surface at a request instead of stopping the start.
 */
export function lazyResourceEngine(create: () => ResourceEngine): ResourceEngine {
  let engine: ResourceEngine | undefined;
  return new Proxy({} as ResourceEngine, {
    get(_, property) {
      engine ??= create();
      const member: unknown = Reflect.get(engine, property, engine);
      return typeof member === 'function' ? member.bind(engine) : member;
    },
  });
}

interface Served {
  op: EngineOperation;
  shape: AnswerShape;
  /** Where the request body holds IDs that may come as decimal strings (IdInput), read as numbers. */
  ids: string[][];
  custom?: Handler;
  /** The family of the custom handler, when the domain keeps its state. */
  family?: Family;
}

interface Referrer {
  type: ResourceType;
  field: string;
  onDelete: OnDelete;
}

/**
 * What the engine reads from a spec, the same for every tenant: compiled once per bundle and checks
 * (compiledModel), not per engine. Each workspace's environment has an engine of its own; a model of
 * each took ~58 ms and ~2.3 MB, which 1,000 workspaces paid a thousand times.
 */
interface EngineModel {
  readonly document: OpenApiDocument;
  readonly types: Map<string, ResourceType>;
  readonly storedTypes: Map<string, ResourceType>;
  readonly served: Map<string, Served>;
  readonly children: Map<string, ResourceType[]>;
  readonly referrers: Map<string, Referrer[]>;
  readonly itemChecks: SchemaChecks;
  /** The items' compiled checks, by type, made on first use. */
  readonly itemValidators: Map<string, ValidateFunction>;
}

/** The models of each bundle, by the checks they were made with (`undefined`: the bundle's own). */
const models = new WeakMap<Specs, Map<SchemaChecks | undefined, EngineModel>>();

function compiledModel(specs: Specs, checks: SchemaChecks | undefined): EngineModel {
  const ofSpecs = models.get(specs) ?? new Map<SchemaChecks | undefined, EngineModel>();
  models.set(specs, ofSpecs);
  let model = ofSpecs.get(checks);
  if (!model) {
    model = buildModel(specs, checks ?? new SchemaChecks(specs.documents, 'values'));
    ofSpecs.set(checks, model);
  }
  return model;
}

function buildModel(specs: Specs, itemChecks: SchemaChecks): EngineModel {
  const document = specs.documents.management;
  const types = readResourceTypes(document);
  const domainTypes = new Set<string>(families.flatMap((family) => family.types));
  const storedTypes = new Map([...types].filter(([name]) => !domainTypes.has(name)));
  const served = new Map<string, Served>();
  const managementOperations = specs.operations.filter((op) => op.api === 'management');
  for (const [operationId, op] of readEngineOperations(document, managementOperations, types)) {
    served.set(operationId, serve(document, types, op));
  }
  for (const type of storedTypes.values()) {
    // The store knows nothing of what the domain keeps: no parent, reference or version there.
    const domainType = [type.parent?.type, type.versions?.type, ...type.refs.map((ref) => ref.type)].find(
      (name) => name !== undefined && domainTypes.has(name),
    );
    if (domainType) throw new Error(`resource type '${type.name}' names '${domainType}', which the domain keeps`);
  }
  const children = new Map<string, ResourceType[]>();
  const referrers = new Map<string, Referrer[]>();
  for (const type of types.values()) {
    if (type.parent) children.set(type.parent.type, [...(children.get(type.parent.type) ?? []), type]);
    for (const ref of type.refs) {
      const list = referrers.get(ref.type) ?? [];
      referrers.set(ref.type, [...list, { type, field: ref.field, onDelete: ref.onDelete }]);
    }
  }
  return { document, types, storedTypes, served, children, referrers, itemChecks, itemValidators: new Map() };
}

/** What serving the operation takes, checked once at start. */
function serve(document: OpenApiDocument, types: Map<string, ResourceType>, op: EngineOperation): Served {
  const where = `operation ${op.operation.operationId}`;
  const shape = answerShape(document, op.operation, op.type);
  if (op.op === 'list' && !shape.list) throw new Error(`${where}: its answer holds no list of ${op.type.ref}`);
  if (op.clear && !types.has(op.clear)) throw new Error(`${where}: unknown type to clear '${op.clear}'`);
  const custom = op.handler === undefined ? undefined : customHandler(op.handler);
  for (const { field, kind, ...rest } of op.type.derived) {
    if (kind === 'hook' && !('hook' in rest && derivationHook(rest.hook)))
      throw new Error(`${where}: ${op.type.name}.${field} names no derivation hook`);
  }
  if (op.op === 'custom' && !custom) throw new Error(`${where}: no handler '${op.handler}'`);
  const family = families.find((each) => op.handler !== undefined && op.handler in each.handlers);
  // A type the domain keeps is served by its family's handlers only: the engine's store does not hold it.
  const keeper = families.find((each) => each.types.includes(op.type.name));
  if (keeper !== family)
    throw new Error(`${where}: the domain keeps the ${op.type.name}s; only their family's handlers serve them`);
  const body = op.operation.requestBody?.content?.['application/json']?.schema;
  return { op, shape, custom, family, ids: body ? idPaths(document, body) : [] };
}

class Engine implements ResourceEngine {
  readonly types: Map<string, ResourceType>;
  readonly storedTypes: Map<string, ResourceType>;
  readonly store: ResourceStore;
  private readonly domain: Domain | undefined;
  private readonly identity: WorkspaceIdentity | undefined;
  private readonly urls: TenantUrls;
  private readonly document: OpenApiDocument;
  private readonly served: Map<string, Served>;
  private readonly children: Map<string, ResourceType[]>;
  private readonly referrers: Map<string, Referrer[]>;
  private readonly itemChecks: SchemaChecks;
  private readonly itemValidators: Map<string, ValidateFunction>;
  private readonly clock: () => number;
  private readonly random: () => number;
  private readonly times = new IsoTimeFormatter();

  constructor(specs: Specs, options: EngineOptions) {
    ({
      document: this.document,
      types: this.types,
      storedTypes: this.storedTypes,
      served: this.served,
      children: this.children,
      referrers: this.referrers,
      itemChecks: this.itemChecks,
      itemValidators: this.itemValidators,
    } = compiledModel(specs, options.checks));
    this.clock = options.clock ?? Date.now;
    this.random = options.random ?? Math.random;
    this.store = options.store ?? new MemoryResourceStore();
    this.domain = options.domain;
    this.identity = options.identity;
    this.urls = options.urls ?? UrlScope.detached();
  }

  get operationIds(): string[] {
    return [...this.served.keys()];
  }

  get operations(): EngineOperation[] {
    return [...this.served.values()].map((served) => served.op);
  }

  handles(operationId: string): boolean {
    return this.served.has(operationId);
  }

  domainScope(operationId: string): Scope | undefined {
    return this.served.get(operationId)?.family?.scope;
  }

  precheck(operationId: string, params: Readonly<JsonObject>): Promise<void> | undefined {
    const served = this.served.get(operationId);
    // A name the spec gives and the family lacks looks up nothing.
    const check =
      served?.op.handler === undefined ? undefined : served.family?.prechecks[served.op.handler as HandlerName];
    if (!served || !check) return undefined;
    return Promise.resolve(check(this.workspace(this.valueContext()), served.op, params));
  }

  familySections(): StateSection[] {
    const domain = this.requireDomain();
    return families.map((family) => family.section(domain, { checks: this.itemChecks, clock: this.clock }));
  }

  private requireDomain(): Domain {
    if (!this.domain) throw new Error('The resource engine was started without the domain that keeps this state');
    return this.domain;
  }

  async handle(operationId: string, request: CheckedRequest): Promise<EngineAnswer> {
    const served = this.served.get(operationId);
    if (!served) throw new Error(`The resource engine does not serve ${operationId}`);
    const { shape, op } = served;
    const values = this.valueContext(request.host);
    const body = served.ids.length > 0 ? numericIds(request.body, served.ids) : request.body;
    const result = await this.run(served, { ...request, body }, values);
    if ('body' in result) return { status: shape.status, body: result.body };
    if ('file' in result) return { status: shape.status, file: result.file };
    // A list's items were derived before its filters ran.
    const listed = op.op === 'list' || op.op === 'find';
    const item = result.item && (listed ? result.item : await this.derived(op.type, result.item, values));
    const items = result.items && (listed ? result.items : await this.allDerived(op.type, result.items, values));
    const shown = {
      ...result,
      item: item && this.answered(served, withoutHidden(item)),
      items: items?.map(withoutHidden),
    };
    return { status: shape.status, body: buildAnswer(values, shape, shown) };
  }

  /** The item as an answer that does not hold it reads it: with the fields `answer` names (`new_flow_id`). */
  private answered({ op, shape }: Served, item: JsonObject): JsonObject {
    if (shape.item || shape.list || Object.keys(op.answer).length === 0) return item;
    const named = Object.entries(op.answer).map(([field, from]) => [field, item[from]]);
    return { ...item, ...Object.fromEntries(named) };
  }

  private derived(type: ResourceType, value: JsonObject, values: ValueContext): Promise<JsonObject> {
    return derive(this.workspace(values), derivationHooks, type, value, { host: values.host });
  }

  private allDerived(type: ResourceType, items: JsonObject[], values: ValueContext): Promise<JsonObject[]> {
    if (type.derived.length === 0) return Promise.resolve(items);
    return Promise.all(items.map((item) => this.derived(type, item, values)));
  }

  completeItem(typeName: string, fields: JsonObject, id: string | number, parent?: string): JsonObject {
    const type = this.typeNamed(typeName);
    const values = this.valueContext();
    return this.newValue(type, this.withParent(type, { ...fields, [type.id.field]: id }, parent, values), values);
  }

  /** The fields with the parent's id in the type's parent field, when it declares one. */
  private withParent(type: ResourceType, fields: JsonObject, parent: string | undefined, values: ValueContext) {
    const field = type.parent?.field;
    if (!field || parent === undefined) return fields;
    return { ...fields, [field]: coerce(values, fieldSchema(type, field), parent) };
  }

  itemProblems(typeName: string, value: JsonObject): string | undefined {
    const validate = this.itemValidator(this.typeNamed(typeName));
    if (validate(value)) return undefined;
    return violations(validate.errors)
      .map((v) => `${v.pointer} ${v.message}`)
      .join('; ');
  }

  private async run({ op, custom }: Served, request: CheckedRequest, values: ValueContext): Promise<HandlerResult> {
    const { params, body } = request;
    // Refused, never faked: the spec documents the 501 of an operation the emulator cannot carry out.
    if (op.effect?.verb === 'unsupported')
      throw new Refused(501, `The emulator cannot carry out ${op.operation.operationId}: ${op.effect.reason}`);
    switch (op.op) {
      case 'list':
      case 'find': {
        await this.checkPathReferences(op, params);
        const parent = await this.parentOf(op, params);
        const stored = (await this.store.list(op.type.name, parent?.id)).map((item) => item.value);
        const all = await this.allDerived(op.type, stored, values);
        const matching = all.filter((value) => matchesFilters(op.filters, params, value));
        if (op.type.order === 'newest_first') matching.reverse();
        if (op.op === 'list') return listPage(op.operation, params, matching, op.type.id.field);
        if (!matching[0]) throw new NotFound(`No ${label(op.type)} matches the query`);
        return { item: matching[0] };
      }
      case 'create': {
        await this.checkPathReferences(op, params);
        const fields = this.fieldsFrom(op, body, params, values);
        return { item: await this.create(op, fields, await this.parentOf(op, params), values) };
      }
      case 'get':
        return {
          item: op.type.singleton
            ? await this.singletonValue(op, params, values)
            : (await this.itemOf(op, params)).value,
        };
      case 'update': {
        const item = await this.singletonOrItem(op, params, values);
        return { item: await this.update(op, item, this.fieldsFrom(op, body, params, values), values) };
      }
      case 'delete': {
        const item = await this.itemOf(op, params);
        this.transition(op, item.value);
        const forced = op.force !== undefined && params[op.force] === true;
        await this.deleteWithDependents(op, op.type, item, forced);
        return { item: item.value };
      }
      case 'action':
        return { item: await this.act(op, await this.singletonOrItem(op, params, values), body, params, values) };
      case 'custom':
        if (!custom) throw new Error(`No handler for ${op.operation.operationId}`);
        return custom(this.workspace(values), op, request);
    }
  }

  private workspace(values: ValueContext): Workspace {
    const domain = () => this.requireDomain();
    return {
      get domain() {
        return domain();
      },
      urls: this.urls,
      store: this.store,
      values,
      types: this.types,
      identity: this.identity,
      itemOf: (op, params) => this.itemOf(op, params),
      singleton: (op, params) => this.singletonValue(op, params, values),
      itemProblems: (typeName, value) => this.itemProblems(typeName, value),
      parentOf: async (op, params) => {
        const parent = await this.parentOf(op, params);
        if (!parent) throw new Error(`${op.type.name} is not a sub-collection`);
        return parent;
      },
      create: (op, fields, parent) => this.create(op, fields, parent, values),
      update: (op, item, fields) => this.update(op, item, fields, values),
      delete: (op, item, force = false) => this.deleteWithDependents(op, op.type, item, force),
    };
  }

  private async create(op: EngineOperation, sent: JsonObject, parent: StoredItem | undefined, values: ValueContext) {
    const { type } = op;
    const fields = typedFields(values, type, sent);
    await this.checkReferences(op, fields);
    const defaults = await referenceDefaults(this.workspace(values), op, type, { ...fields, ...op.set });
    for (const [field, id] of Object.entries(defaults)) defaults[field] = coerce(values, fieldSchema(type, field), id);
    const id = await this.newId(type, values);
    const initial: JsonObject = { ...defaults, ...fields, ...op.set, [type.id.field]: id };
    if (type.states && initial[type.states.field] === undefined) initial[type.states.field] = type.states.initial;
    if (type.versions) initial[type.versions.number] = 1;
    const made = this.newValue(type, this.withParent(type, initial, parent?.id, values), values);
    const value = await this.derived(type, made, values);
    this.assertValid(type, value);
    const item: StoredItem = { id: String(id), parent: parent?.id, value };
    await this.store.put(type.name, item);
    if (type.versions) await this.recordVersion(type.versions.type, item, values);
    for (const child of this.children.get(type.name) ?? []) {
      if (hasOwnId(child)) await this.makeSingleton(child, item, values);
    }
    return value;
  }

  /** A singleton with an id of its own is made with its parent, so that its first get answers its id. */
  private async makeSingleton(type: ResourceType, parent: StoredItem, values: ValueContext): Promise<void> {
    const id = await this.newId(type, values);
    const value = this.newValue(type, this.withParent(type, { [type.id.field]: id }, parent.id, values), values);
    this.assertValid(type, value);
    await this.store.put(type.name, { id: parent.id, parent: parent.id, value });
  }

  private async update(op: EngineOperation, item: StoredItem, fields: JsonObject, values: ValueContext) {
    const { type } = op;
    await this.checkReferences(op, fields);
    const changes: JsonObject = { ...fields, ...op.set, ...this.transition(op, item.value) };
    const changed = Object.entries(changes).some(([name, value]) => !sameJson(item.value[name], value));
    const completed = complete(values, type.schema, { ...item.value, ...changes });
    if (changed) touch(type, completed, values);
    if (changed && type.versions) completed[type.versions.number] = Number(item.value[type.versions.number] ?? 0) + 1;
    const value = await this.derived(type, completed, values);
    this.assertValid(type, value);
    const updated = { ...item, value };
    await this.store.put(type.name, updated);
    if (changed && type.versions) await this.recordVersion(type.versions.type, updated, values);
    return value;
  }

  private async act(
    op: EngineOperation,
    item: StoredItem,
    body: unknown,
    params: Readonly<JsonObject>,
    values: ValueContext,
  ) {
    const value: JsonObject = { ...item.value, ...this.fieldsFrom(op, undefined, params, values), ...op.set };
    for (const [change, sign] of [
      [op.add, 1],
      [op.remove, -1],
    ] as const) {
      if (!change) continue;
      const sent = isObject(body) ? body[change.from] : undefined;
      const ids: unknown[] = Array.isArray(sent) ? sent : sent === undefined ? [] : [sent];
      if (sign > 0) await this.checkReferences(op, { [change.field]: ids });
      const held = value[change.field];
      const current: unknown[] = Array.isArray(held) ? held : [];
      value[change.field] =
        sign > 0
          ? [...current, ...ids.filter((id) => !current.some((c) => sameJson(c, id)))]
          : current.filter((c) => !ids.some((id) => sameJson(c, id)));
    }
    if (op.clear)
      for (const child of await this.store.list(op.clear, item.id)) await this.store.delete(op.clear, child.id);
    Object.assign(value, this.transition(op, item.value));
    if (!sameJson(value, item.value)) touch(op.type, value, values);
    const derived = await this.derived(op.type, value, values);
    this.assertValid(op.type, derived);
    await this.store.put(op.type.name, { ...item, value: derived });
    return derived;
  }

  /** The fields a request gives the item: its body (unwrapped), then the parameters `params` maps. */
  private fieldsFrom(
    op: EngineOperation,
    body: unknown,
    params: Readonly<JsonObject>,
    values: ValueContext,
  ): JsonObject {
    const source = unwrapped(op, body);
    const properties = propertiesOf(op.type.schema);
    const fields: JsonObject = {};
    const take = (name: string, value: unknown) => {
      const property = properties[name];
      if (property && value !== undefined) fields[name] = coerce(values, property, value);
    };
    if (isObject(source)) {
      for (const [name, value] of Object.entries(source)) {
        const readOnly = resolve(this.document, properties[name] ?? {}).readOnly === true;
        if (!readOnly && name !== op.type.id.field) take(name, value);
      }
    }
    for (const [param, field] of Object.entries(op.params)) take(field, params[param]);
    // A mirrored request field need not be one of the item's (create_skill's recipe_id); a hidden field keeps it as sent.
    for (const [field, from] of Object.entries(op.mirror)) {
      const sent = fields[from] ?? (isObject(source) ? source[from] : undefined);
      if (sent === undefined) continue;
      fields[field] = field.startsWith('$') ? sent : coerce(values, properties[field] ?? {}, sent);
    }
    return fields;
  }

  /** Refuses (with the operation's conflict status) a change the resource's x-states forbid; the new state. */
  private transition(op: EngineOperation, value: JsonObject): JsonObject {
    const machine = op.type.states;
    const move = machine?.transitions[op.operation.operationId];
    if (!machine || !move) return {};
    const current = value[machine.field] ?? null;
    if (!move.from.some((state) => sameJson(state, current))) {
      throw conflict(
        op.conflict,
        `${label(op.type)} ${value[op.type.id.field]} is ${JSON.stringify(current)}: ${op.operation.operationId} needs ${move.from.map((s) => JSON.stringify(s)).join(' or ')}`,
        machine.field,
        `is ${JSON.stringify(current)}`,
      );
    }
    return { [machine.field]: move.to };
  }

  async itemOf(op: EngineOperation, params: Readonly<JsonObject>): Promise<StoredItem> {
    const parent = await this.parentOf(op, params);
    const id = pathParam(params, op.param);
    const item = await this.store.get(op.type.name, id);
    if (!item || item.parent !== parent?.id) throw notFound(label(op.type), id);
    return item;
  }

  async parentOf(op: EngineOperation, params: Readonly<JsonObject>): Promise<StoredItem | undefined> {
    const parentType = op.type.parent && this.typeNamed(op.type.parent.type);
    if (!parentType) return undefined;
    const id = pathParam(params, op.parentParam);
    const parent = await this.store.get(parentType.name, id);
    if (!parent) throw notFound(label(parentType), id);
    return parent;
  }

  /** A singleton's id is its parent's (one per parent), or `workspace` for one per workspace. */
  private async singletonOrItem(
    op: EngineOperation,
    params: Readonly<JsonObject>,
    values: ValueContext,
  ): Promise<StoredItem> {
    if (!op.type.singleton) return this.itemOf(op, params);
    const parent = await this.parentOf(op, params);
    const id = parent?.id ?? 'workspace';
    return (
      (await this.store.get(op.type.name, id)) ?? {
        id,
        parent: parent?.id,
        value: await this.singletonValue(op, params, values),
      }
    );
  }

  private async singletonValue(
    op: EngineOperation,
    params: Readonly<JsonObject>,
    values: ValueContext,
  ): Promise<JsonObject> {
    const parent = await this.parentOf(op, params);
    const stored = await this.store.get(op.type.name, parent?.id ?? 'workspace');
    if (stored) return stored.value;
    return this.newValue(op.type, this.withParent(op.type, {}, parent?.id, values), values);
  }

  /**
   * A path parameter stored in (or, for a list, matched against) a reference field, or a filter's
   * `ref`, must name an item: 404, as a missing parent is.
   */
  private async checkPathReferences(op: EngineOperation, params: Readonly<JsonObject>): Promise<void> {
    type Named = [param: string, type: string | undefined];
    const referenced = (field: string) => op.type.refs.find((each) => each.field === field)?.type;
    const stored = Object.entries(op.params).map(([param, field]): Named => [param, referenced(field)]);
    const filtered = op.filters.map((filter): Named => [filter.param, filter.ref ?? referenced(filter.field)]);
    for (const [param, type] of [...stored, ...filtered]) {
      const inPath = op.operation.parameters.some((p) => p.in === 'path' && p.name === param);
      if (!type || !inPath || params[param] === undefined) continue;
      if (!(await this.store.get(type, String(params[param])))) throw notFound(type.replace(/_/g, ' '), params[param]);
    }
  }

  private async checkReferences(op: EngineOperation, fields: JsonObject): Promise<void> {
    for (const ref of op.type.refs) {
      const value = fields[ref.field];
      if (value === undefined || value === null) continue;
      for (const id of Array.isArray(value) ? value : [value]) {
        if (!(await this.store.get(ref.type, String(id))))
          throw missingReference(op.operation, ref.field, ref.type, id);
      }
    }
  }

  /** Deletes the item, its sub-collections and what `on_delete` ties to it; refuses first if a `restrict` holds. */
  private async deleteWithDependents(op: EngineOperation, type: ResourceType, item: StoredItem, force: boolean) {
    const doomed: [string, string][] = [];
    await this.collect(op, type, item, force, doomed);
    for (const [typeName, id] of doomed) await this.store.delete(typeName, id);
  }

  private async collect(
    op: EngineOperation,
    type: ResourceType,
    item: StoredItem,
    force: boolean,
    doomed: [string, string][],
  ) {
    if (doomed.some(([t, id]) => t === type.name && id === item.id)) return;
    doomed.push([type.name, item.id]);
    for (const child of this.children.get(type.name) ?? []) {
      for (const each of await this.store.list(child.name, item.id)) await this.collect(op, child, each, force, doomed);
    }
    for (const { type: referrer, field, onDelete } of this.referrers.get(type.name) ?? []) {
      if (onDelete === 'keep') continue;
      const users = (await this.store.list(referrer.name)).filter((other) => refersTo(other.value[field], item.id));
      if (users.length > 0 && onDelete === 'restrict' && !force) {
        throw conflict(
          op.conflict,
          `${label(type)} ${item.id} still holds ${users.length} ${label(referrer)}(s)${op.force ? `; send ${op.force}=true to delete them too` : ''}`,
        );
      }
      for (const user of users) await this.collect(op, referrer, user, force, doomed);
    }
  }

  private async recordVersion(typeName: string, item: StoredItem, values: ValueContext): Promise<void> {
    const versionType = this.typeNamed(typeName);
    const fields: JsonObject = {};
    for (const name of Object.keys(propertiesOf(versionType.schema))) {
      if (item.value[name] !== undefined && name !== versionType.id.field) fields[name] = item.value[name];
    }
    const id = await this.newId(versionType, values);
    const value = this.newValue(versionType, { ...fields, [versionType.id.field]: id }, values);
    await this.store.put(versionType.name, { id: String(id), parent: item.id, value });
  }

  private async newId(type: ResourceType, values: ValueContext): Promise<string | number> {
    if (type.id.kind === 'uuid') return values.uuid();
    return countedId(type, await this.store.nextId(type.name));
  }

  /** The item with its timestamps and every required field it lacks. */
  private newValue(type: ResourceType, fields: JsonObject, values: ValueContext): JsonObject {
    const value = { ...fields };
    for (const name of ['created_at', 'updated_at']) {
      if (propertiesOf(type.schema)[name] && value[name] === undefined) value[name] = values.now;
    }
    return complete(values, type.schema, value);
  }

  private assertValid(type: ResourceType, value: JsonObject): void {
    const validate = this.itemValidator(type);
    if (!validate(value)) {
      const list = violations(validate.errors);
      const problems = list.map((v) => `${v.pointer} ${v.message}`).join('; ');
      throw new InvalidRequest('INVALID_REQUEST', `The ${label(type)} is invalid: ${problems}`, { errors: list });
    }
  }

  private itemValidator(type: ResourceType): ValidateFunction {
    let validate = this.itemValidators.get(type.name);
    if (!validate) {
      validate = this.itemChecks.component('management', type.ref);
      this.itemValidators.set(type.name, validate);
    }
    return validate;
  }

  private typeNamed(name: string): ResourceType {
    const type = this.types.get(name);
    if (!type) throw new Error(`No resource type '${name}'`);
    return type;
  }

  private valueContext(host?: string): ValueContext {
    const now = this.times.format(this.clock());
    return { document: this.document, now, uuid: () => uuidFrom(this.random), host };
  }
}

const label = (type: ResourceType) => type.name.replace(/_/g, ' ');

/**
 * The item's fields in a request body: under the operation's `body` key, or (with `flat`) the body
 * itself when it has no such wrapper, as the platform's own CLI sends a recipe.
 */
function unwrapped(op: EngineOperation, body: unknown): unknown {
  if (!op.body || !isObject(body)) return body;
  const wrapped = body[op.body];
  return isObject(wrapped) || !op.flat ? wrapped : body;
}

/** The schema of one of the resource's fields. */
const fieldSchema = (type: ResourceType, name: string): SchemaNode => propertiesOf(type.schema)[name] ?? {};

/** The value of a path parameter the vocabulary guarantees the operation has. */
function pathParam(params: Readonly<JsonObject>, name: string | undefined): string {
  if (name === undefined) throw new Error('The operation has no such path parameter');
  return String(params[name]);
}

/** A singleton whose id field is its own (counted), not its parent's id (`recipe_health_report`'s `recipe_id`). */
function hasOwnId(type: ResourceType): boolean {
  return type.singleton && type.id.kind === 'integer' && type.id.field !== type.parent?.field;
}

function touch(type: ResourceType, value: JsonObject, values: ValueContext): void {
  if (propertiesOf(type.schema).updated_at) value.updated_at = values.now;
}

function refersTo(value: unknown, id: string): boolean {
  return Array.isArray(value)
    ? value.some((v) => String(v) === id)
    : value !== null && value !== undefined && String(value) === id;
}

export function sameJson(a: unknown, b: unknown): boolean {
  return a === b || JSON.stringify(a) === JSON.stringify(b);
}

/** The item without its hidden fields (`$members`, `$invitation_id`): state the engine keeps but never answers. */
function withoutHidden(value: JsonObject): JsonObject {
  if (!Object.keys(value).some((name) => name.startsWith('$'))) return value;
  return Object.fromEntries(Object.entries(value).filter(([name]) => !name.startsWith('$')));
}

/**
 * The fields as the type's schema types them, each element of a list by its `items`: a hand-written
 * create may pass a body's values as sent (`legacy_copy_role`'s folder ids as decimal strings).
 */
function typedFields(values: ValueContext, type: ResourceType, fields: JsonObject): JsonObject {
  const typed = (schema: SchemaNode, value: unknown): unknown => {
    const items = resolve(values.document, schema).items;
    return Array.isArray(value) && isObject(items)
      ? value.map((each) => coerce(values, items as SchemaNode, each))
      : coerce(values, schema, value);
  };
  return Object.fromEntries(
    Object.entries(fields).map(([name, value]) => [name, typed(fieldSchema(type, name), value)]),
  );
}
