// List filters (`filters` of EXTENSIONS.md) and pagination, inferred from a list's query parameters
// by the convention the client's pagination table follows too (@platform-api/spec/conventions):
// `page`/`per_page`, `page[number]`/`page[size]` or a `page[after]` cursor, with their schemas' defaults.
import { FIRST_PAGE, pagingOf } from '@platform-api/spec/conventions';
import type { Operation } from '../spec/bundles.js';
import type { JsonObject } from '../store/resource-store.js';
import type { AnswerData } from './answers.js';
import type { Filter } from './vocabulary.js';

export function matchesFilters(filters: Filter[], params: Readonly<JsonObject>, value: JsonObject): boolean {
  return filters.every(
    (filter) =>
      (params[filter.param] === undefined && filter.match !== 'shown_if_true') ||
      matches(filter, fieldAt(value, filter.field), params[filter.param]),
  );
}

/** The value of a field, or of a nested one named by a dotted path (`project.id`). */
function fieldAt(value: JsonObject, path: string): unknown {
  return path
    .split('.')
    .reduce<unknown>(
      (held, name) => (held && typeof held === 'object' ? (held as JsonObject)[name] : undefined),
      value,
    );
}

function matches({ match }: Filter, actual: unknown, wanted: unknown): boolean {
  // A boolean filter whose false means "no filter", the default a client sends (list_recipes' running).
  if (match === 'if_true') return wanted !== true || actual === true;
  // Items whose field is true are listed only on request (include_runtime_connections); left out is false.
  if (match === 'shown_if_true') return wanted === true || actual !== true;
  if (match === 'fields') {
    const members = (actual ?? {}) as JsonObject;
    return Object.entries(wanted as JsonObject).every(
      ([key, v]) => members[key] !== undefined && String(members[key]) === String(v),
    );
  }
  if (match === 'equals' || match === 'one_of' || match === 'excludes') {
    // A list parameter (`ids[]=1&ids[]=2`, or `a,b` for one_of) matches any of its values.
    const list = match === 'one_of' ? String(wanted).split(',') : Array.isArray(wanted) ? wanted : [wanted];
    const wants = list.map((want) => String(want).trim());
    const found = (Array.isArray(actual) ? actual : [actual]).some((a) => a !== null && wants.includes(String(a)));
    return match === 'excludes' ? !found : found;
  }
  if (actual === null || actual === undefined) return false;
  if (match === 'prefix') return String(actual).startsWith(String(wanted));
  if (match === 'contains') return String(actual).toLowerCase().includes(String(wanted).toLowerCase());
  const order = compare(actual, wanted);
  return match === 'after' ? order >= 0 : order <= 0;
}

/** Numbers as numbers, date-times as instants, anything else as text. */
export function compare(a: unknown, b: unknown): number {
  if (typeof a === 'number' && typeof b === 'number') return a - b;
  const [ta, tb] = [Date.parse(String(a)), Date.parse(String(b))];
  if (!Number.isNaN(ta) && !Number.isNaN(tb)) return ta - tb;
  return String(a).localeCompare(String(b));
}

/** One page of the items, with the numbers the list's wrapper may show. */
export function listPage(
  operation: Operation,
  params: Readonly<JsonObject>,
  items: JsonObject[],
  idField = 'id',
): AnswerData {
  const paging = pagingOf(operation.parameters);
  if (!paging) return { items, page: { number: FIRST_PAGE, size: items.length, total: items.length } };
  // Both are integers: the parameters were coerced to their schemas, whose defaults are integers.
  const size = Number((paging.size === null ? undefined : params[paging.size]) ?? paging.defaultSize ?? items.length);
  if (paging.style === 'cursor') {
    // The items after the one whose id is the cursor.
    const after = params[paging.page];
    const start = after === undefined ? 0 : items.findIndex((item) => String(item[idField]) === String(after)) + 1;
    return { items: items.slice(start, start + size), page: { number: FIRST_PAGE, size, total: items.length } };
  }
  const pageNumber = Number(params[paging.page] ?? paging.defaultPage);
  return { items: pageOf(items, pageNumber, size), page: { number: pageNumber, size, total: items.length } };
}

/** The items of page `number` (counted from FIRST_PAGE) when pages hold `size` items. */
export function pageOf<T>(items: T[], number: number, size: number): T[] {
  const start = (number - FIRST_PAGE) * size;
  return items.slice(start, start + size);
}
