/** The `{ data, count, page, per_page }` list body of the management API, paged by `page` and `per_page`. */
export function page<T>(
  items: T[],
  params: { page?: number; per_page?: number },
): { data: T[]; count: number; page: number; per_page: number } {
  const perPage = params.per_page ?? 100;
  const pageNumber = params.page ?? 1;
  const start = (pageNumber - 1) * perPage;
  return { data: items.slice(start, start + perPage), count: items.length, page: pageNumber, per_page: perPage };
}
