// Hand-written handlers for the connector SDK's schema generation (computed from the request's JSON
// or CSV sample; nothing is stored) and the data-table file links (the table, its `file` column and
// the record must exist; the link names the emulator itself and expires by the injected clock).
import { createHash } from 'node:crypto';
import { NotFound } from '../../errors.js';
import type { JsonObject, StoredItem } from '../../store/resource-store.js';
import type { CheckedRequest, HandlerRegistry } from '../contract.js';
import { invalidFields, notFound } from '../errors.js';
import { isObject } from '../schema.js';
import { type Column, columnsOf } from './tables.js';

/** How long a file link works. */
export const FILE_LINK_TTL_MS = 15 * 60 * 1000;
/** Samples nested deeper than this are refused (400) rather than walked. */
const MAX_DEPTH = 64;

export const sdkfilesHandlers = {
  /** `generate_schema_from_json`: one field definition per field of a JSON object (or array of objects). */
  'sdk_schema.from_json': async (_workspace, _op, { body }) => {
    const sample = String(body.sample);
    let parsed: unknown;
    try {
      parsed = JSON.parse(sample);
    } catch (error) {
      throw invalidFields({ sample: `is not valid JSON: ${(error as Error).message}` });
    }
    return { body: schemaFromJson(parsed) };
  },

  /** `generate_schema_from_csv`: the header row names the fields, the values below give their types. */
  'sdk_schema.from_csv': async (_workspace, _op, { body }) => {
    const { sample, col_sep: separator = 'comma' } = body;
    return { body: await schemaFromCsv(String(sample), SEPARATORS[String(separator)] ?? ',') };
  },

  /** `generate_data_table_file_upload_link`: a link for a `file` column of the table (404 table or column, 400 not a file column). */
  'data_table_files.upload_link': async (workspace, op, request) => {
    const table = await workspace.itemOf(op, request.params);
    const column = fileColumn(table, request.params.field_id);
    const path = `/_emulator/uploads/${segments(table.id, column.field_id, workspace.values.uuid())}`;
    return { body: { data: link(request, path, Date.parse(workspace.values.now), '') } };
  },

  /** `generate_data_table_file_download_link`: a link to the file a record holds in a `file` column (404 when it holds none). */
  'data_table_files.download_link': async (workspace, op, request) => {
    const table = await workspace.parentOf(op, request.params);
    const record = await workspace.itemOf(op, request.params);
    const column = fileColumn(table, request.params.field_id);
    const document = Array.isArray(record.value.document) ? record.value.document : [];
    const held = document.find((entry) => isObject(entry) && entry.field_id === column.field_id);
    const value = isObject(held) ? held.value : null;
    if (value === null || value === undefined || (Array.isArray(value) && value.length === 0))
      throw new NotFound(`record ${record.id} has no file in column ${column.name}`);
    const path = `/_emulator/files/${segments(table.id, record.id, column.field_id)}`;
    return { body: { data: link(request, path, Date.parse(workspace.values.now), JSON.stringify(value)) } };
  },
} satisfies Partial<HandlerRegistry>;

// ---------------------------------------------------------------------------------------------------
// Data-table file links

/** The table's column with this field id: 404 when the table has none, 400 when it is not a `file` column. */
function fileColumn(table: StoredItem, fieldId: unknown): Column {
  const wanted = String(fieldId).toLowerCase();
  const column = columnsOf(table).find((c) => String(c.field_id).toLowerCase() === wanted);
  if (!column) throw notFound(`field ${fieldId} of data table`, table.id);
  if (column.type !== 'file')
    throw invalidFields({ field_id: `column ${column.name} is a ${column.type} column, not a file column` });
  return column;
}

/** The link: the emulator's own address (from the Host header), an expiry by the clock, and a signature over both. */
function link(request: CheckedRequest, path: string, now: number, content: string) {
  const expiresAt = new Date(now + FILE_LINK_TTL_MS).toISOString();
  const signature = createHash('sha256').update(`${path}\n${expiresAt}\n${content}`).digest('hex').slice(0, 32);
  const query = new URLSearchParams({ expires_at: expiresAt, signature });
  return { url: `http://${hostOf(request.host)}${path}?${query}`, expires_at: expiresAt };
}

const segments = (...ids: string[]) => ids.map(encodeURIComponent).join('/');

/** The Host header when it is a host name or address with an optional port; `localhost` otherwise. */
export function hostOf(host: string | undefined): string {
  const valid = /^(?:[A-Za-z0-9](?:[A-Za-z0-9.-]*[A-Za-z0-9])?|\[[0-9A-Fa-f:.]+\])(?::\d{1,5})?$/;
  return host !== undefined && valid.test(host) ? host : 'localhost';
}

