// Data tables as the hand-written handlers share them: the records' handlers in records.ts and the
// file links in sdkfiles.ts read a table's columns.
import type { StoredItem } from '../../store/resource-store.js';

/** A column of a data table's `schema` (DataTableColumn). */
export interface Column {
  name: string;
  field_id: string;
  type: string;
  optional: boolean;
  multivalue: boolean;
  default_value?: unknown;
}

/** A table's columns; `schema` is required of a data table, so every stored table has them. */
export function columnsOf(table: StoredItem): Column[] {
  return table.value.schema as Column[];
}
