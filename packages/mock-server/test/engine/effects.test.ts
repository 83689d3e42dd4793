// No success without its effect (issue 40): every management operation that is not a read is performed
// on a freshly prepared state, and the effect it declares is read back through the API. Generated from
// the bundled spec at test time: the operations, their effects (`x-effect` and what `x-resource` and
// `x-states` imply, as the engine's own vocabulary reader reads them), the state (effect-world.ts: the
// items of the spec's answer examples) and the requests (effect-requests.ts: the request examples, the
// ids they name pointed at that state). Black-box, on each storage: one spawned `platform-api-mock` per
// storage, whose whole state is replaced by the world before each operation (PUT /_emulator/state);
// call() checks every answer against the spec. An operation declared to have no effect must leave the
// state the API shows as it was; one the emulator cannot carry out must be refused with its 501.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  type DeclaredEffect,
  type Effect,
  type EngineOperation,
  operationExtension,
  type ReadBack,
  type ResourceType,
  readEffect,
} from '../../src/engine/vocabulary.js';
import type { MockServer } from '../../src/index.js';
import { deref, type Operation } from '../../src/spec/bundles.js';
import type { JsonObject } from '../../src/store/resource-store.js';
import { type CliProcess, spawnEmulator, stopSpawned } from '../support/cli-process.js';
import { defined } from '../support/defined.js';
import {
  first,
  packageZip,
  pathParams,
  queryOf,
  type Request,
  requestFor,
  type Scene,
  scalars,
  type Target,
} from '../support/engine/effect-requests.js';
import {
  document,
  type Emulator,
  engine,
  engineOps,
  idOf,
  itemsIn,
  itemsOfState,
  loadableWorld,
  putState,
  stateDocument,
  stateOf,
  typeNamed,
  type World,
} from '../support/engine/effect-world.js';
import {
  type Answer,
  call,
  exampleBody,
  jsonRequestMedia,
  managementErrorOf,
  type OperationId,
  specs,
  token,
} from '../support/helpers.js';
import { STORAGES } from '../support/storages.js';

const management = specs.operations.filter((op) => op.api === 'management');
/** Every operation of the specs: a read back or a fill may be another API's (consume, publish). */
const anyOperation = new Map(specs.operations.map((op) => [op.operationId, op]));
const changing = management.filter((op) => op.method.toUpperCase() !== 'GET');

function effectOf(op: Operation): DeclaredEffect | undefined {
  const served = engineOps.get(op.operationId);
  if (served) return served.effect;
  return readEffect(op.operationId, op, undefined, undefined, operationExtension(document, op, 'x-effect'));
}

// ---------------------------------------------------------------------------------------------------
// Reading back

/** The object in `body` (at any depth) whose `idField` is `id`. */
function findItem(body: unknown, idField: string, id: unknown): JsonObject | undefined {
  if (Array.isArray(body)) {
    for (const each of body) {
      const found = findItem(each, idField, id);
      if (found) return found;
    }
  } else if (body && typeof body === 'object') {
    const object = body as JsonObject;
    if (object[idField] !== undefined && String(object[idField]) === String(id)) return object;
    for (const inner of Object.values(object)) {
      const found = findItem(inner, idField, id);
      if (found) return found;
    }
  }
  return undefined;
}

/** Whether a list in `body` (at any depth) holds the id, or an object whose `idField` is the id. */
function lists(body: unknown, idField: string, id: unknown): boolean {
  if (Array.isArray(body))
    return body.some((each) =>
      each && typeof each === 'object' ? findItem(each, idField, id) !== undefined : String(each) === String(id),
    );
  if (body && typeof body === 'object') return Object.values(body).some((inner) => lists(inner, idField, id));
  return false;
}

/** The value at a dotted path. */
function at(value: unknown, path: string): unknown {
  return path
    .split('.')
    .reduce<unknown>(
      (current, key) => (current && typeof current === 'object' ? (current as JsonObject)[key] : undefined),
      value,
    );
}

