import type { paths } from '@platform-api/spec/types/management';
import type { Client } from 'openapi-fetch';
import { managementPagination } from './generated/pagination.js';
import { type RequestOptions, requestInit } from './options.js';

type Pagination = typeof managementPagination;

/** The list operations `paginate()` knows: GET paths of the management API with page-number parameters. */
export type PaginatedPath = keyof Pagination & keyof paths;

type Get<Path extends PaginatedPath> = paths[Path]['get'];
type ListBody<Path extends PaginatedPath> = Get<Path>['responses'][200]['content']['application/json'];
type ElementOf<List> = NonNullable<List> extends readonly (infer Item)[] ? Item : unknown;

/** The type of one item of the list operation at `Path`, from where its generated answer holds the items. */
export type PageItem<Path extends PaginatedPath> = Pagination[Path]['items'] extends null
  ? ElementOf<ListBody<Path>>
  : Pagination[Path]['items'] extends keyof NonNullable<ListBody<Path>>
    ? ElementOf<NonNullable<ListBody<Path>>[Pagination[Path]['items']]>
    : unknown;

type Without<Query, Keys extends PropertyKey> = keyof Omit<Query, Keys> extends never
  ? Record<string, never>
  : Omit<Query, Keys>;
/** The query parameters of the operation, without those of the page number and size (paginate sets them). */
type Query<Path extends PaginatedPath> = Without<
  NonNullable<Get<Path>['parameters']['query']>,
  Pagination[Path]['page'] | NonNullable<Pagination[Path]['size']>
>;
type PathParams<Path extends PaginatedPath> = Get<Path>['parameters'] extends { path: infer Params } ? Params : never;

export type PaginateOptions<Path extends PaginatedPath> = RequestOptions & {
  /** Items per request. Default: the operation's largest page size. */
  pageSize?: number | undefined;
} & ([PathParams<Path>] extends [never]
    ? { params?: { query?: Query<Path> } }
    : { params: { path: PathParams<Path>; query?: Query<Path> } });

/** Iterates every item of a list operation, requesting page after page as the loop goes. */
export type Paginate = <Path extends PaginatedPath>(
  path: Path,
  ...options: [PathParams<Path>] extends [never] ? [options?: PaginateOptions<Path>] : [options: PaginateOptions<Path>]
) => AsyncGenerator<PageItem<Path>, void, undefined>;

/** How one list operation pages (an entry of the generated managementPagination). */
export interface PaginationEntry {
  /** `page`: page numbers from 1; `cursor`: the `id` of the last item read. */
  style: 'page' | 'cursor';
  page: string;
  size: string | null;
  maxSize: number | null;
  items: string | null;
  total: string | null;
}

/** The items of one page: the answer itself, the array at `where`, or (`'*'`) its only array. */
function itemsOf(body: unknown, where: string | null, path: string): unknown[] {
  const value = where === null || where === '*' ? body : (body as Record<string, unknown> | undefined)?.[where];
  if (Array.isArray(value)) return value;
  if (value === null || value === undefined) return [];
  if (where === '*' && typeof value === 'object') {
    const arrays = Object.values(value).filter(Array.isArray);
    if (arrays.length === 1) return arrays[0] as unknown[];
  }
  throw new TypeError(`GET ${path}: cannot find the list of items in the answer${where ? ` (at ${where})` : ''}`);
}

/**
 * Requests page after page of a list operation as documented in its spec (`page`/`per_page`,
 * `page[number]`/`page[size]`, or a `page[after]` cursor) and yields each item. Stops after an
 * empty page, once the total count the answer gives (`count`, `total`) is reached, or after a page
 * shorter than the page size. An error answer is thrown as `toError` makes it.
 */
export function paginator(
  client: Client<paths>,
  toError: (path: string, response: Response, body: unknown) => Error,
  table: Readonly<Record<string, PaginationEntry>> = managementPagination,
): Paginate {
  return async function* paginate(path, ...[options = {}]) {
    const entry = table[path];
    if (!entry) throw new TypeError(`GET ${path} is not a list operation with page parameters`);
    const pageSize = options.pageSize ?? entry.maxSize ?? undefined;
    const { params = {} } = options as { params?: { query?: object; path?: object } };
    let seen = 0;
    let position: unknown = entry.style === 'page' ? 1 : undefined;
    for (;;) {
      const query = {
        ...params.query,
        ...(position !== undefined && { [entry.page]: position }),
        ...(entry.size && pageSize && { [entry.size]: pageSize }),
      };
      // One generic call for every list path: the types of `path` and the answer are checked above, in Paginate.
      const get = client.GET as (path: string, init: object) => ReturnType<Client<paths>['GET']>;
      const { data, error, response } = await get(path, { params: { ...params, query }, ...requestInit(options) });
      if (!response.ok) throw toError(path, response, error);
      const items = itemsOf(data, entry.items, path);
      yield* items as PageItem<typeof path>[];
      seen += items.length;
      const total = entry.total && (data as Record<string, unknown> | undefined)?.[entry.total];
      const last = typeof total === 'number' ? seen >= total : pageSize !== undefined && items.length < pageSize;
      if (items.length === 0 || last) return;
      position = entry.style === 'page' ? (position as number) + 1 : (items.at(-1) as { id?: unknown } | null)?.id;
      if (position === undefined) throw new TypeError(`GET ${path}: the last item has no id to ask for the next page`);
    }
  };
}
