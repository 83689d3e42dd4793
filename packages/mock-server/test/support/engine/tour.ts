// The black-box tour of the management API (issue 15), over HTTP only, in one tenant: every resource
// family the engine can create goes through create, get, list, pagination, update, its actions,
// delete, 404 after delete, and (for a parent) its children going with it. Each family starts from an
// emptied tenant holding the items it needs besides its own (parents, references), seeded through PUT
// /_emulator/state. call() checks every answer against the spec for its operation and status.
// test/engine/tour.test.ts runs it in the default tenant of a spawned emulator; test/tenants-tour.test.ts
// in many workspaces of one emulator at once, through the hooks of TourTenant.
import { expect } from 'vitest';
import { createResourceEngine } from '../../../src/engine/engine.js';
import { type OperationAnnotation, operationExtension, type ResourceType } from '../../../src/engine/vocabulary.js';
import type { MockServer } from '../../../src/index.js';
import type { JsonObject } from '../../../src/store/resource-store.js';
import { control } from '../control/emulator-api.js';
import { type Answer, type CallOptions, call, exampleBody, type OperationId, operation, specs } from '../helpers.js';

const document = specs.documents.management;
// The spec's metadata, read with the emulator's own vocabulary reader; the server under test is separate.
const engine = createResourceEngine(specs);
export const { types } = engine;

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

/** Every family the engine can create: what the tour takes through its operations. */
export const families = [...types.values()].filter((type) => named(type.name, 'create'));

/** The emulator a tour runs on: as much of a MockServer as call() and control() use. */
export type Emulator = Pick<MockServer, 'url' | 'clientId' | 'clientSecret'>;

/** The tenant a tour runs in, called with an admin token of it; the hooks are the tenants' tour's checks. */
export interface TourTenant {
  /** Calls a platform operation as the tenant's admin, the answer checked against the spec. */
  call(operationId: OperationId, options: CallOptions): Promise<Answer>;
  exportState(): Promise<JsonObject>;
  replaceState(state: JsonObject): Promise<void>;
  /** Where each family starts: the tenant emptied (POST /_emulator/reset), then `seeds` loaded. */
  startFamily(seeds: JsonObject): Promise<void>;
  /** Appended to every name the tour sends, so that an item seen in another tenant says whose it is. */
  tag?: string;
  /** Each list answer the tour reads, with the ids it lists. */
  listed?(type: ResourceType, ids: string[]): Promise<void>;
  /** An item the tour made, and the get that reads it in this tenant. */
  made?(get: OperationId, options: CallOptions): Promise<void>;
}

/** The tenant `query` names (`?workspace=&environment=`; none: the default one), called with `token`. */
export function tourTenant(server: Emulator, token: string, query?: Record<string, string | number>): TourTenant {
  const own = server as MockServer;
  const tenant: TourTenant = {
    call: (operationId, options) => call(own, operationId, { token, ...options }),
    async exportState() {
      const answer = await control(own, 'export_state', { query });
      expect(answer.status).toBe(200);
      return answer.body as JsonObject;
    },
    async replaceState(state) {
      const answer = await control(own, 'replace_state', { query, body: state });
      expect(answer.status, JSON.stringify(answer.body)).toBe(204);
    },
    async startFamily(seeds) {
      expect((await control(own, 'reset', { query })).status).toBe(204);
      await tenant.replaceState(seeds);
    },
  };
  return tenant;
}

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

/**
 * The example body, its reference fields pointed at the seeded items (or dropped: a reference to its
 * own type), its name tagged.
 */
