import type { RequestLabel } from './errors.js';
import type { Logger } from './log.js';
import { type RetryOptions, retryAfterMs } from './retry.js';

/** Either a data center (its host comes from the spec's servers) or an explicit base URL, e.g. the emulator's. */
export type Location<DataCenter extends string> =
  | { dataCenter: DataCenter; baseUrl?: never }
  | { baseUrl: string; dataCenter?: never };

/** The `fetch` the client sends requests with; injectable for tests and proxies. */
export type Fetch = (request: Request) => Promise<Response>;

/** The default of `timeoutMs`: one minute per attempt (the platform's management API gives up after 40 s). */
export const DEFAULT_TIMEOUT_MS = 60_000;

/** Supplies bearer tokens to the clients. One provider can be shared by several clients. */
export interface TokenProvider {
  /** A token that is valid now; cached between calls. */
  getToken(): Promise<string>;
  /**
   * Called once per request when the API answered 401 to `rejected`: resolves to a newer token.
   * Absent for static tokens, whose 401 is returned as it is.
   */
  renew?(rejected: string): Promise<string>;
}

/** `auth` option of the clients: a token provider such as `clientCredentials(...)`, or `{ token }` for a static token. */
export type Auth = TokenProvider | { token: string };

/** What the event-streams and management clients take: where, how to authenticate and retry, and which fetch. */
export type ClientOptions<DataCenter extends string> = Location<DataCenter> & {
  auth: Auth;
  retry?: RetryOptions | undefined;
  fetch?: Fetch | undefined;
  /**
   * Milliseconds each attempt may wait for its response (headers) before it fails with a
   * TimeoutError (retried like a network error where that is safe). Default 60 000; 0 for none.
   * Consume adds its long poll (`timeoutSecs`) to it.
   */
  timeoutMs?: number | undefined;
  /** Receives an event per attempt, retry and token renewal; see LogEvent. */
  logger?: Logger | undefined;
};

/**
 * Options of one request, accepted by the helpers and, as extra init fields, by the raw
 * `GET`/`POST`/... methods: `client.GET(path, { params, timeoutMs: 5_000, retry: { maxAttempts: 1 } })`.
 */
export interface RequestOptions {
  signal?: AbortSignal | undefined;
  /** Replaces the client's `timeoutMs` for this request. */
  timeoutMs?: number | undefined;
  /** Replaces fields of the client's retry policy for this request, e.g. `{ maxAttempts: 1 }`. */
  retry?: RetryOptions | undefined;
}

/** The init fields of RequestOptions that are set (openapi-fetch forwards unknown init fields to the middleware). */
export function requestInit({ signal, timeoutMs, retry }: RequestOptions = {}) {
  return {
    ...(signal && { signal }),
    ...(timeoutMs !== undefined && { timeoutMs }),
    ...(retry && { retry }),
  };
}

/** A promise of a helper's result that also offers the raw HTTP answer: `await events.publish(...).withResponse()`. */
export type WithResponse<T, Raw = { response: Response }> = Promise<T> & {
  withResponse(): Promise<{ [Key in 'data' | keyof Raw]: Key extends keyof Raw ? Raw[Key] : T }>;
};

export function withResponse<T, Raw>(result: Promise<{ data: T } & Raw>): WithResponse<T, Raw> {
  const data = result.then((r) => r.data);
  // Handled here so that awaiting only withResponse() leaves no unhandled rejection behind.
  data.catch(() => undefined);
  return Object.assign(data, { withResponse: () => result }) as WithResponse<T, Raw>;
}

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

type ErrorClass<E> = new (
  label: RequestLabel,
  status: number,
  body: unknown,
  retryAfterMs?: number,
  response?: Response,
) => E;

/** The typed error for an openapi-fetch error result. */
export function errorOf<E>(
  ErrorType: ErrorClass<E>,
  label: RequestLabel,
  response: Response,
  body: unknown,
  now?: () => number,
): E {
  return new ErrorType(label, response.status, body, retryAfterMs(response, now), response);
}
