// The engine's hand-written handlers (`op: custom`): data-table records, whose values are keyed by
// column name or `$<field_id>` and checked against the table's columns, and the record query language;
// lookup-table rows, keyed by the column labels of a schema kept as JSON text; batch deletes; the older
// access profiles, collaborator group members and invitations. Larger families have a file each in
// custom/ (schema generation and file links, jobs and packages, access and account state), and so do
// the families whose state the domain keeps (topics, API clients and keys).

import type { components } from '@platform-api/spec/types/management';
import { Refused } from '../errors.js';
import type { DerivationHookName, HandlerName } from '../generated/handlers.js';
import type { JsonObject, StoredItem } from '../store/resource-store.js';
import type { CheckedRequest, Family, Handler, HandlerRegistry, HandlerResult, Workspace } from './contract.js';
import { apiClientsFamily } from './custom/api-clients.js';
import { collectionsHandlers } from './custom/collections.js';
import { connectionsHandlers } from './custom/connections.js';
import { connectorsHandlers } from './custom/connectors.js';
import { deploymentReviewersHandlers } from './custom/deployment-reviewers.js';
import { geniesHandlers } from './custom/genies.js';
import { grantsHandlers } from './custom/grants.js';
import { memberIds, USER_GROUP } from './custom/groups.js';
import { mcpHandlers, mcpHooks } from './custom/mcp.js';
import { packagesHandlers } from './custom/packages.js';
import { privilegesHandlers } from './custom/privileges.js';
import { projectsHandlers } from './custom/projects.js';
import { propertiesHandlers } from './custom/properties.js';
import { recipesHandlers, recipesHooks } from './custom/recipes.js';
import { roleMigrationHandlers } from './custom/role-migration.js';
import { heldRolesOf, rolesHandlers } from './custom/roles.js';
import { runsHandlers } from './custom/runs.js';
import { sdkfilesHandlers } from './custom/sdkfiles.js';
import { type Column, columnsOf } from './custom/tables.js';
import { tagsHandlers } from './custom/tags.js';
import { topicsFamily } from './custom/topics.js';
import { workspaceHandlers } from './custom/workspace.js';
import type { DerivationHook } from './derived.js';
import { invalidFields, notFound } from './errors.js';
import { compare, listPage } from './listing.js';
import { isObject, propertiesOf, resolve } from './schema.js';
import type { EngineOperation } from './vocabulary.js';

interface FieldValue {
  field_id: string;
  value: unknown;
}

const META_FIELDS = ['$record_id', '$created_at', '$updated_at'];
const DEFAULT_QUERY_LIMIT = 100;

/** The families whose state the domain keeps; their handlers are among customHandlers. */
export const families: readonly Family[] = [topicsFamily, apiClientsFamily];

/** The hand-written derived fields (`derived: {field: {hook: name}}`), by name. */
export const derivationHooks: Readonly<Record<DerivationHookName, DerivationHook>> = { ...recipesHooks, ...mcpHooks };

