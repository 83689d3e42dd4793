// Property-based suite generated from the spec: for every resource family the engine can create,
// fast-check runs random sequences of create, get, list, update, delete and the family's actions, and
// compares each answer with a simple model (which items exist, and the x-states field of each). Every
// answer is also checked against the spec's schema for its operation and status. Seeded and bounded:
// `npm test` runs a few sequences per family and store, `npm run fuzz` a tenth of FUZZ_RUNS from a new seed.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { createResourceEngine, type ResourceEngine } from '../../src/engine/engine.js';
import { type OperationAnnotation, operationExtension } from '../../src/engine/vocabulary.js';
import { errorReply, InvalidRequest } from '../../src/errors.js';
import { SchemaChecks } from '../../src/spec/checks.js';
import { RequestValidators } from '../../src/spec/validators.js';
import type { JsonObject } from '../../src/store/resource-store.js';
import {
  assertConforms,
  exampleBody,
  type OperationId,
  operation as specOperation,
  specs,
} from '../support/helpers.js';
import { propertyRuns, propertyTimeout } from '../support/property/runs.js';
import { describeEngines, resourceStoreEngines } from '../support/store/engines.js';

const document = specs.documents.management;
/** The pipeline's checks of parameters and bodies (pipeline/call.ts), which the engine's requests have passed. */
const validators = new RequestValidators(
  new SchemaChecks(specs.documents, 'params'),
  new SchemaChecks(specs.documents, 'values'),
);
const RUNS = 10;
const FUZZ_SHARE = 0.1;
const MAX_COMMANDS = 16;

interface Family {
  type: string;
  create: string;
  get: string | undefined;
  list: string | undefined;
  update: string | undefined;
  delete: string | undefined;
  actions: string[];
}

/** An operation's x-resource, as the spec writes it (EXTENSIONS.md). */
type Annotation = OperationAnnotation;

const operation = (operationId: string) => specOperation(operationId as OperationId);

function annotationOf(operationId: string): Annotation | undefined {
  return operationExtension(document, operation(operationId), 'x-resource') as Annotation | undefined;
}

function annotation(operationId: string): Annotation {
  const found = annotationOf(operationId);
  if (!found) throw new Error(`${operationId} has no x-resource`);
  return found;
}

/**
 * The operations of each type the engine's store holds, from the spec's x-resource annotations. The
 * types whose state the domain keeps (API clients and keys) are driven through the whole emulator by
 * the API's property suite (test/property).
 */
function families(): Family[] {
  const { storedTypes } = createResourceEngine(specs);
  const byType = new Map<string, (Annotation & { operationId: string })[]>();
  for (const op of specs.operations.filter((o) => o.api === 'management')) {
    const found = annotationOf(op.operationId);
    if (found && storedTypes.has(found.type))
      byType.set(found.type, [...(byType.get(found.type) ?? []), { ...found, operationId: op.operationId }]);
  }
  return [...byType]
    .map(([type, ops]) => {
      const named = (kind: string) => ops.find((o) => o.op === kind)?.operationId;
      const create =
        named('create') ?? ops.find((o) => o.op === 'custom' && /create/.test(o.handler ?? ''))?.operationId;
      return {
        type,
        create,
        get: named('get'),
        list: named('list'),
        update: named('update'),
        delete: named('delete'),
        actions: ops.filter((o) => o.op === 'action').map((o) => o.operationId),
      };
    })
    .filter((family): family is Family => family.create !== undefined);
}

/** The operation's required query parameters, each with its example (deploy_project's environment_type). */
function requiredQuery(operationId: string): string {
  const required = operation(operationId).parameters.filter((p) => p.in === 'query' && p.required);
  return new URLSearchParams(required.map((p) => [p.name, String(p.example ?? p.schema?.example)])).toString();
}

/** Calls an operation in-process and checks the answer against the spec. */
class Client {
  /** One item of each type the sequence needs besides the family's own (parents, references). */
  readonly made = new Map<string, string>();

  constructor(readonly engine: ResourceEngine) {}

