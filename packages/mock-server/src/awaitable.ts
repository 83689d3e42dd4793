// A result now, or a promise of it: what the stores, the domain and the handlers return, so that the
// memory store's answers go on at once, without a promise job (the publish path is measured in
// microseconds), while an engine over SQLite or Redis answers later.

export type Awaitable<T> = T | Promise<T>;

/** Goes on with `value`: at once when it is there, when it settles when it is a promise. */
export function after<T, R>(value: Awaitable<T>, then: (value: T) => Awaitable<R>): Awaitable<R> {
  return value instanceof Promise ? value.then(then) : then(value);
}
