// How the management API's list operations page, read from their query parameters: the one statement
// of it, which the client's pagination table (packages/client/scripts/generate-pagination.mjs) and the
// emulator's lists (engine/listing.ts, answers.ts) both follow, so the two cannot disagree about which
// operations page or how.

/** Query parameters that carry the page number (counted from FIRST_PAGE). */
export const PAGE_NUMBER_PARAMETERS: readonly string[] = ['page', 'page[number]'];
/** Query parameters that carry the cursor: the `id` of the last item read (a recipe's jobs: `offset_job_id`). */
export const CURSOR_PARAMETERS: readonly string[] = ['page[after]', 'offset_job_id'];
/** Query parameters that carry the page size. */
export const PAGE_SIZE_PARAMETERS: readonly string[] = ['per_page', 'page[size]'];
/** The number of the first page. */
export const FIRST_PAGE = 1;

/** Fields of a list answer's wrapper. When it holds several arrays, the items are in the first of ITEM_FIELDS. */
export const ITEM_FIELDS: readonly string[] = ['data', 'items', 'result', 'results', 'records'];
/** Fields that count every item of the list (the first present is the total). */
export const TOTAL_FIELDS: readonly string[] = ['count', 'total', 'total_count'];
/** Fields that give the page's number, and its size. */
export const PAGE_NUMBER_FIELDS: readonly string[] = ['page', 'number', 'page_number', 'current_page'];
export const PAGE_SIZE_FIELDS: readonly string[] = ['per_page', 'size', 'page_size'];

/** What pagingOf reads of a parameter (resolved: no `$ref`): its name, where it goes, its schema's `default` and `maximum`. */
export interface PagingParameter {
  name: string;
  in: string;
  schema?: { readonly [keyword: string]: unknown } | undefined;
}

export interface Paging {
  /** `page`: page numbers from FIRST_PAGE; `cursor`: the `id` of the last item read. */
  style: 'page' | 'cursor';
  /** The query parameter of the page number, or of the cursor. */
  page: string;
  /** The query parameter of the page size, if the operation has one. */
  size: string | null;
  /** The page number when none is sent: its schema's default, else FIRST_PAGE. */
  defaultPage: number;
  /** The page size when none is sent (its schema's default); null: every item after the start. */
  defaultSize: number | null;
  /** The largest page size: its schema's maximum, else its default (a larger one is never documented). */
  maxSize: number | null;
}

const numberOr = <Otherwise>(value: unknown, otherwise: Otherwise) => (typeof value === 'number' ? value : otherwise);

/**
 * A page size's documented maximum. Every integer parameter of the bundles states at most 2^53 - 1
 * (spec/plugins/integer-bounds.js), which bounds the number, not a page: no documented maximum.
 */
const pageSizeMaximum = (schema: PagingParameter['schema']) =>
  typeof schema?.maximum === 'number' && schema.maximum < Number.MAX_SAFE_INTEGER ? schema.maximum : undefined;

/**
 * How an operation with these parameters pages, or undefined when it does not: it pages when it has a
 * page-number or a cursor query parameter (a page number wins when it has both), optionally with a page size.
 */
export function pagingOf(parameters: readonly PagingParameter[]): Paging | undefined {
  const query = parameters.filter((parameter) => parameter.in === 'query');
  const named = (names: readonly string[]) => query.find((parameter) => names.includes(parameter.name));
  const number = named(PAGE_NUMBER_PARAMETERS);
  const page = number ?? named(CURSOR_PARAMETERS);
  if (!page) return undefined;
  const size = named(PAGE_SIZE_PARAMETERS);
  const defaultSize = numberOr(size?.schema?.default, null);
  return {
    style: number ? 'page' : 'cursor',
    page: page.name,
    size: size?.name ?? null,
    defaultPage: numberOr(number?.schema?.default, FIRST_PAGE),
    defaultSize,
    maxSize: pageSizeMaximum(size?.schema) ?? defaultSize,
  };
}
