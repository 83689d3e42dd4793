// Workspaces made on one emulator over the emulator API, each environment a tenant with its own
// credentials: what the tenancy suites drive in parallel.
import { expect } from 'vitest';
import type { MockServer } from '../../src/index.js';
import { control } from './control/emulator-api.js';
import { type CallOptions, call, type OperationId, token } from './helpers.js';

/** One environment of a workspace made at run time: its query for the emulator API, a token, and `run`. */
export interface TenantHandle {
  workspaceId: number;
  environment: 'dev' | 'test' | 'prod';
  clientId: string;
  clientSecret: string;
  /** `?workspace=&environment=` of the emulator API's tenant-scoped calls. */
  query: { workspace: number; environment: string };
  accessToken: string;
  run<Id extends OperationId>(operationId: Id, options?: CallOptions): ReturnType<typeof call<Id>>;
}

/** The Authorization header of the server's admin token, which its fleet-level calls need; none without one. */
export const asAdmin = ({ adminToken }: MockServer): Record<string, string> =>
  adminToken === undefined ? {} : { authorization: `Bearer ${adminToken}` };

/** Makes a workspace with `environments` and a token for each of them (as the admin, where there is one). */
export async function makeWorkspace(
  server: MockServer,
  name: string,
  environments: ('test' | 'prod')[] = [],
): Promise<TenantHandle[]> {
  const made = await control(server, 'create_workspace', {
    body: { name, environments: ['dev', ...environments] },
    headers: asAdmin(server),
  });
  expect(made.status).toBe(201);
  const workspace = made.body as NonNullable<typeof made.body>;
  return Promise.all(
    workspace.environments.map(async ({ name: environment, client_id, client_secret }) => {
      const accessToken = await token(server, client_id, client_secret);
      const handle = {
        workspaceId: workspace.id,
        environment,
        clientId: client_id,
        clientSecret: client_secret,
        query: { workspace: workspace.id, environment },
        accessToken,
      };
      return servedBy(server, handle);
    }),
  );
}

/** The tenant's handle with its calls sent to `server` (another emulator on its storage, or the same one restarted). */
export function servedBy(server: MockServer, handle: Omit<TenantHandle, 'run'>): TenantHandle {
  const { accessToken } = handle;
  return {
    ...handle,
    run: (operationId, options = {}) => call(server, operationId, { token: accessToken, ...options }),
  };
}