/** Every hand-written handler, by the name the spec gives it: tsc holds each to its operations' requests. */
export const customHandlers: HandlerRegistry = {
  ...topicsFamily.handlers,
  ...apiClientsFamily.handlers,
  ...sdkfilesHandlers,
  ...runsHandlers,
  ...propertiesHandlers,
  ...tagsHandlers,
  ...grantsHandlers,
  ...rolesHandlers,
  ...privilegesHandlers,
  ...deploymentReviewersHandlers,
  ...roleMigrationHandlers,
  ...connectionsHandlers,
  ...connectorsHandlers,
  ...geniesHandlers,
  ...projectsHandlers,
  ...packagesHandlers,
  ...recipesHandlers,
  ...mcpHandlers,
  ...collectionsHandlers,
  ...workspaceHandlers,
  'data_table_records.create': async (workspace, op, { params, body }) => {
    const table = await workspace.parentOf(op, params);
    const columns = columnsOf(table);
    const values = valuesByField(columns, body);
    for (const column of columns) {
      if (!values.has(column.field_id) && column.default_value !== undefined && column.default_value !== null)
        values.set(column.field_id, column.default_value);
    }
    const missing = columns.filter((c) => !c.optional && (values.get(c.field_id) ?? null) === null);
    if (missing.length > 0) throw invalidFields(Object.fromEntries(missing.map((c) => [c.name, 'is required'])));
    return { item: await workspace.create(op, { document: documentOf(columns, values) }, table) };
  },

  'data_table_records.update': async (workspace, op, { params, body }) => {
    const table = await workspace.parentOf(op, params);
    const record = await workspace.itemOf(op, params);
    const columns = columnsOf(table);
    const values = new Map((record.value.document as FieldValue[]).map((entry) => [entry.field_id, entry.value]));
    for (const [fieldId, value] of valuesByField(columns, body)) values.set(fieldId, value);
    const cleared = columns.filter((c) => !c.optional && (values.get(c.field_id) ?? null) === null);
    if (cleared.length > 0) throw invalidFields(Object.fromEntries(cleared.map((c) => [c.name, 'is required'])));
    return { item: await workspace.update(op, record, { document: documentOf(columns, values) }) };
  },

  'data_table_records.query': async (workspace, op, { params, body }) => {
    const table = await workspace.parentOf(op, params);
    const query = body ?? {};
    const columns = columnsOf(table);
    const field = (name: string) => fieldReader(columns, name);
    const records = (await workspace.store.list(op.type.name, table.id)).map((item) => item.value);
    const { where } = query;
    const matching = where ? records.filter((record) => filterMatches(field, where, record)) : records;
    if (query.order) sortRecords(field, query.order, matching);
    const offset = offsetOf(query.continuation_token);
    const limit = query.limit ?? DEFAULT_QUERY_LIMIT;
    const page = matching.slice(offset, offset + limit).map((record) => selected(columns, query.select, record));
    const next = offset + limit < matching.length ? tokenFor(offset + limit) : null;
    return { body: { data: page, continuation_token: next } };
  },

  'lookup_table_rows.create': async (workspace, op, { params, body }) => {
    const table = await workspace.parentOf(op, params);
    const data = rowValues(table, body.data);
    return { item: await workspace.create(op, { data }, table) };
  },

  'lookup_table_rows.update': async (workspace, op, { params, body }) => {
    const table = await workspace.parentOf(op, params);
    const row = await workspace.itemOf(op, params);
    const held = isObject(row.value.data) ? row.value.data : {};
    const data = { ...held, ...rowValues(table, body.data) };
    return { item: await workspace.update(op, row, { data }) };
  },

  /** `{ids}` in, every id deleted (with its sub-collections); one that names no item is a 404 and nothing is deleted. */
  delete_each: async (workspace, op, { body }) => {
    const ids = idsIn(body, 'ids');
    const items = await itemsNamed(workspace, op, ids);
    for (const item of items) await workspace.delete(op, item);
    return {};
  },

  /** The items named by the body's `add.from` ids each get the path parameter's value in their `add.field`. */
  add_to_each: (workspace, op, request) => changeEach(workspace, op, request, 'add'),

  /** The items named by the body's `remove.from` ids each lose the path parameter's value from `remove.field`. */
  remove_from_each: (workspace, op, request) => changeEach(workspace, op, request, 'remove'),

  /**
   * A new item with the writable fields of the one the path names (not its id, timestamps, counters or
   * state: read-only fields), overridden by the body's (`copy_role`, `copy_recipe`).
   */
  copy: async (workspace, op, { params, body }) => {
    const original = await workspace.itemOf(op, params);
    const properties = propertiesOf(op.type.schema);
    const writable = (name: string) =>
      properties[name] !== undefined && resolve(workspace.values.document, properties[name]).readOnly !== true;
    const copied = Object.entries(original.value).filter(([name]) => writable(name) && name !== op.type.states?.field);
    const sent = Object.entries(isObject(body) ? body : {}).filter(([name]) => properties[name]);
    const parent = original.parent === undefined ? undefined : await workspace.parentOf(op, params);
    return { item: await workspace.create(op, Object.fromEntries([...copied, ...sent]), parent) };
  },

  /** An update whose path names no item: the body's `id` names it (the older access-profile form). */
  update_by_body_id: async (workspace, op, { body }) => {
    const { id, ...fields } = body ?? {};
    const item = await workspace.store.get(op.type.name, String(id));
    if (!item) throw notFound(label(op.type.name), id);
    return { item: await workspace.update(op, item, schemaFields(op, fields)) };
  },

  /** A create whose answer shows the profile's new secret, once (it is not stored, so no later answer shows it). */
  'access_profiles.create': async (workspace, op, { body }) => {
    const created = await workspace.create(op, schemaFields(op, body ?? {}), undefined);
    return { item: { ...created, ...newSecret(workspace, created) } };
  },

  /** `{action: enable|disable, id}`: sets `active`; enabling an enabled profile (or the opposite) also succeeds. */
  'access_profiles.enable_or_disable': async (workspace, op, { body }) => {
    const { action, id } = body;
    const item = await workspace.store.get(op.type.name, String(id));
    if (!item) throw notFound(label(op.type.name), id);
    await workspace.update(op, item, { active: action === 'enable' });
    return {};
  },

  /** A new secret for a `token` or `oauth2` profile (shown once); other kinds have none (400). */
  'access_profiles.refresh_secret': async (workspace, op, { params }) => {
    const item = await workspace.itemOf(op, params);
    const secret = newSecret(workspace, item.value);
    if (Object.keys(secret).length === 0)
      throw invalidFields({ auth_type: `a ${item.value.auth_type} profile has no secret to refresh` });
    const updated = await workspace.update(op, item, { updated_at: workspace.values.now });
    return { item: { ...updated, ...secret } };
  },

  /** The members of the collaborator group named in the path, filtered by `text` (name or email) and paged. */
  'user_group_members.list': async (workspace, op, { params }) => {
    const group = await groupOf(workspace, params);
    const members = await membersOf(workspace, op, group);
    const text = params.text === undefined ? undefined : String(params.text).toLowerCase();
    const matching = members.filter(
      (m) =>
        text === undefined ||
        [m.name, m.email].some((v) =>
          String(v ?? '')
            .toLowerCase()
            .includes(text),
        ),
    );
    return listPage(op.operation, params, matching, op.type.id.field);
  },

  /** Adds the members named by the `user_ids` parameter to the group (each must exist: 404 before any change). */
  'user_group_members.add': async (workspace, op, { params }) => {
    const group = await groupOf(workspace, params);
    const ids = (await itemsNamed(workspace, op, idsIn(params, 'user_ids'))).map((item) => item.id);
    const held = memberIds(group);
    await saveMembers(workspace, group, [...held, ...ids.filter((id) => !held.includes(id))]);
    return {};
  },

  /** Removes the members named by `user_ids` (or joined through `member_invitation_ids`); one of the two is required. */
  'user_group_members.remove': async (workspace, op, { params }) => {
    const group = await groupOf(workspace, params);
    const users = idsIn(params, 'user_ids').map(String);
    const invitations = idsIn(params, 'member_invitation_ids').map(String);
    if (users.length === 0 && invitations.length === 0)
      throw invalidFields({ user_ids: 'or member_invitation_ids is required' });
    const invited = new Set<string>();
    for (const member of await workspace.store.list(op.type.name)) {
      if (invitations.includes(String(member.value.$invitation_id))) invited.add(member.id);
    }
    await saveMembers(
      workspace,
      group,
      memberIds(group).filter((id) => !users.includes(id) && !invited.has(id)),
    );
    return {};
  },

  /**
   * An invitation: the person becomes a collaborator at once (the emulator sends no email), with a role
   * per environment, and joins the collaborator groups named (each must exist). An email already in the
   * workspace is refused (422).
   */
  'members.invite': async (workspace, op, { body }) => {
    const request = body;
    const groupIds = idsIn(request, 'user_group_ids').map(String);
    const groups: StoredItem[] = [];
    for (const id of groupIds) {
      const group = await workspace.store.get(USER_GROUP, id);
      if (!group)
        throw new Refused(422, `user_group_ids: collaborator group ${id} was not found`, [
          { pointer: '/user_group_ids', message: `no collaborator group ${id}` },
        ]);
      groups.push(group);
    }
    const email = String(request.email).toLowerCase();
    const taken = (await workspace.store.list(op.type.name)).some((m) => String(m.value.email).toLowerCase() === email);
    if (taken)
      throw new Refused(422, `${request.email} is already a collaborator`, [
        { pointer: '/email', message: 'is already a collaborator' },
      ]);
    const roles = heldRolesOf(request.env_roles);
    const invitation = await workspace.store.nextId('member_invitation');
    const member = await workspace.create(
      op,
      { name: request.name, email: request.email, roles, grant_type: 'team', $invitation_id: invitation },
      undefined,
    );
    for (const group of groups) await saveMembers(workspace, group, [...memberIds(group), String(member.id)]);
    return { body: { result: 'ok' } };
  },

  /**
   * `regenerate_developer_api_client_token`: a new token, whose value the answer shows this once (it is
   * not stored, so no later answer shows it), and the client's `token.updated_at`.
   */
  'developer_api_clients.regenerate': async (workspace, op, { params }) => {
    const client = await workspace.itemOf(op, params);
    const token = { updated_at: workspace.values.now };
    const updated = await workspace.update(op, client, { token });
    return { item: { ...updated, token: { ...token, value: randomSecret(workspace) + randomSecret(workspace) } } };
  },

  /** `{ids}` in, `{data: {deleted_ids, failed}}` out: each id is deleted (with its sub-collections) or reported. */
  batch_delete: async (workspace, op, { body }) => {
    const deleted: unknown[] = [];
    const failed: { id: unknown; message: string }[] = [];
    for (const id of body.ids as unknown[]) {
      const item = await workspace.store.get(op.type.name, String(id));
      if (item) {
        await workspace.delete(op, item);
        deleted.push(id);
      } else failed.push({ id, message: `${op.type.name.replace(/_/g, ' ')} ${id} was not found` });
    }
    return { body: { data: { deleted_ids: deleted, failed } } };
  },
};

