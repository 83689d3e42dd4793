// The black-box tour of issue 15's "Done when": against a fresh `platform-api-mock` (the CLI, spawned
// as its own process on a free port of 127.0.0.1, its URL and credentials read from its banner, and
// stopped after the tour; POST /_emulator/reset empties it before each family), in memory, with a data
// dir and on Redis, over HTTP only, every
// resource family the engine can create goes through create, get, list, pagination, update, its
// actions, delete, 404 after delete, and (for a parent) its children going with it. Items it needs
// besides its own (parents, references) are seeded through PUT /_emulator/state. call() checks every
// answer against the spec for its operation and status.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createResourceEngine } from '../../src/engine/engine.js';
import { type OperationAnnotation, operationExtension, type ResourceType } from '../../src/engine/vocabulary.js';
import type { MockServer } from '../../src/index.js';
import type { JsonObject } from '../../src/store/resource-store.js';
import { type CliProcess, spawnEmulator, stopSpawned } from '../support/cli-process.js';
import { call, exampleBody, type OperationId, operation, specs, token } from '../support/helpers.js';
import { STORAGES } from '../support/storages.js';

const document = specs.documents.management;
// The spec's metadata, read with the emulator's own vocabulary reader; the server under test is separate.
const engine = createResourceEngine(specs);
const { types } = engine;

const annotationOf = (id: string) =>
  operationExtension(document, operation(id as OperationId), 'x-resource') as OperationAnnotation | undefined;
const byType = new Map<string, { id: string; a: OperationAnnotation }[]>();
for (const op of specs.operations.filter((o) => o.api === 'management')) {
  const a = annotationOf(op.operationId);
  if (a) byType.set(a.type, [...(byType.get(a.type) ?? []), { id: op.operationId, a }]);
}
const named = (type: string, kind: string) => byType.get(type)?.find((o) => o.a.op === kind)?.id;
/** An action the emulator carries out: not one it refuses with 501 (`x-effect: unsupported`). */
const carriedOut = ({ id, a }: { id: string; a: OperationAnnotation }) =>
  a.op === 'action' && engine.operations.find((op) => op.operation.operationId === id)?.effect?.verb !== 'unsupported';

/** The id a seeded item of the type gets in the tour: 900 + n, behind the type's prefix; UUIDs fixed. */
function seededId(type: ResourceType, n = 1): string | number {
  if (type.id.kind === 'integer') return 900 + n;
  if (type.id.kind === 'uuid') return `00000000-0000-4000-8000-00000000090${n}`;
  return `${type.id.prefix}90${n}`;
}

/** One item of each type the family needs (its parent chain, its references), as seed entries. */
function dependencies(family: ResourceType): Map<string, JsonObject> {
  const seeds = new Map<string, JsonObject>();
  const add = (name: string) => {
    if (seeds.has(name) || name === family.name) return;
    const type = types.get(name);
    if (!type) return;
    const entry: JsonObject = { [type.id.field]: seededId(type) };
    seeds.set(name, entry);
    if (type.parent) {
      add(type.parent.type);
      const parent = types.get(type.parent.type);
      if (parent) entry.$parent = seededId(parent);
    }
  };
  if (family.parent) add(family.parent.type);
  for (const ref of family.refs) add(ref.type);
  return seeds;
}

/** The example body, its reference fields pointed at the seeded items (or dropped: a reference to its own type). */
function bodyFor(operationId: string, family: ResourceType): unknown {
  const body = exampleBody(operation(operationId as OperationId));
  const wrapper = annotationOf(operationId)?.body;
  const target = (wrapper ? (body as JsonObject)?.[wrapper] : body) as JsonObject | undefined;
  // A request field the operation mirrors into a reference field (create_skill's recipe_id) names that type too.
  const mirrored = Object.entries(annotationOf(operationId)?.mirror ?? {});
  const fields = family.refs.map((ref) => ({
    ...ref,
    field: mirrored.find(([stored]) => stored === ref.field)?.[1] ?? ref.field,
  }));
  for (const ref of fields) {
    const sent = target?.[ref.field];
    if (!target || sent === undefined || sent === null) continue;
    const type = types.get(ref.type);
    if (!type || ref.type === family.name) {
      delete target[ref.field];
      continue;
    }
    const id = seededId(type);
    const one = typeof (Array.isArray(sent) ? sent[0] : sent) === 'string' ? String(id) : id;
    target[ref.field] = Array.isArray(sent) ? [one] : one;
  }
  return body;
}

