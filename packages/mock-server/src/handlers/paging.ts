/** The `{ data, count }` list body of the management API, paged by `page` and `per_page`. */
export function page<T>(items: T[], params: { page?: number; per_page?: number }): { data: T[]; count: number } {
  const perPage = params.per_page ?? 100;
  const start = ((params.page ?? 1) - 1) * perPage;
  return { data: items.slice(start, start + perPage), count: items.length };
}