/**
 * The handler the spec names, for the engine, which finds it by the name it read at start: the
 * pipeline checked the request against the same operation whose name it is.
 */
export function customHandler(name: string): Handler | undefined {
  return Object.hasOwn(customHandlers, name) ? (customHandlers[name as HandlerName] as Handler) : undefined;
}

/** The hand-written derived field the spec names, found by the name the engine read at start. */
export function derivationHook(name: string): DerivationHook | undefined {
  return Object.hasOwn(derivationHooks, name) ? derivationHooks[name as DerivationHookName] : undefined;
}

/** The ids of a body field (one id or a list). */
function idsIn(body: unknown, field: string): unknown[] {
  const sent = isObject(body) ? body[field] : undefined;
  return Array.isArray(sent) ? sent : sent === undefined ? [] : [sent];
}

/** The items of the operation's type with these ids; a 404 for the first id that names none. */
async function itemsNamed(workspace: Workspace, op: EngineOperation, ids: unknown[]): Promise<StoredItem[]> {
  const items: StoredItem[] = [];
  for (const id of ids) {
    const item = await workspace.store.get(op.type.name, String(id));
    if (!item) throw notFound(op.type.name.replace(/_/g, ' '), id);
    items.push(item);
  }
  return items;
}

async function changeEach(
  workspace: Workspace,
  op: EngineOperation,
  { params, body }: CheckedRequest,
  which: 'add' | 'remove',
): Promise<HandlerResult> {
  const change = op[which];
  if (!change || op.param === undefined)
    throw new Error(`${op.operation.operationId}: ${which}_to_each needs ${which} and a path parameter`);
  const value = params[op.param];
  for (const item of await itemsNamed(workspace, op, idsIn(body, change.from))) {
    const held = item.value[change.field];
    const current: unknown[] = Array.isArray(held) ? held : [];
    const has = current.some((entry) => String(entry) === String(value));
    const next =
      which === 'add'
        ? has
          ? current
          : [...current, value]
        : current.filter((entry) => String(entry) !== String(value));
    await workspace.update(op, item, { [change.field]: next });
  }
  return {};
}