function pathFor(operationId: string, family: ResourceType, item?: string): Record<string, string> {
  const a = annotationOf(operationId) ?? ({} as OperationAnnotation);
  const names = [...operation(operationId as OperationId).path.matchAll(/\{([^}]+)\}/g)].map((m) => m[1] ?? '');
  const params: Record<string, string> = {};
  if (item !== undefined) params[a.param ?? names.at(-1) ?? ''] = item;
  const parentName = a.parent_param ?? names[names.length - (item === undefined ? 1 : 2)];
  const parent = family.parent && types.get(family.parent.type);
  if (parent && parentName) params[parentName] = String(seededId(parent));
  for (const [param, field] of Object.entries(a.params ?? {})) {
    const ref = family.refs.find((r) => r.field === field);
    const refType = ref && types.get(ref.type);
    if (refType && names.includes(param) && params[param] === undefined) params[param] = String(seededId(refType));
  }
  return params;
}

function requiredQuery(operationId: string): Record<string, string> {
  const required = operation(operationId as OperationId).parameters.filter((p) => p.in === 'query' && p.required);
  return Object.fromEntries(required.map((p) => [p.name, String(p.example ?? p.schema?.example)]));
}

async function stateOf(server: MockServer): Promise<JsonObject> {
  return (await (await fetch(`${server.url}/_emulator/state`)).json()) as JsonObject;
}

async function putState(server: MockServer, state: unknown): Promise<void> {
  const answer = await fetch(`${server.url}/_emulator/state`, { method: 'PUT', body: JSON.stringify(state) });
  expect(answer.status, await answer.text()).toBe(204);
}

/** The ids of the type's items in the exported state, in store order. */
async function idsOf(server: MockServer, type: ResourceType): Promise<string[]> {
  const resources = (await stateOf(server)).resources as Record<string, JsonObject[]>;
  return (resources[type.name] ?? []).map((item) => String(item[type.id.field]));
}

function listed(body: unknown, type: ResourceType): string[] {
  const find = (value: unknown): JsonObject[] | undefined => {
    if (Array.isArray(value)) return value as JsonObject[];
    if (!value || typeof value !== 'object') return undefined;
    for (const inner of Object.values(value)) {
      const found = find(inner);
      if (found) return found;
    }
    return undefined;
  };
  return (find(body) ?? []).map((item) => String(item[type.id.field]));
}

const families = [...types.values()].filter((type) => named(type.name, 'create'));

/** The spawned emulator, as much of a MockServer as call() and token() use: its URL and credentials. */
type Emulator = Pick<MockServer, 'url' | 'clientId' | 'clientSecret'>;

