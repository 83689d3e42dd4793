// wk-calls.json read and checked: what the platform's Go CLI, wk 1.0.2, sends and decodes, as data
// (its words are in its `$comment`). typeProblems holds an answer to what wk decodes, sendsProblems a
// request body to what wk sends, so the suite that drives wk's calls can send nothing wk would not.
import { readFileSync } from 'node:fs';

type Json = unknown;

/** A field's type: a name (`int`, `Recipe`, `[string]`, `time?`) or an object literal of fields. */
export type TypeExpression = string | { [field: string]: TypeExpression | boolean | Record<string, string> };

export interface WkCall {
  id: string;
  function: string;
  commands: string[];
  method: string;
  /** Below the `/api` prefix, with `{placeholders}`. */
  path: string;
  query?: Record<string, string>;
  /** What wk sends: fields (a name ending in `?` may be left out), or a word for a body that is not JSON fields. */
  sends?: TypeExpression;
  shape: string;
  /** The answer wk decodes; null when it reads no body. */
  reads: TypeExpression | null;
}

interface WkCalls {
  request: { prefix: string; headers: Record<string, string> };
  types: Record<string, Record<string, TypeExpression | boolean | Record<string, string>>>;
  sent_types: Record<string, Record<string, TypeExpression>>;
  calls: WkCall[];
}

export const wk = JSON.parse(readFileSync(new URL('./wk-calls.json', import.meta.url), 'utf8')) as WkCalls;

const SCALARS: Record<string, (value: Json) => boolean> = {
  int: (value) => Number.isSafeInteger(value),
  number: (value) => typeof value === 'number',
  string: (value) => typeof value === 'string',
  bool: (value) => typeof value === 'boolean',
  // RFC 3339, as Go's time.Time reads it: a full date, a time, and a Z or an offset.
  time: (value) =>
    typeof value === 'string' && /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?(Z|[+-]\d{2}:\d{2})$/.test(value),
  any: () => true,
  // Sent only: an integer id as its decimal digits; a string holding JSON text.
  idstr: (value) => typeof value === 'string' && /^[1-9][0-9]*$/.test(value),
  json: (value) => typeof value === 'string' && isJsonText(value),
  bytes: (value) => value instanceof Uint8Array,
};

function isJsonText(text: string): boolean {
  try {
    JSON.parse(text);
    return true;
  } catch {
    return false;
  }
}

const isObject = (value: Json): value is Record<string, Json> =>
  typeof value === 'object' && value !== null && !Array.isArray(value) && !(value instanceof Uint8Array);

const describe = (value: Json) => (value === undefined ? 'absent' : JSON.stringify(value)?.slice(0, 80));

/** Where the answer is not what wk decodes: each field wk reads, present, with its type (null only where allowed). */
export function typeProblems(value: Json, type: TypeExpression, at = '', named = wk.types): string[] {
  if (typeof type !== 'string') return objectProblems(value, type, at, named);
  const nullable = type.endsWith('?');
  const bare = nullable ? type.slice(0, -1) : type;
  if (value === null) return nullable ? [] : [`${at || '/'} is null, wk wants ${bare}`];
  if (bare.startsWith('[')) {
    if (!Array.isArray(value)) return [`${at || '/'} is ${describe(value)}, wk wants a list`];
    return value.flatMap((item, index) => typeProblems(item, bare.slice(1, -1), `${at}/${index}`, named));
  }
  if (bare === '{string}') {
    if (!isObject(value)) return [`${at || '/'} is ${describe(value)}, wk wants an object of strings`];
    return Object.entries(value).flatMap(([key, item]) => typeProblems(item, 'string', `${at}/${key}`, named));
  }
  const scalar = SCALARS[bare];
  if (scalar) return scalar(value) ? [] : [`${at || '/'} is ${describe(value)}, wk wants ${bare}`];
  const shape = named[bare];
  if (!shape) throw new Error(`wk-calls.json names an unknown type '${bare}' at ${at}`);
  return objectProblems(value, shape, at, named);
}

function objectProblems(value: Json, shape: Record<string, unknown>, at: string, named: WkCalls['types']): string[] {
  if (value === null && shape.$nullable === true) return [];
  if (!isObject(value)) return [`${at || '/'} is ${describe(value)}, wk wants an object`];
  const parent = typeof shape.$extends === 'string' ? named[shape.$extends] : undefined;
  const inherited = parent ? objectProblems(value, parent, at, named) : [];
  const own = Object.entries(shape)
    .filter(([field]) => !field.startsWith('$'))
    .flatMap(([field, type]) => {
      if (!(field in value)) return [`${at}/${field} is absent`];
      return typeProblems(value[field], type as TypeExpression, `${at}/${field}`, named);
    });
  return [...inherited, ...own];
}

/**
 * Where a request body is not one wk sends: every field is one wk sends, typed as it sends it (ids as
 * strings where it sends strings); a field whose name ends in `?` may be left out, the others not.
 */
export function sendsProblems(body: Json, sends: TypeExpression, at = ''): string[] {
  if (typeof sends === 'string') return typeProblems(body, sends, at, { ...wk.types, ...wk.sent_types });
  if (!isObject(body)) return [`${at || '/'} is ${describe(body)}, wk sends an object`];
  const fields = new Map(Object.entries(sends).map(([name, type]) => [name.replace(/\?$/, ''), { name, type }]));
  const extra = Object.keys(body)
    .filter((name) => !fields.has(name))
    .map((name) => `${at}/${name} is a field wk does not send`);
  const sent = [...fields].flatMap(([field, { name, type }]) => {
    if (body[field] === undefined) return name.endsWith('?') ? [] : [`${at}/${field} is missing; wk sends it`];
    return sendsProblems(body[field], type as TypeExpression, `${at}/${field}`);
  });
  return [...extra, ...sent];
}

/** The shape of an answer as wk.md's list of answer shapes names it, from what wk decodes. */
export function shapeOf(reads: TypeExpression | null): string {
  if (reads === null) return 'not read';
  if (reads === 'bytes') return 'zip';
  if (reads === '{string}') return 'flat map';
  if (typeof reads === 'string') {
    if (reads.startsWith('[')) return 'bare array';
    const fields = Object.keys(wk.types[reads] ?? {}).filter((field) => !field.startsWith('$'));
    const named: Record<string, string> = {
      'success,id': '{success,id}',
      'success,new_flow_id': '{success,new_flow_id}',
    };
    if (fields.join() === 'id') return '{id}';
    if (fields.join() === 'results') return '{results}';
    return named[fields.join()] ?? 'bare object';
  }
  const [key, inner] = Object.entries(reads)[0] ?? [];
  if (key === 'data' && typeof inner === 'object') return '{data:{tags}}';
  const list = typeof inner === 'string' && inner.startsWith('[');
  if (key === 'data') return list ? '{data:[]}' : '{data}';
  if (key === 'items') return '{items}';
  if (key === 'result') return '{result}';
  return 'bare object';
}