/** Whether `actual` holds what was sent: equal scalars (a number sent as a string too), every sent member of an object. */
function holds(actual: unknown, sent: unknown): boolean {
  // A value kept as JSON text (a lookup table's schema, a recipe's config) holds the same value sent either way.
  if (typeof actual === 'string' && sent !== null && typeof sent === 'object') return holds(parsed(actual), sent);
  if (typeof sent === 'string' && actual !== null && typeof actual === 'object') return holds(actual, parsed(sent));
  if (Array.isArray(sent))
    return Array.isArray(actual) && actual.length === sent.length && sent.every((each, i) => holds(actual[i], each));
  if (sent && typeof sent === 'object')
    return (
      !!actual &&
      typeof actual === 'object' &&
      Object.entries(sent).every(([key, value]) => holds((actual as JsonObject)[key], value))
    );
  if (sent === null || actual === null) return sent === actual;
  return actual === sent || (typeof actual !== 'object' && String(actual) === String(sent));
}

function parsed(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}

/** The read operation of an effect: the declared one, else the type's get, else its list. */
function readOperation(effect: Effect): { op: Operation; query: JsonObject } {
  const typeName = effect.type;
  const declared: ReadBack | undefined = effect.read;
  if (declared) return { op: defined(anyOperation.get(declared.operation), declared.operation), query: declared.query };
  const kind = (k: string) => engine.operations.find((op) => op.type.name === typeName && op.op === k);
  const found = kind('get') ?? kind('list');
  return { op: defined(found, `a get or list of ${typeName} (or x-effect read)`).operation, query: {} };
}

// ---------------------------------------------------------------------------------------------------
// The operations

interface Context {
  emulator: Emulator;
  world: World;
  /** A token of the bootstrap key, which loading a state keeps (its secret does not change). */
  admin: string;
}

type Run = (
  op: Operation,
  options: { params?: Record<string, string>; query?: JsonObject; body?: unknown },
) => Promise<Answer>;

/** A state without the hidden fields (`$...`) the platform never shows. */
function shown(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(shown);
  if (!value || typeof value !== 'object') return value;
  return Object.fromEntries(
    Object.entries(value)
      .filter(([key]) => !key.startsWith('$') || key === '$parent')
      .map(([key, inner]) => [key, shown(inner)]),
  );
}

/** Performs the operation on the prepared state and reads its effect back. */
async function checkEffect(context: Context, op: Operation, effect: DeclaredEffect): Promise<void> {
  const declared = changesState(effect) ? effect : undefined;
  const scene = sceneFor(context.world, op, declared);
  const loaded = await putState(context.emulator, stateDocument(scene.world));
  expect(loaded.status, await loaded.text()).toBe(204);
  const target = scene.target && {
    type: scene.target.type,
    id: idOf(scene.target.type, scene.target.item),
    parent: scene.target.item.$parent === undefined ? undefined : String(scene.target.item.$parent),
  };
  const request = requestFor(scene, op, declared, target);
  const run = runner(context);
  if (declared) await new EffectCheck(context, scene, op, declared, run, request, target).run();
  else await checkNoEffect(context, op, effect, run, request);
}

/** The world prepared for the operation: the item it acts on, in a state it moves from. */
function sceneFor(world: World, op: Operation, effect: Effect | undefined): Scene {
  const scene: Scene = {
    world: structuredClone(world),
    refs: effect?.refs ?? {},
    mapped: new Map(),
    hints: scalars(exampleBody(op)),
  };
  if (effect?.verb === 'creates') withoutNamesakes(scene.world, effect.type, exampleBody(op));
  const served = engineOps.get(op.operationId);
  const targetType = effect?.by ? typeNamed(effect.type) : served && namesItem(served) ? served.type : undefined;
  const targetItem = targetType && first(scene, targetType.name);
  if (targetType && targetItem) scene.target = { type: targetType, item: targetItem };
  if (effect) prepare(scene, op, effect);
  return scene;
}

/** Calls operations with the admin token; a body that is not JSON is a package zip. */
function runner({ emulator, admin }: Context): Run {
  return (op, { params, query, body }) => {
    const raw = op.requestBody !== undefined && !jsonRequestMedia(op);
    return call(emulator as MockServer, op.operationId as OperationId, {
      token: admin,
      params,
      query: query as Record<string, string>,
      ...(raw ? { rawBody: packageZip(), headers: { 'content-type': 'application/octet-stream' } } : { body }),
    });
  };
}

