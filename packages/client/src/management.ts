import type { operations, paths } from '@platform-api/spec/types/management';
import createClient, {
  type Client,
  type ClientPathsWithMethod,
  type FetchResponse,
  type MaybeOptionalInit,
  type Middleware,
} from 'openapi-fetch';
import { providerOf } from './auth.js';
import { ApiError, type MergedErrorBodies } from './errors.js';
import { managementServers } from './generated/servers.js';
import { resilience } from './middleware.js';
import { baseUrlOf, type ClientOptions, DEFAULT_TIMEOUT_MS, errorOf } from './options.js';
import { type Paginate, paginator } from './paginate.js';
import { retryPolicy } from './retry.js';

export type ManagementDataCenter = keyof typeof managementServers;

export type ManagementClientOptions = ClientOptions<ManagementDataCenter> & {
  /**
   * When true, an error answer throws a ManagementError instead of returning `{ error }`, and
   * `data` is typed as always present. Default false (openapi-fetch's `{ data, error, response }`).
   */
  throwOnError?: boolean | undefined;
};

/** Error bodies of the management API by status (ManagementError and the others the spec declares). */
export type ManagementErrorBodies = MergedErrorBodies<operations[keyof operations]>;

/** An error answer of the management API; `is(404)` etc. narrow `body`. */
export class ManagementError extends ApiError<ManagementErrorBodies> {
  override readonly name: string = 'ManagementError';
}

type Method = 'get' | 'put' | 'post' | 'delete' | 'options' | 'head' | 'patch' | 'trace';
type Media = `${string}/${string}`;
type RequiredKeys<T> = { [K in keyof T]-?: Partial<Pick<T, K>> extends Pick<T, K> ? never : K }[keyof T];
// As openapi-fetch's (unexported) InitParam: the init argument is optional when nothing in it is required.
type InitParam<Init> =
  RequiredKeys<Init> extends never ? [(Init & { [key: string]: unknown })?] : [Init & { [key: string]: unknown }];

/** An openapi-fetch method that answers only successes: errors are thrown as ManagementError. */
type ThrowingMethod<M extends Method> = <
  Path extends ClientPathsWithMethod<Client<paths>, M>,
  Init extends MaybeOptionalInit<paths[Path], M>,
>(
  url: Path,
  ...init: InitParam<Init>
) => Promise<
  paths[Path][M] extends infer Operation extends Record<string | number, unknown>
    ? Extract<FetchResponse<Operation, Init, Media>, { error?: never }>
    : never
>;

interface Paginated {
  /**
   * Every item of a list operation, page after page: `for await (const key of
   * management.paginate('/api/v2/api_clients/{api_client_id}/api_keys', { params: { path: { api_client_id } } }))`.
   * Throws a ManagementError for an error answer.
   */
  paginate: Paginate;
}

/** The management client: openapi-fetch's methods (`{ data, error, response }`) and `paginate`. */
export type ManagementClient = Client<paths> & Paginated;

/** The management client with `throwOnError: true`: each method resolves to `{ data, response }` or throws. */
export type ThrowingManagementClient = Omit<Client<paths>, Uppercase<Method> | 'request'> & {
  [M in Method as Uppercase<M>]: ThrowingMethod<M>;
} & Paginated;

const SAFE_METHODS = new Set(['GET', 'HEAD', 'OPTIONS']);

function managementError(path: string, method: string, response: Response, body: unknown): ManagementError {
  return errorOf(ManagementError, { method, path }, response, body);
}

/** Turns each error answer (after retries) into a thrown ManagementError. */
const throwing: Middleware = {
  async onResponse({ request, response, schemaPath }) {
    if (response.ok) return undefined;
    const text = await response.text();
    let body: unknown = text;
    try {
      body = JSON.parse(text);
    } catch {
      // Not JSON: the text is the body.
    }
    throw managementError(schemaPath, request.method, response, body);
  },
};

/**
 * A typed openapi-fetch client of the management API (topics, API clients and keys, recipes, ...),
 * with the bearer token, a timeout per attempt, a renew-and-replay on 401 and 429 waits. Only reads
 * (GET, HEAD) are resent after a 5xx, a network error or a timeout. `paginate` iterates list
 * operations; `throwOnError: true` throws ManagementError instead of returning `{ error }`.
 */
export function createManagementClient(
  options: ManagementClientOptions & { throwOnError: true },
): ThrowingManagementClient;
export function createManagementClient(options: ManagementClientOptions): ManagementClient;
export function createManagementClient(options: ManagementClientOptions): ManagementClient | ThrowingManagementClient {
  const client = createClient<paths>({
    baseUrl: baseUrlOf(options, managementServers),
    ...(options.fetch && { fetch: options.fetch }),
  });
  // onResponse runs in reverse order: `throwing` sees the answer after the retries.
  if (options.throwOnError) client.use(throwing);
  client.use(
    resilience({
      auth: providerOf(options.auth),
      retry: retryPolicy(options.retry),
      timeoutMs: options.timeoutMs ?? DEFAULT_TIMEOUT_MS,
      logger: options.logger,
      isRetrySafe: (method) => SAFE_METHODS.has(method),
    }),
  );
  const paginate = paginator(client, (path, response, body) => managementError(path, 'GET', response, body));
  return Object.assign(client, { paginate });
}