// ---------------------------------------------------------------------------------------------------
// Schema generation

/** A field definition in the connector SDK's schema format (SdkSchemaField). */
interface SchemaField {
  name: string;
  label: string;
  type: string;
  control_type?: string;
  of?: string;
  properties?: SchemaField[];
}

type Scalar = 'string' | 'integer' | 'number' | 'boolean' | 'date' | 'date_time';

/** What the sample shows of a value: null (no type yet), a scalar type, an object's fields or an array's items. */
type Shape =
  | { kind: 'null' }
  | { kind: Scalar }
  | { kind: 'object'; fields: Map<string, Shape> }
  | { kind: 'array'; of: Shape | undefined };

const CONTROL_TYPES: Record<Scalar, string> = {
  string: 'text',
  integer: 'integer',
  number: 'number',
  boolean: 'checkbox',
  date: 'date',
  date_time: 'date_time',
};

/** The fields of a JSON object, or the fields of an array's objects merged; anything else is refused. */
export function schemaFromJson(sample: unknown): SchemaField[] {
  const notObjects = () => invalidFields({ sample: 'must be a JSON object or an array of JSON objects' });
  if (Array.isArray(sample) && !sample.every(isObject)) throw notObjects();
  const shape = shapeOf(sample, 0);
  const top = shape.kind === 'array' ? shape.of : shape;
  if (top === undefined) return [];
  if (top.kind !== 'object') throw notObjects();
  return fieldsOf(top.fields);
}

function shapeOf(value: unknown, depth: number): Shape {
  if (depth > MAX_DEPTH) throw invalidFields({ sample: `nests deeper than ${MAX_DEPTH} levels` });
  if (value === null) return { kind: 'null' };
  if (typeof value === 'string') return { kind: 'string' };
  if (typeof value === 'boolean') return { kind: 'boolean' };
  if (typeof value === 'number') return { kind: Number.isInteger(value) ? 'integer' : 'number' };
  if (Array.isArray(value)) {
    let of: Shape | undefined;
    for (const element of value) of = merge(of, shapeOf(element, depth + 1));
    return { kind: 'array', of };
  }
  const fields = new Map<string, Shape>();
  for (const [name, member] of Object.entries(value as JsonObject)) fields.set(name, shapeOf(member, depth + 1));
  return { kind: 'object', fields };
}

/** The shape both values fit: nulls take the other's type, integers and numbers are numbers, objects merge their fields; any other mix is a string. */
function merge(a: Shape | undefined, b: Shape): Shape {
  if (a === undefined || a.kind === 'null') return b;
  if (b.kind === 'null') return a;
  if (a.kind === 'object' && b.kind === 'object') {
    const fields = new Map(a.fields);
    for (const [name, shape] of b.fields) fields.set(name, merge(fields.get(name), shape));
    return { kind: 'object', fields };
  }
  if (a.kind === 'array' && b.kind === 'array')
    return { kind: 'array', of: b.of === undefined ? a.of : merge(a.of, b.of) };
  if (a.kind === b.kind) return a;
  const numeric = ['integer', 'number'];
  if (numeric.includes(a.kind) && numeric.includes(b.kind)) return { kind: 'number' };
  return { kind: 'string' };
}

function fieldsOf(fields: Map<string, Shape>): SchemaField[] {
  return [...fields].map(([name, shape]) => fieldOf(name, shape));
}

function fieldOf(name: string, shape: Shape): SchemaField {
  const field = { name, label: labelOf(name) };
  switch (shape.kind) {
    case 'object':
      return { ...field, type: 'object', properties: fieldsOf(shape.fields) };
    case 'array': {
      const of = shape.of === undefined || shape.of.kind === 'null' ? { kind: 'string' as const } : shape.of;
      if (of.kind === 'object') return { ...field, type: 'array', of: 'object', properties: fieldsOf(of.fields) };
      return { ...field, type: 'array', of: of.kind };
    }
    case 'null':
      return { ...field, type: 'string', control_type: 'text' };
    default:
      return { ...field, type: shape.kind, control_type: CONTROL_TYPES[shape.kind] };
  }
}

const ACRONYMS = new Set(['id', 'ids', 'url', 'uri', 'api', 'uuid', 'ip', 'sku', 'csv', 'json', 'html']);

/** `order_id` → `Order ID`, `createdAt` → `Created At`: words split at `_`, `-`, `.`, spaces and camelCase humps. */
export function labelOf(name: string): string {
  const words = name
    .replace(/([a-z0-9])([A-Z])/g, '$1 $2')
    .split(/[\s_.-]+/)
    .filter(Boolean);
  if (words.length === 0) return name;
  return words
    .map((word) =>
      ACRONYMS.has(word.toLowerCase())
        ? word.toLowerCase() === 'ids'
          ? 'IDs'
          : word.toUpperCase()
        : word.charAt(0).toUpperCase() + word.slice(1),
    )
    .join(' ');
}