/** The row's values keyed by the table's column labels (its schema is JSON text); an unknown label is refused. */
function rowValues(table: StoredItem, sent: unknown): JsonObject {
  const data = isObject(sent) ? sent : {};
  const columns = JSON.parse(String(table.value.schema)) as { label: string }[];
  const labels = new Set(columns.map((column) => column.label));
  const unknown = Object.keys(data).filter((label) => !labels.has(label));
  if (unknown.length > 0)
    throw invalidFields(Object.fromEntries(unknown.map((label) => [label, 'is not a column of the table'])));
  return data;
}

function columnNamed(columns: Column[], name: string): Column | undefined {
  return name.startsWith('$') ? columns.find((c) => `$${c.field_id}` === name) : columns.find((c) => c.name === name);
}

/** The body's values by field id, each checked against its column; unknown columns and wrong types are refused. */
function valuesByField(columns: Column[], body: JsonObject): Map<string, unknown> {
  const values = new Map<string, unknown>();
  const errors: Record<string, string> = {};
  for (const [name, value] of Object.entries(body)) {
    const column = columnNamed(columns, name);
    const problem = column ? valueProblem(column, value) : 'is not a column of the table';
    if (problem) errors[name] = problem;
    else if (column) values.set(column.field_id, value);
  }
  if (Object.keys(errors).length > 0) throw invalidFields(errors);
  return values;
}

