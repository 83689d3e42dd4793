import type { Context } from './context.js';

/** The `{ data, count }` list body of the management API, paged by `page` and `per_page`. */
export function page<T>(items: T[], ctx: Context): { data: T[]; count: number } {
  const perPage: number = ctx.params.per_page ?? 100;
  const pageNumber: number = ctx.params.page ?? 1;
  const start = (pageNumber - 1) * perPage;
  return { data: items.slice(start, start + perPage), count: items.length };
}