/** `none`: a success that leaves what the API shows as it was; `unsupported`: the 501 naming the operation. */
async function checkNoEffect(context: Context, op: Operation, effect: DeclaredEffect, run: Run, request: Request) {
  const before = shown(await stateOf(context.emulator));
  const answer = await run(op, request);
  if (effect.verb === 'unsupported') {
    expect(answer.status).toBe(501);
    expect(managementErrorOf(answer).message).toContain(op.operationId);
  } else expect(answer.status, JSON.stringify(answer.body)).toBeLessThan(300);
  expect(shown(await stateOf(context.emulator)), `${op.operationId} declares no effect, yet changed the state`).toEqual(
    before,
  );
}

function changesState(effect: DeclaredEffect): effect is Effect {
  return effect.verb !== 'none' && effect.verb !== 'unsupported';
}

/** Drops the world's items named as the one a create makes (names are unique in some families: topics). */
function withoutNamesakes(world: World, typeName: string, body: unknown): void {
  const names = scalars(body);
  const items = world.get(typeName) ?? [];
  const type = typeNamed(typeName);
  const parents = new Set([...world.values()].flat().map((item) => String(item.$parent)));
  world.set(
    typeName,
    items.filter((item) => !(names.has(String(item.name)) && !parents.has(idOf(type, item)))),
  );
}

/** Whether the operation acts on one item its path names (or on its parent's singleton). */
function namesItem(served: EngineOperation): boolean {
  return served.param !== undefined || (served.type.singleton && served.op !== 'list' && served.op !== 'create');
}

/** Changes to the world an effect needs to be seen: a state to move from, an item a body field names. */
function prepare(scene: Scene, op: Operation, effect: Effect): void {
  const item = scene.target?.item;
  const machine = scene.target?.type.states;
  const move = machine?.transitions[op.operationId];
  if (item && machine && move) {
    // A state the operation moves from, other than the one it moves to, so that the move shows.
    const from = move.from.find((state) => JSON.stringify(state) !== JSON.stringify(move.to)) ?? move.from[0];
    item[machine.field] = from ?? null;
  }
  if (effect.by?.field && item && item[effect.by.field] === undefined) {
    const example = (exampleBody(op) as JsonObject | undefined)?.[effect.by.request];
    item[effect.by.field] = example ?? `by-${op.operationId}`;
  }
}

class EffectCheck {
  private readonly idsSent: unknown[];

  constructor(
    private readonly context: Context,
    private readonly scene: Scene,
    private readonly op: Operation,
    private readonly effect: Effect,
    private readonly perform: Run,
    private readonly request: Request,
    private readonly target: Target | undefined,
  ) {
    const { from } = effect;
    const sent = from && (at(request.body, from) ?? request.query[from]);
    this.idsSent = sent === undefined ? [] : [sent].flat();
  }

  private get type(): ResourceType {
    return typeNamed(this.effect.type);
  }

  async run(): Promise<void> {
    const { effect } = this;
    if (effect.fill) {
      const fill = defined(anyOperation.get(effect.fill), effect.fill);
      const filled = await this.perform(fill, requestFor(this.scene, fill, effect, this.target));
      expect(filled.status, `fill ${effect.fill}: ${JSON.stringify(filled.body)}`).toBeLessThan(300);
    }
    const stateBefore = effect.verb === 'creates' ? await stateOf(this.context.emulator) : {};
    const before = await this.read(this.target);
    if (effect.verb === 'removes') this.expectListed(before, true, 'before');
    if (effect.verb === 'clears' || effect.verb === 'empties')
      expect(this.listed(before), `something to empty before ${this.op.operationId}`).not.toEqual([]);
    const answer = await this.performOnce();
    switch (effect.verb) {
      case 'creates':
        return this.created(stateBefore);
      case 'updates':
        return this.updated(before, answer);
      case 'deletes':
        return this.deleted();
      case 'adds':
      case 'removes':
        return this.expectListed(await this.read(this.target), effect.verb === 'adds', 'after');
      case 'clears':
      case 'empties':
        expect(this.listed(await this.read(this.target)), `left after ${this.op.operationId}`).toEqual([]);
    }
  }

