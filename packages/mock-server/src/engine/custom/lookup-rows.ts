// Lookup-table rows, keyed by the column labels of the table's schema (kept as JSON text).
import type { JsonObject, StoredItem } from '../../store/resource-store.js';
import type { HandlerRegistry } from '../contract.js';
import { invalidFields } from '../errors.js';
import { isObject } from '../schema.js';

export const lookupRowsHandlers = {
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
} satisfies Partial<HandlerRegistry>;

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