const SEPARATORS: Record<string, string> = {
  comma: ',',
  semicolon: ';',
  space: ' ',
  tab: '\t',
  colon: ':',
  pipe: '|',
};

/** One field per header cell; its type is the one all its non-empty values have (string when they differ). */
export async function schemaFromCsv(sample: string, separator: string): Promise<SchemaField[]> {
  const rows = await parseCsv(sample, separator);
  const [header, ...records] = rows;
  if (!header) throw invalidFields({ sample: 'has no header row' });
  const problems: string[] = [];
  header.cells.forEach((name, index) => {
    if (name.trim() === '') problems.push(`column ${index + 1} of the header has no name`);
    else if (header.cells.indexOf(name) !== index) problems.push(`the header names ${name} twice`);
  });
  for (const record of records) {
    if (record.cells.length !== header.cells.length)
      problems.push(`line ${record.line} has ${record.cells.length} values; the header has ${header.cells.length}`);
  }
  if (problems.length > 0) throw invalidFields({ sample: problems.join('; ') });
  return header.cells.map((name, index) => {
    const type = columnType(records.map((record) => record.cells[index] ?? ''));
    return { name, label: labelOf(name), type, control_type: CONTROL_TYPES[type] };
  });
}

interface CsvRow {
  /** The line the row starts on, counting from 1. */
  line: number;
  cells: string[];
}

/** What a refusal of csv-parse means, by its code, in the words of a 400. */
const CSV_PROBLEMS: Record<string, string> = {
  CSV_QUOTE_NOT_CLOSED: 'a quoted value is not closed',
  INVALID_OPENING_QUOTE: 'a quote inside an unquoted value (quote the whole value and double the quote)',
  CSV_INVALID_CLOSING_QUOTE: 'text follows the closing quote of a value',
};

/**
 * RFC 4180 with a chosen separator (csv-parse, loaded when first needed): a value in double quotes
 * may hold separators, line breaks and doubled quotes (`""`); a quote inside an unquoted value, text
 * after a closing quote and an unclosed quote are refused (400, naming the line). Empty lines are skipped.
 */
async function parseCsv(text: string, separator: string): Promise<CsvRow[]> {
  const { parse } = await import('csv-parse/sync');
  let parsed: { record: string[]; info: { lines: number } }[];
  try {
    // With `info`, each record comes with where it was read; csv-parse's types do not say so.
    const options = { delimiter: separator, relax_column_count: true, skip_empty_lines: true, info: true };
    parsed = parse(text, options) as unknown as typeof parsed;
  } catch (error) {
    const { code, lines, message } = error as { code?: string; lines?: number; message: string };
    throw invalidFields({ sample: `line ${lines ?? 1}: ${CSV_PROBLEMS[code ?? ''] ?? message}` });
  }
  // csv-parse counts the line a row ends on; one with quoted line breaks started that many lines before.
  return parsed.map(({ record, info }) => ({ line: info.lines - lineBreaks(record), cells: record }));
}

function lineBreaks(cells: string[]): number {
  let count = 0;
  for (const cell of cells) count += cell.match(/\r\n|\r|\n/g)?.length ?? 0;
  return count;
}

const INTEGER = /^[-+]?(?:0|[1-9]\d*)$/;
const NUMBER = /^[-+]?(?:(?:0|[1-9]\d*)(?:\.\d*)?|\.\d+)(?:[eE][-+]?\d+)?$/;
const DATE = /^\d{4}-(?:0[1-9]|1[0-2])-(?:0[1-9]|[12]\d|3[01])$/;
const DATE_TIME = /^\d{4}-\d{2}-\d{2}[T ]\d{2}:\d{2}(?::\d{2}(?:\.\d+)?)?(?:Z|[+-]\d{2}:?\d{2})?$/i;

/** The type every non-empty value has, in this order: boolean, integer, number, date, date-time; else string. */
function columnType(values: string[]): Scalar {
  const present = values.filter((value) => value !== '');
  if (present.length === 0) return 'string';
  const all = (test: (value: string) => boolean) => present.every(test);
  if (all((v) => /^(?:true|false)$/i.test(v))) return 'boolean';
  if (all((v) => INTEGER.test(v))) return 'integer';
  if (all((v) => NUMBER.test(v))) return 'number';
  if (all((v) => DATE.test(v))) return 'date';
  if (all((v) => DATE_TIME.test(v) && !Number.isNaN(Date.parse(v)))) return 'date_time';
  return 'string';
}
