import createClient, { type Client } from 'openapi-fetch';
import { providerOf } from './auth.js';
import type { paths } from './generated/management.js';
import { managementServers } from './generated/servers.js';
import { resilience } from './middleware.js';
import { baseUrlOf, type ClientOptions } from './options.js';
import { retryPolicy } from './retry.js';

export type ManagementDataCenter = keyof typeof managementServers;

export type ManagementClientOptions = ClientOptions<ManagementDataCenter>;

export type ManagementClient = Client<paths>;

const SAFE_METHODS = new Set(['GET', 'HEAD', 'OPTIONS']);

/**
 * A typed openapi-fetch client of the management API (topics, API clients and keys, recipes, ...),
 * with the bearer token, a renew-and-replay on 401 and 429 waits. Only reads (GET, HEAD) are
 * resent after a 5xx or a network error.
 */
export function createManagementClient(options: ManagementClientOptions): ManagementClient {
  const client = createClient<paths>({
    baseUrl: baseUrlOf(options, managementServers),
    ...(options.fetch && { fetch: options.fetch }),
  });
  client.use(
    resilience({
      auth: providerOf(options.auth),
      retry: retryPolicy(options.retry),
      isRetrySafe: (method) => SAFE_METHODS.has(method),
    }),
  );
  return client;
}