for (const storage of STORAGES) {
  const skipped = storage.missing === undefined ? '' : ` (skipped: ${storage.missing})`;
  describe.skipIf(storage.missing !== undefined)(
    `a black-box tour of every resource family over HTTP, ${storage.name}${skipped}`,
    () => {
      let cli: CliProcess;
      let emulator: Emulator;

      beforeAll(async () => {
        ({ cli, emulator } = await spawnEmulator(await storage.args()));
      });

      afterAll(() => stopSpawned(cli));

      it('runs against a spawned platform-api-mock on 127.0.0.1', () => {
        expect(emulator.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
        expect(cli.child.exitCode).toBeNull();
      });

      it('covers every family the engine can create', () => {
        expect(families.length).toBeGreaterThanOrEqual(20);
      });

      for (const family of families) {
        it(`${family.name}: create, get, list and pages, update, actions, delete, 404 after, children gone`, async () => {
          const server = emulator as MockServer;
          const reset = await fetch(`${server.url}/_emulator/reset`, { method: 'POST' });
          expect(reset.status).toBeLessThan(300);
          const admin = await token(server);
          const run = (
            id: string,
            params: Record<string, string>,
            body?: unknown,
            query: Record<string, string | number> = {},
          ) =>
            call(server, id as OperationId, { token: admin, params, body, query: { ...requiredQuery(id), ...query } });
          const seeds = dependencies(family);
          const resources = Object.fromEntries([...seeds].map(([name, entry]) => [name, [entry]]));
          await putState(server, { version: 1, resources });

          const create = named(family.name, 'create') as string;
          const created = await run(create, pathFor(create, family), bodyFor(create, family));
          expect(created.status, `${create} ${JSON.stringify(created.body)}`).toBeLessThan(300);
          const [id] = await idsOf(server, family);
          expect(id).toBeDefined();
          const item = String(id);
          const get = named(family.name, 'get');
          if (get) expect((await run(get, pathFor(get, family, item))).status).toBe(200);
          const list = named(family.name, 'list');
          if (list) {
            expect(listed((await run(list, pathFor(list, family))).body, family)).toContain(item);
            const names = operation(list as OperationId).parameters.map((p) => p.name);
            const paging = [
              ['page', 'per_page'],
              ['page[number]', 'page[size]'],
            ].find(([p, s]) => names.includes(p ?? '') && names.includes(s ?? ''));
            if (paging) {
              const again = await run(create, pathFor(create, family), bodyFor(create, family));
              expect(again.status, JSON.stringify(again.body)).toBeLessThan(300);
              const ids = await idsOf(server, family);
              const page = await run(list, pathFor(list, family), undefined, {
                [paging[0] ?? '']: 2,
                [paging[1] ?? '']: 1,
              });
              const expected = family.order === 'newest_first' ? ids[0] : ids[1];
              expect(listed(page.body, family)).toEqual([expected]);
            }
          }
          const update = named(family.name, 'update');
          if (update) {
            const answer = await run(update, pathFor(update, family, item), bodyFor(update, family));
            expect(answer.status, `${update} ${JSON.stringify(answer.body)}`).toBeLessThan(300);
          }
          for (const action of (byType.get(family.name) ?? []).filter(carriedOut).map((o) => o.id)) {
            const body = operation(action as OperationId).requestBody ? (bodyFor(action, family) ?? {}) : undefined;
            const answer = await run(action, pathFor(action, family, item), body);
            expect(answer.status, `${action} ${JSON.stringify(answer.body)}`).not.toBe(404);
            expect(answer.status).toBeLessThan(500);
          }
          // A child of each sub-collection type goes with the item.
          const children = [...types.values()].filter((type) => type.parent?.type === family.name);
          if (children.length > 0) {
            const state = await stateOf(server);
            const held = state.resources as Record<string, JsonObject[]>;
            for (const child of children) held[child.name] = [...(held[child.name] ?? []), { $parent: item }];
            await putState(server, state);
          }
          const del = named(family.name, 'delete');
          if (del) {
            const deleted = await run(del, pathFor(del, family, item));
            expect(deleted.status, `${del} ${JSON.stringify(deleted.body)}`).toBeLessThan(300);
            if (get) expect((await run(get, pathFor(get, family, item))).status).toBe(404);
            expect((await run(del, pathFor(del, family, item))).status).toBe(404);
            if (list) expect(listed((await run(list, pathFor(list, family))).body, family)).not.toContain(item);
            const after = (await stateOf(server)).resources as Record<string, JsonObject[]>;
            for (const child of children)
              expect(
                (after[child.name] ?? []).filter((c) => String(c.$parent) === item),
                child.name,
              ).toEqual([]);
          }
        });
      }
    },
  );
}