function valueProblem(column: Column, value: unknown): string | undefined {
  if (value === null) return column.optional ? undefined : 'is required';
  if (column.multivalue) {
    if (!Array.isArray(value)) return 'must be a list (multivalue column)';
    return value.map((v) => scalarProblem(column.type, v)).find(Boolean);
  }
  return Array.isArray(value) ? 'must be a single value' : scalarProblem(column.type, value);
}

function scalarProblem(type: string, value: unknown): string | undefined {
  const ok: Record<string, (v: unknown) => boolean> = {
    boolean: (v) => typeof v === 'boolean',
    integer: (v) => Number.isInteger(v),
    number: (v) => typeof v === 'number',
    date: (v) => typeof v === 'string' && /^\d{4}-\d{2}-\d{2}$/.test(v),
    date_time: (v) => typeof v === 'string' && !Number.isNaN(Date.parse(v)),
  };
  const check = ok[type] ?? ((v: unknown) => typeof v === 'string');
  return check(value) ? undefined : `must be a ${type.replace('_', '-')}`;
}

/** The record's `document`: one entry per column with a value, in column order. */
function documentOf(columns: Column[], values: Map<string, unknown>): FieldValue[] {
  return columns
    .filter((c) => (values.get(c.field_id) ?? null) !== null)
    .map((c) => ({ field_id: c.field_id, value: values.get(c.field_id) }));
}

type FieldReader = (record: JsonObject) => unknown;

function fieldReader(columns: Column[], name: string): FieldReader {
  if (META_FIELDS.includes(name)) return (record) => record[name.slice(1)];
  const column = columnNamed(columns, name);
  if (!column) throw invalidFields({ [name]: 'is not a field of the table' });
  return (record) =>
    (record.document as FieldValue[]).find((entry) => entry.field_id === column.field_id)?.value ?? null;
}

function filterMatches(field: (name: string) => FieldReader, filter: JsonObject, record: JsonObject): boolean {
  return Object.entries(filter).every(([key, condition]) => {
    if (key === '$and') return (condition as JsonObject[]).every((f) => filterMatches(field, f, record));
    if (key === '$or') return (condition as JsonObject[]).some((f) => filterMatches(field, f, record));
    const actual = field(key)(record);
    return Object.entries(condition as JsonObject).every(([operator, operand]) => holds(operator, actual, operand));
  });
}

function holds(operator: string, actual: unknown, operand: unknown): boolean {
  const { value, case_sensitive: caseSensitive = true } = isObject(operand) ? operand : { value: operand };
  const fold = (v: unknown) => (!caseSensitive && typeof v === 'string' ? v.toLowerCase() : v);
  const [a, b] = [fold(actual), Array.isArray(value) ? value.map(fold) : fold(value)];
  const values = Array.isArray(a) ? a : [a];
  switch (operator) {
    case '$eq':
      return values.some((v) => v === b);
    case '$ne':
      return values.every((v) => v !== b);
    case '$in':
      return Array.isArray(b) && values.some((v) => b.includes(v));
    case '$starts_with':
      return values.some((v) => typeof v === 'string' && v.startsWith(String(b)));
    default:
      return values.some((v) => v !== null && b !== null && comparisonHolds(operator, compare(v, b)));
  }
}

