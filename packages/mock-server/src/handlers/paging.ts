import { FIRST_PAGE } from '@platform-api/spec/conventions';
import { pageOf } from '../engine/listing.js';

/**
 * The `{ data, count, page, per_page }` list body of the management API, paged by `page` and
 * `per_page`: the lists of the hand-written handlers, whose operations default to 100 per page.
 */
export function page<T>(
  items: T[],
  params: { page?: number; per_page?: number },
): { data: T[]; count: number; page: number; per_page: number } {
  const perPage = params.per_page ?? 100;
  const pageNumber = params.page ?? FIRST_PAGE;
  return { data: pageOf(items, pageNumber, perPage), count: items.length, page: pageNumber, per_page: perPage };
}