  async call(operationId: string, pathParams: Record<string, string> = {}, body?: unknown) {
    const answer = await this.answer(operationId, pathParams, body);
    assertConforms(operationId as OperationId, {
      ...answer,
      headers: new Headers({ 'content-type': 'application/json' }),
    });
    return answer;
  }

  /** The engine's answer to the request checked as the server checks it, or the refusal rendered as the server renders it. */
  private async answer(operationId: string, pathParams: Record<string, string>, body: unknown) {
    const op = operation(operationId);
    try {
      const params = validators.checkParams(op, pathParams, requiredQuery(operationId));
      if (body !== undefined) validators.checkBody(op, body);
      else if (op.requestBody?.required) throw new InvalidRequest('INVALID_REQUEST', 'A JSON request body is required');
      const { status, body: answered } = await this.engine.handle(operationId, { params, body });
      return { status, body: answered };
    } catch (error) {
      const reply = errorReply('management', error);
      return { status: reply.status, body: JSON.parse(reply.json) as unknown };
    }
  }

  /** One item of the type, made through its create operation (parents and references first), or seeded. */
  async ensure(typeName: string): Promise<string> {
    const existing = this.made.get(typeName);
    if (existing !== undefined) return existing;
    // A reference to the type being made (a folder's parent folder) is left out of its own create.
    this.made.set(typeName, '');
    const type = this.engine.types.get(typeName);
    if (!type) throw new Error(`no type ${typeName}`);
    const parent = type.parent ? await this.ensure(type.parent.type) : undefined;
    const family = families().find((f) => f.type === typeName);
    if (family) {
      const answer = await this.call(
        family.create,
        await this.pathFor(family.create, parent),
        await this.bodyFor(family.create),
      );
      expect(answer.status, `${family.create} ${JSON.stringify(answer.body)}`).toBeLessThan(300);
    } else {
      const id = await this.engine.store.nextId(typeName);
      const value = this.engine.completeItem(typeName, {}, type.id.kind === 'integer' ? id : `${type.id.prefix}${id}`);
      await this.engine.store.put(typeName, { id: String(value[type.id.field]), parent, value });
    }
    const items = await this.engine.store.list(typeName, parent);
    const id = items.at(-1)?.id ?? '';
    this.made.set(typeName, id);
    return id;
  }

  /** The operation's first request example, its references pointed at items that exist. */
  async bodyFor(operationId: string): Promise<unknown> {
    const body = exampleBody(operation(operationId));
    const annotated = annotation(operationId);
    const type = this.engine.types.get(annotated.type);
    const target = (annotated.body ? (body as JsonObject)?.[annotated.body] : body) as JsonObject | undefined;
    // Body fields holding ids: the type's references, and the `from` of an add or remove of a referencing field.
    const refs = (type?.refs ?? []).map((ref) => ({ bodyField: ref.field, type: ref.type }));
    for (const change of [annotated.add, annotated.remove]) {
      const ref = type?.refs.find((r) => r.field === change?.field);
      if (change && ref) refs.push({ bodyField: change.from, type: ref.type });
    }
    // A request field the create mirrors into a reference field (create_skill's recipe_id) names that type too.
    for (const [field, from] of Object.entries(annotated.mirror ?? {})) {
      const ref = type?.refs.find((r) => r.field === field);
      if (ref) refs.push({ bodyField: from, type: ref.type });
    }
    for (const ref of refs) {
      const sent = target?.[ref.bodyField];
      if (target && sent !== undefined && sent !== null) {
        const id = await this.ensure(ref.type);
        if (id === '') {
          delete target[ref.bodyField];
          continue;
        }
        const one = typeof (Array.isArray(sent) ? sent[0] : sent) === 'string' ? id : Number(id);
        target[ref.bodyField] = Array.isArray(sent) ? [one] : one;
      }
    }
    // An export manifest names a folder and assets of several types, which the model does not make:
    // a folder that exists, and no assets.
    const manifest = operationId === 'create_export_manifest' ? (body as JsonObject).export_manifest : undefined;
    if (isObjectBody(manifest)) {
      manifest.assets = [];
      manifest.folder_id = Number(await this.ensure('folder'));
    }
    return body;
  }