function comparisonHolds(operator: string, order: number): boolean {
  if (operator === '$gt') return order > 0;
  if (operator === '$gte') return order >= 0;
  if (operator === '$lt') return order < 0;
  return order <= 0;
}

type RecordOrder = components['schemas']['DataTableRecordOrder'];

function sortRecords(field: (name: string) => FieldReader, order: RecordOrder, records: JsonObject[]): void {
  const {
    by,
    order: direction = 'asc',
    case_sensitive: caseSensitive = true,
  } = typeof order === 'string' ? { by: order } : order;
  const read = field(by);
  const key = (record: JsonObject) => {
    const value = read(record);
    return !caseSensitive && typeof value === 'string' ? value.toLowerCase() : value;
  };
  const sign = direction === 'desc' ? -1 : 1;
  records.sort((x, y) => {
    const [a, b] = [key(x), key(y)];
    // Records without a value come last in either direction.
    if (a === null || b === null) return a === b ? 0 : a === null ? 1 : -1;
    return sign * compare(a, b);
  });
}

function selected(columns: Column[], select: string[] | undefined, record: JsonObject): JsonObject {
  if (!select) return record;
  const ids = new Set(
    select
      .filter((name) => !META_FIELDS.includes(name))
      .map((name) => {
        const column = columnNamed(columns, name);
        if (!column) throw invalidFields({ select: `${name} is not a field of the table` });
        return column.field_id;
      }),
  );
  return { ...record, document: (record.document as FieldValue[]).filter((entry) => ids.has(entry.field_id)) };
}

/** Continuation tokens are opaque to clients: the offset of the next page, base64url-encoded. */
function tokenFor(offset: number): string {
  return Buffer.from(JSON.stringify({ offset })).toString('base64url');
}

function offsetOf(token: unknown): number {
  if (token === undefined) return 0;
  try {
    const { offset } = JSON.parse(Buffer.from(String(token), 'base64url').toString('utf8'));
    if (Number.isSafeInteger(offset) && offset >= 0) return offset;
  } catch {
    // Answered below: a token this emulator did not give out.
  }
  throw invalidFields({ continuation_token: 'is not a token of a previous page' });
}

const label = (typeName: string) => typeName.replace(/_/g, ' ');

/** The body's fields that the operation's resource schema has (not readOnly ones: schemaFields drops `id`). */
function schemaFields(op: EngineOperation, fields: JsonObject): JsonObject {
  const properties = propertiesOf(op.type.schema);
  return Object.fromEntries(Object.entries(fields).filter(([name]) => properties[name] && name !== op.type.id.field));
}

/** 32 random hex digits, from the engine's (seedable) randomness. */
function randomSecret(workspace: Workspace): string {
  return workspace.values.uuid().replace(/-/g, '');
}

/** A new secret for an access profile: `secret` for a token profile, an OAuth 2.0 client for an oauth2 one. */
function newSecret(workspace: Workspace, profile: JsonObject): JsonObject {
  const random = () => randomSecret(workspace);
  if (profile.auth_type === 'token') return { secret: random() };
  if (profile.auth_type === 'oauth2') return { oauth_client_id: random(), oauth_client_secret: random() + random() };
  return {};
}

async function groupOf(workspace: Workspace, params: Readonly<JsonObject>): Promise<StoredItem> {
  const group = await workspace.store.get(USER_GROUP, String(params.id));
  if (!group) throw notFound('collaborator group', params.id);
  return group;
}

/** The group's members that still exist, in the order they joined. */
async function membersOf(workspace: Workspace, op: EngineOperation, group: StoredItem): Promise<JsonObject[]> {
  const members: JsonObject[] = [];
  for (const id of memberIds(group)) {
    const member = await workspace.store.get(op.type.name, id);
    if (member) members.push(member.value);
  }
  return members;
}

async function saveMembers(workspace: Workspace, group: StoredItem, ids: string[]): Promise<void> {
  const existing: string[] = [];
  for (const id of ids) if (await workspace.store.get('member', id)) existing.push(id);
  const changed = existing.join() !== memberIds(group).join();
  const value: JsonObject = { ...group.value, $members: existing, members_count: existing.length };
  if (changed) value.updated_at = workspace.values.now;
  await workspace.store.put(USER_GROUP, { ...group, value });
}
