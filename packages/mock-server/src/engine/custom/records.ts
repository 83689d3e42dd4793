// Data-table records: values keyed by column name or `$<field_id>` and checked against the table's
// columns, and the record query language (filters, order, select, continuation tokens).
import type { components } from '@platform-api/spec/types/management';
import type { JsonObject } from '../../store/resource-store.js';
import type { HandlerRegistry } from '../contract.js';
import { invalidFields } from '../errors.js';
import { compare } from '../listing.js';
import { isObject } from '../schema.js';
import { type Column, columnsOf } from './tables.js';

interface FieldValue {
  field_id: string;
  value: unknown;
}

const META_FIELDS = ['$record_id', '$created_at', '$updated_at'];
const DEFAULT_QUERY_LIMIT = 100;

export const recordsHandlers = {
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
} satisfies Partial<HandlerRegistry>;

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