  private async performOnce(): Promise<Answer> {
    const answer = await this.perform(this.op, this.request);
    expect(answer.status, `${this.op.operationId}: ${JSON.stringify(answer.body)}`).toBeLessThan(300);
    return answer;
  }

  /** The read-back answer of the item (or of its list). */
  private async read(item?: Target): Promise<Answer> {
    const { op, query } = readOperation(this.effect);
    const readQuery = { ...queryOf({ ...this.scene, refs: {} }, op), ...query } as Record<string, string>;
    return call(this.context.emulator as MockServer, op.operationId as OperationId, {
      token: this.context.admin,
      params: pathParams(this.scene, op, item),
      query: readQuery,
      body: op.requestBody ? {} : undefined,
    });
  }

  /** The item in a read-back answer: by its id, or the answer's one item of the type (a singleton). */
  private itemIn(read: Answer, type: ResourceType, id: string | undefined): JsonObject | undefined {
    if (!type.singleton) return findItem(read.body, type.id.field, id);
    const found: JsonObject[] = [];
    itemsIn(read.body, type, found);
    return found[0];
  }

  private async created(stateBefore: JsonObject): Promise<void> {
    const type = this.type;
    const known = new Set(itemsOfState(stateBefore, type.name).map((item) => idOf(type, item)));
    const added = itemsOfState(await stateOf(this.context.emulator), type.name).filter(
      (item) => !known.has(idOf(type, item)),
    );
    const item = defined(added.at(-1), `a new ${type.name}`);
    const id = idOf(type, item);
    const parent = item.$parent === undefined ? undefined : String(item.$parent);
    const read = await this.read({ type, id, parent, created: true });
    expect(read.status, JSON.stringify(read.body)).toBe(200);
    const shownItem = this.itemIn(read, type, id);
    expect(shownItem, `the new ${type.name} ${id} in ${JSON.stringify(read.body)}`).toBeDefined();
    this.expectFieldsHeld(shownItem ?? {});
  }

  private async updated(before: Answer, answer: Answer): Promise<void> {
    const { effect } = this;
    const after = await this.read(this.target);
    expect(after.status, JSON.stringify(after.body)).toBe(200);
    if (effect.shows) {
      const sent = at(this.request.body, effect.shows) ?? this.request.query[effect.shows];
      expect(holds(after.body, sent), `${effect.shows} ${JSON.stringify(sent)} in ${JSON.stringify(after.body)}`).toBe(
        true,
      );
      return;
    }
    const target = defined(this.target, `the ${effect.type} the operation names`);
    const shownItem = defined(this.itemIn(after, target.type, target.id), `${effect.type} ${target.id} read back`);
    this.expectFieldsHeld(shownItem);
    for (const [field, value] of Object.entries(effect.set))
      expect(at(shownItem, field), `${field} after ${this.op.operationId}`).toEqual(value);
    const earlier = this.itemIn(before, target.type, target.id);
    for (const field of effect.changes)
      expect(at(shownItem, field), `${field} changed by ${this.op.operationId}`).not.toEqual(at(earlier, field));
    if (effect.renews.length > 0) {
      const again = await this.performOnce();
      const itemOf = (a: Answer) => this.itemIn(a, target.type, target.id) ?? (a.body as JsonObject);
      for (const field of effect.renews) {
        expect(at(itemOf(answer), field), `${field} in the answer`).toBeDefined();
        expect(at(itemOf(again), field), `${field} renewed by each ${this.op.operationId}`).not.toEqual(
          at(itemOf(answer), field),
        );
      }
    }
    const checks = this.sentFields().length + Object.keys(effect.set).length;
    expect(checks + effect.changes.length + effect.renews.length, 'something to read back').toBeGreaterThan(0);
  }

