import type { Auth } from './auth.js';
import type { RequestLabel } from './errors.js';
import { type RetryOptions, retryAfterMs } from './retry.js';

/** Either a data center (its host comes from the spec's servers) or an explicit base URL, e.g. the emulator's. */
export type Location<DataCenter extends string> =
  | { dataCenter: DataCenter; baseUrl?: never }
  | { baseUrl: string; dataCenter?: never };

/** The `fetch` the client sends requests with; injectable for tests and proxies. */
export type Fetch = (request: Request) => Promise<Response>;

/** What the event-streams and management clients take: where, how to authenticate and retry, and which fetch. */
export type ClientOptions<DataCenter extends string> = Location<DataCenter> & {
  auth: Auth;
  retry?: RetryOptions;
  fetch?: Fetch;
};

export function baseUrlOf<DataCenter extends string>(
  location: Location<DataCenter>,
  servers: Readonly<Record<DataCenter, string>>,
): string {
  if (location.baseUrl !== undefined) return location.baseUrl;
  const url = servers[location.dataCenter as DataCenter];
  if (!url)
    throw new TypeError(`Unknown data center "${location.dataCenter}"; use one of ${Object.keys(servers).join(', ')}`);
  return url;
}

type ErrorClass<E> = new (label: RequestLabel, status: number, body: unknown, retryAfterMs?: number) => E;

/** The typed error for an openapi-fetch error result. */
export function errorOf<E>(
  ErrorType: ErrorClass<E>,
  label: RequestLabel,
  response: Response,
  body: unknown,
  now?: () => number,
): E {
  return new ErrorType(label, response.status, body, retryAfterMs(response, now));
}
