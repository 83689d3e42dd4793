// The typed client of the emulator API (/_emulator/*), generated from spec/emulator.

import type { components, paths } from '@platform-api/spec/types/emulator';
import createClient, { type Client } from 'openapi-fetch';

export type EmulatorApiClient = Client<paths>;
export type JournalEntry = components['schemas']['JournalEntry'];
export type RequestMatch = components['schemas']['RequestMatch'];
export type VerificationResult = components['schemas']['VerificationResult'];
export type VerificationFailure = components['schemas']['VerificationFailure'];
export type EmulatorErrorBody = components['schemas']['EmulatorError'];

/** The workspace and environment a client's calls of a tenant's state name (`?workspace=&environment=`). */
export interface TenantScope {
  workspace: number;
  environment: components['schemas']['EnvironmentName'];
}

/** The paths whose calls read or change one tenant's state, and take its scope. */
const TENANT_PATHS = ['faults', 'state', 'reset', 'requests', 'coverage', 'clock', 'topics', 'resources'].map(
  (name) => `/_emulator/${name}`,
);

/**
 * The client; with `scope`, each call of a tenant's state names that tenant unless it names one itself;
 * with `adminToken`, every call carries it, as the fleet-level calls need beyond loopback.
 */
export function createEmulatorApiClient(baseUrl: string, scope?: TenantScope, adminToken?: string): EmulatorApiClient {
  const headers = adminToken === undefined ? undefined : { authorization: `Bearer ${adminToken}` };
  const client = createClient<paths>({ baseUrl, headers });
  if (scope) {
    client.use({
      onRequest({ request }) {
        const url = new URL(request.url);
        const scoped = TENANT_PATHS.some((path) => url.pathname === path || url.pathname.startsWith(`${path}/`));
        if (!scoped || url.searchParams.has('workspace')) return undefined;
        url.searchParams.set('workspace', String(scope.workspace));
        url.searchParams.set('environment', scope.environment);
        return new Request(url, request);
      },
    });
  }
  return client;
}