  async pathFor(operationId: string, parent: string | undefined, item?: string): Promise<Record<string, string>> {
    const annotated = annotation(operationId);
    const names = [...operation(operationId).path.matchAll(/\{([^}]+)\}/g)].map((m) => m[1] ?? '');
    const params: Record<string, string> = {};
    if (item !== undefined) params[annotated.param ?? names.at(-1) ?? ''] = item;
    const parentName = annotated.parent_param ?? names[names.length - (item === undefined ? 1 : 2)];
    if (parent !== undefined && parentName) params[parentName] = parent;
    // A create that stores a path parameter in a reference field (deploy_project's project) needs that item.
    const type = this.engine.types.get(annotated.type);
    for (const [param, field] of Object.entries(annotated.params ?? {})) {
      const ref = type?.refs.find((r) => r.field === field);
      if (ref && names.includes(param) && params[param] === undefined) params[param] = await this.ensure(ref.type);
    }
    return params;
  }
}

type Command =
  | { kind: 'create' }
  | { kind: 'get' | 'update' | 'delete'; pick: number }
  | { kind: 'list' }
  | { kind: 'action'; pick: number; action: number };

const commands = (family: Family) =>
  fc.array(
    fc.oneof(
      fc.constant<Command>({ kind: 'create' }),
      fc.constant<Command>({ kind: 'list' }),
      fc.record({ kind: fc.constantFrom('get', 'update', 'delete' as const), pick: fc.nat(9) }),
      fc.record({
        kind: fc.constant('action' as const),
        pick: fc.nat(9),
        action: fc.nat(Math.max(0, family.actions.length - 1)),
      }),
    ),
    { maxLength: MAX_COMMANDS },
  );

/** The model: each created item's id, whether it still exists, and its x-states field. */
interface Modelled {
  id: string;
  alive: boolean;
  state: unknown;
  /** The plain fields the last update sent, which a get must show. */
  sent?: JsonObject;
}

function sentFields(operationId: string, body: unknown): JsonObject {
  const wrapper = annotation(operationId).body;
  const fields = (wrapper ? (body as JsonObject)[wrapper] : body) as JsonObject;
  return Object.fromEntries(
    Object.entries(fields).filter(([, v]) => ['string', 'number', 'boolean'].includes(typeof v)),
  );
}