  private async deleted(): Promise<void> {
    const type = this.type;
    const ids = this.idsSent.length > 0 ? this.idsSent.map(String) : [defined(this.target, 'the item deleted').id];
    for (const id of ids) {
      const read = await this.read({ type, id, parent: this.target?.parent });
      if (read.status === 404) continue;
      expect(read.status).toBe(200);
      expect(findItem(read.body, type.id.field, id), `${type.name} ${id} after the delete`).toBeUndefined();
    }
  }

  private expectListed(read: Answer, listed: boolean, when: string): void {
    const ids = this.idsSent;
    expect(ids.length, `${this.effect.from} names items`).toBeGreaterThan(0);
    const field = this.effect.field;
    const idsOf = field ? undefined : this.type;
    const holder = field ? this.itemIn(read, this.type, this.target?.id)?.[field] : read.body;
    for (const id of ids)
      expect(lists(holder, idsOf?.id.field ?? 'id', id), `${id} listed ${when} ${this.op.operationId}`).toBe(listed);
  }

  /** The entries of the first list a read shows (the items to clear, the messages to purge). */
  private listed(read: Answer): unknown[] {
    const walk = (value: unknown): unknown[] | undefined => {
      if (Array.isArray(value)) return value;
      if (!value || typeof value !== 'object') return undefined;
      for (const inner of Object.values(value)) {
        const found = walk(inner);
        if (found) return found;
      }
      return undefined;
    };
    return walk(read.body) ?? [];
  }

  /** The item's fields and the sent values they must hold: `fields`, else every field of the type the body sends. */
  private sentFields(): [string, unknown][] {
    const served = engineOps.get(this.op.operationId);
    const { body } = this.request;
    if (this.effect.fields)
      return Object.entries(this.effect.fields).map(([field, sent]) => [
        field,
        at(body, sent) ?? this.request.query[sent],
      ]);
    const fields = (served?.body && body && typeof body === 'object' ? (body as JsonObject)[served.body] : body) as
      | JsonObject
      | undefined;
    if (!fields || typeof fields !== 'object' || Array.isArray(fields)) return [];
    const properties = (this.type.schema.properties ?? {}) as Record<string, JsonObject>;
    return Object.entries(fields).filter(([name]) => {
      const property = properties[name] && (deref(document, properties[name]) as JsonObject);
      return property && property.readOnly !== true && name !== this.type.id.field && name !== this.effect.by?.request;
    });
  }

  private expectFieldsHeld(item: JsonObject): void {
    for (const [name, value] of this.sentFields())
      expect(
        holds(at(item, name), value),
        `${name}: sent ${JSON.stringify(value)}, read ${JSON.stringify(at(item, name))}`,
      ).toBe(true);
  }
}

// ---------------------------------------------------------------------------------------------------

for (const storage of STORAGES) {
  const skipped = storage.missing === undefined ? '' : ` (skipped: ${storage.missing})`;
  describe.skipIf(storage.missing !== undefined)(
    `every operation that is not a read changes what it declares, ${storage.name}${skipped}`,
    () => {
      let cli: CliProcess;
      const context = {} as Context;

      beforeAll(async () => {
        const spawned = await spawnEmulator(await storage.args());
        cli = spawned.cli;
        context.emulator = spawned.emulator;
        context.world = await loadableWorld(context.emulator);
        context.admin = await token(context.emulator as MockServer);
      });

      afterAll(() => stopSpawned(cli));

      it('covers every management operation that is not a read', () => {
        expect(changing.length).toBeGreaterThan(150);
      });

      for (const op of changing) {
        const effect = effectOf(op);
        const title = `${op.operationId}: ${describeEffect(effect)}`;
        it(title, async () => {
          expect(effect, `${op.operationId} declares no effect`).toBeDefined();
          await checkEffect(context, op, defined(effect, 'effect'));
        });
      }
    },
  );
}

function describeEffect(effect: DeclaredEffect | undefined): string {
  if (!effect) return 'declares no effect';
  if (!changesState(effect)) return `${effect.verb === 'none' ? 'no effect' : 'refused, 501'} (${effect.reason})`;
  return `${effect.verb} ${effect.type}`;
}