function bodyFor(operationId: string, family: ResourceType, tag: string | undefined): unknown {
  const body = exampleBody(operation(operationId as OperationId));
  const wrapper = annotationOf(operationId)?.body;
  const target = (wrapper ? (body as JsonObject)?.[wrapper] : body) as JsonObject | undefined;
  if (tag !== undefined && typeof target?.name === 'string') target.name = `${target.name} ${tag}`;
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

/** The ids of the type's items in the tenant's exported state, in store order. */
export async function idsOf(tenant: TourTenant, type: ResourceType): Promise<string[]> {
  const resources = (await tenant.exportState()).resources as Record<string, JsonObject[]>;
  return (resources[type.name] ?? []).map((item) => String(item[type.id.field]));
}

function listedIds(body: unknown, type: ResourceType): string[] {
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

/** The family's tour in the tenant: create, get, list and pages, update, actions, delete, 404 after, children gone. */
export async function tourFamily(tenant: TourTenant, family: ResourceType): Promise<void> {
  const run = (
    id: string,
    params: Record<string, string>,
    body?: unknown,
    query: Record<string, string | number> = {},
  ) => tenant.call(id as OperationId, { params, body, query: { ...requiredQuery(id), ...query } });
  const list = async (id: string, query?: Record<string, string | number>) => {
    const ids = listedIds((await run(id, pathFor(id, family), undefined, query)).body, family);
    await tenant.listed?.(family, ids);
    return ids;
  };
  const body = (id: string) => bodyFor(id, family, tenant.tag);
  const resources = Object.fromEntries([...dependencies(family)].map(([name, entry]) => [name, [entry]]));
  await tenant.startFamily({ version: 1, resources });

  const create = named(family.name, 'create') as string;
  const created = await run(create, pathFor(create, family), body(create));
  expect(created.status, `${create} ${JSON.stringify(created.body)}`).toBeLessThan(300);
  const [id] = await idsOf(tenant, family);
  expect(id).toBeDefined();
  const item = String(id);
  const get = named(family.name, 'get');
  if (get) {
    expect((await run(get, pathFor(get, family, item))).status).toBe(200);
    await tenant.made?.(get as OperationId, { params: pathFor(get, family, item), query: requiredQuery(get) });
  }
  const listing = named(family.name, 'list');
  if (listing) {
    expect(await list(listing)).toContain(item);
    const names = operation(listing as OperationId).parameters.map((p) => p.name);
    const paging = [
      ['page', 'per_page'],
      ['page[number]', 'page[size]'],
    ].find(([p, s]) => names.includes(p ?? '') && names.includes(s ?? ''));
    if (paging) {
      const again = await run(create, pathFor(create, family), body(create));
      expect(again.status, JSON.stringify(again.body)).toBeLessThan(300);
      const ids = await idsOf(tenant, family);
      const page = await list(listing, { [paging[0] ?? '']: 2, [paging[1] ?? '']: 1 });
      expect(page).toEqual([family.order === 'newest_first' ? ids[0] : ids[1]]);
    }
  }
  const update = named(family.name, 'update');
  if (update) {
    const answer = await run(update, pathFor(update, family, item), body(update));
    expect(answer.status, `${update} ${JSON.stringify(answer.body)}`).toBeLessThan(300);
  }
  for (const action of (byType.get(family.name) ?? []).filter(carriedOut).map((o) => o.id)) {
    const sent = operation(action as OperationId).requestBody ? (body(action) ?? {}) : undefined;
    const answer = await run(action, pathFor(action, family, item), sent);
    expect(answer.status, `${action} ${JSON.stringify(answer.body)}`).not.toBe(404);
    expect(answer.status).toBeLessThan(500);
  }
  // A child of each sub-collection type goes with the item.
  const children = [...types.values()].filter((type) => type.parent?.type === family.name);
  if (children.length > 0) {
    const state = await tenant.exportState();
    const held = state.resources as Record<string, JsonObject[]>;
    for (const child of children) held[child.name] = [...(held[child.name] ?? []), { $parent: item }];
    await tenant.replaceState(state);
  }
  const del = named(family.name, 'delete');
  if (del) {
    const deleted = await run(del, pathFor(del, family, item));
    expect(deleted.status, `${del} ${JSON.stringify(deleted.body)}`).toBeLessThan(300);
    if (get) expect((await run(get, pathFor(get, family, item))).status).toBe(404);
    expect((await run(del, pathFor(del, family, item))).status).toBe(404);
    if (listing) expect(await list(listing)).not.toContain(item);
    const after = (await tenant.exportState()).resources as Record<string, JsonObject[]>;
    for (const child of children)
      expect(
        (after[child.name] ?? []).filter((c) => String(c.$parent) === item),
        child.name,
      ).toEqual([]);
  }
}