async function runSequence(engine: ResourceEngine, family: Family, sequence: Command[]): Promise<void> {
  await engine.store.restore({ items: {}, counters: {} });
  const client = new Client(engine);
  const type = engine.types.get(family.type);
  if (!type) throw new Error(family.type);
  // The family's own items are the model's: a reference to its own type (a parent folder) is left out.
  client.made.set(family.type, '');
  const parent = type.parent ? await client.ensure(type.parent.type) : undefined;
  const machine = type.states;
  // What the create needs is made first; making it may make items of the family too (an API collection
  // made from an OpenAPI document has its endpoints), which the model then starts with.
  await client.pathFor(family.create, parent);
  await client.bodyFor(family.create);
  const model: Modelled[] = (await engine.store.list(family.type, parent)).map((item) => ({
    id: item.id,
    alive: true,
    state: machine ? item.value[machine.field] : undefined,
  }));
  const status = (operationId: string) =>
    Number(Object.keys(operation(operationId).responses).find((c) => c.startsWith('2')));
  const conflict = (operationId: string, current: unknown) => {
    const move = machine?.transitions[operationId];
    return move !== undefined && !move.from.some((s) => JSON.stringify(s) === JSON.stringify(current));
  };

  for (const command of sequence) {
    if (command.kind === 'create') {
      const answer = await client.call(
        family.create,
        await client.pathFor(family.create, parent),
        await client.bodyFor(family.create),
      );
      expect(answer.status).toBe(status(family.create));
      const id = (await engine.store.list(family.type, parent)).at(-1)?.id ?? '';
      expect(
        model.some((m) => m.id === id),
        'ids are never reused',
      ).toBe(false);
      model.push({ id, alive: true, state: machine?.initial });
      continue;
    }
    if (command.kind === 'list') {
      if (!family.list) continue;
      const answer = await client.call(family.list, await client.pathFor(family.list, parent));
      const listed = itemsOf(answer.body).map((item) => String(item[type.id.field]));
      const alive = model.filter((m) => m.alive).map((m) => m.id);
      expect(listed).toEqual(type.order === 'newest_first' ? alive.reverse() : alive);
      continue;
    }
    const target = model[command.pick % Math.max(1, model.length)];
    if (!target) continue;
    const operationId = command.kind === 'action' ? family.actions[command.action] : family[command.kind];
    if (!operationId) continue;
    const body = command.kind === 'update' || command.kind === 'action' ? await client.bodyFor(operationId) : undefined;
    const answer = await client.call(operationId, await client.pathFor(operationId, parent, target.id), body);
    if (!target.alive) {
      expect(answer.status, operationId).toBe(404);
    } else if (conflict(operationId, target.state)) {
      expect(answer.status, `${operationId} from ${JSON.stringify(target.state)}`).toBeGreaterThanOrEqual(400);
      expect(answer.status).not.toBe(404);
    } else {
      expect(answer.status, `${operationId} ${JSON.stringify(answer.body)}`).toBe(status(operationId));
      const move = machine?.transitions[operationId];
      if (move) target.state = move.to;
      if (command.kind === 'delete') target.alive = false;
      if (command.kind === 'update') target.sent = sentFields(operationId, body);
    }
    if (family.get && target.alive) {
      const answer = await client.call(family.get, await client.pathFor(family.get, parent, target.id));
      expect(answer.status).toBe(200);
      const got = itemOf(answer.body);
      if (machine) expect(got[machine.field] ?? null).toEqual(target.state ?? null);
      for (const [name, value] of Object.entries(target.sent ?? {}))
        expect(String(got[name]), name).toBe(String(value));
    }
  }
}

function isObjectBody(value: unknown): value is JsonObject {
  return typeof value === 'object' && value !== null;
}

/** The list in a list answer: a bare array, or the first array of objects in the wrapper (`data.tags`). */
function itemsOf(body: unknown): JsonObject[] {
  if (Array.isArray(body)) return body;
  for (const value of Object.values(body as JsonObject)) {
    if (Array.isArray(value) && value.every((item) => typeof item === 'object')) return value;
    if (value && typeof value === 'object') {
      const nested = itemsOf(value);
      if (nested.length > 0) return nested;
    }
  }
  return [];
}

/** The item in an item answer: bare, or in `data` or `result`. */
function itemOf(body: unknown): JsonObject {
  const wrapper = body as JsonObject;
  return (wrapper.data ?? wrapper.result ?? wrapper) as JsonObject;
}

/** A small deterministic generator (mulberry32), so UUIDs repeat from run to run. */
function seededRandom(seed: number): () => number {
  let state = seed;
  return () => {
    state = (state + 0x6d2b79f5) | 0;
    let t = Math.imul(state ^ (state >>> 15), 1 | state);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

describe('every resource family against its model', () => {
  it('covers the families the spec annotates', () => {
    expect(
      families()
        .map((f) => f.type)
        .sort(),
    ).toEqual(expect.arrayContaining(['data_table', 'folder', 'lookup_table', 'recipe']));
  });
});

// The same properties on each resource store engine the emulator can keep its state in.
describeEngines(resourceStoreEngines, ({ open }) => {
  for (const family of families()) {
    it(`${family.type}: create, get, list, update, delete and actions agree with the model`, {
      timeout: propertyTimeout(RUNS, 1000, FUZZ_SHARE),
    }, async () => {
      let tick = Date.UTC(2026, 0, 1);
      const engine = createResourceEngine(specs, {
        clock: () => (tick += 1000),
        random: seededRandom(7),
        store: await open(),
      });
      await fc.assert(
        fc.asyncProperty(commands(family), (sequence) => runSequence(engine, family, sequence)),
        propertyRuns(RUNS, FUZZ_SHARE),
      );
    });
  }
});
