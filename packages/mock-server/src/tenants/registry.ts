// The tenants of one emulator: the default tenant (workspace 1, `dev`: the emulator as started) and the
// workspaces made at run time over the emulator API, each environment of each a tenant of its own
// (compose.ts), in memory. It resolves a request's tenant: named by the emulator API's `?workspace=`
// and `?environment=`, else by the caller's credentials through the fleet directory, else the default.
// While the default tenant is the only one, the platform's requests go to it without a look.
import type { IncomingHttpHeaders } from 'node:http';
import type { CredentialListener } from '../domain/access-tokens.js';
import type { BootstrapCredentials } from '../domain/bootstrap.js';
import { NotFound, Refused } from '../errors.js';
import type { Operation, SpecName } from '../spec/bundles.js';
import type { FleetAdmission } from './admission.js';
import { TenantDirectory } from './directory.js';
import {
  type ClientIdLookup,
  ENVIRONMENTS,
  type EnvironmentName,
  type Tenant,
  type TenantIdentity,
  tenantKey,
} from './tenant.js';

export const DEFAULT_WORKSPACE_ID = 1;

/** A bootstrap key's credentials, fixed (a seed's); each generated when absent. */
export interface GivenCredentials {
  clientId?: string;
  clientSecret?: string;
}

/** Makes a tenant at run time, its credentials told to `listener`. */
export type TenantMaker = (
  identity: TenantIdentity,
  listener: CredentialListener,
  given: GivenCredentials,
) => Promise<{ tenant: Tenant; bootstrap: BootstrapCredentials }>;

interface Workspace {
  id: number;
  name: string;
  environments: Map<EnvironmentName, Tenant>;
}

/** A workspace as the emulator API lists it: no credential. */
export interface WorkspaceSummary {
  id: number;
  name: string;
  environments: { name: EnvironmentName }[];
}

/** A workspace just made, with the bootstrap credentials of each environment (only ever answered here). */
export interface CreatedWorkspace {
  id: number;
  name: string;
  environments: { name: EnvironmentName; client_id: string; client_secret: string }[];
}

export class Tenants implements ClientIdLookup {
  /** True while the default tenant is the only one. */
  single = true;
  private readonly directory = new TenantDirectory();
  private readonly byKey = new Map<string, Tenant>();
  private readonly workspaces = new Map<number, Workspace>();
  private lastWorkspaceId = DEFAULT_WORKSPACE_ID;

  constructor(
    readonly defaultTenant: Tenant,
    private readonly makeTenant: TenantMaker,
    /** Why workspaces cannot be made (a storage that does not keep them yet); undefined when they can. */
    private readonly refusal: string | undefined,
    /** Who may make the fleet-level calls: create, list, get and delete workspaces, or name another tenant. */
    private readonly admission: FleetAdmission,
  ) {
    const { workspaceId, workspaceName, environment } = defaultTenant.identity;
    this.workspaces.set(workspaceId, {
      id: workspaceId,
      name: workspaceName,
      environments: new Map([[environment, defaultTenant]]),
    });
  }

  /**
   * The tenant of a request: called only once another tenant exists, or for the emulator API. The
   * token endpoint's is found once its client ID is read (EndpointRequest.admitTo).
   */
  resolve(operation: Operation<SpecName>, headers: IncomingHttpHeaders, query: string): Tenant {
    if (operation.api !== 'emulator')
      return operation.needsBearer ? this.ofBearer(headers.authorization) : this.defaultTenant;
    const own = this.ofBearer(headers.authorization);
    const named = namedTenant(query, own);
    // Before the named tenant is looked up: without the admin token, one that does not exist and one
    // that does answer alike.
    if (operation.needsAdminToken || (named && !isTenant(own, named))) this.admission.check(headers.authorization);
    return named ? this.tenantNamed(named) : own;
  }

  tenantOfClientId(clientId: string): Tenant | undefined {
    if (this.single) return undefined;
    const key = this.directory.tenantOfClientId(clientId);
    return key === undefined ? undefined : this.byKey.get(key);
  }

  list(): WorkspaceSummary[] {
    return [...this.workspaces.values()].map(summary);
  }

  get(id: number): WorkspaceSummary {
    return summary(this.workspace(id));
  }

  /** `credentials`: the bootstrap keys' of environments that have them fixed (a seed's). */
  async create(
    name: string,
    environments: readonly EnvironmentName[],
    credentials: Partial<Record<EnvironmentName, GivenCredentials>> = {},
  ): Promise<CreatedWorkspace> {
    if (this.refusal !== undefined) throw new Refused(501, this.refusal);
    const id = ++this.lastWorkspaceId;
    const names = ENVIRONMENTS.filter((environment) => environment === 'dev' || environments.includes(environment));
    const made = await Promise.all(
      names.map((environment) => {
        const identity = { workspaceId: id, workspaceName: name, environment };
        return this.makeTenant(
          identity,
          this.directory.listenerFor(tenantKey(identity)),
          credentials[environment] ?? {},
        );
      }),
    );
    const workspace: Workspace = { id, name, environments: new Map() };
    for (const { tenant } of made) {
      workspace.environments.set(tenant.identity.environment, tenant);
      this.byKey.set(tenantKey(tenant.identity), tenant);
    }
    this.workspaces.set(id, workspace);
    this.single = false;
    return {
      id,
      name,
      environments: made.map(({ tenant, bootstrap }) => ({
        name: tenant.identity.environment,
        client_id: bootstrap.clientId,
        client_secret: bootstrap.secret,
      })),
    };
  }

  /** Frees everything the workspace held: its tenants, their credentials in the directory; waiting consumers get their batch. */
  delete(id: number): void {
    const workspace = this.workspace(id);
    if (id === DEFAULT_WORKSPACE_ID)
      throw new Refused(409, 'The default workspace cannot be deleted; reset it instead');
    for (const tenant of workspace.environments.values()) {
      const key = tenantKey(tenant.identity);
      this.directory.forget(key);
      this.byKey.delete(key);
      tenant.domain.topics.wakeAll();
    }
    this.workspaces.delete(id);
    this.single = this.workspaces.size === 1;
  }

  /** One environment of a workspace; NotFound when there is none. */
  tenant(id: number, environment: EnvironmentName): Tenant {
    return this.tenantNamed({ id: String(id), environment });
  }

  /** Every tenant, the default one first. */
  all(): Tenant[] {
    return [...this.workspaces.values()].flatMap((workspace) => [...workspace.environments.values()]);
  }

  private workspace(id: number): Workspace {
    const workspace = this.workspaces.get(id);
    if (!workspace) throw new NotFound(`No workspace ${id}`);
    return workspace;
  }

  /** The tenant a query names. A value that is not an id or an environment is left to the parameter checks (400). */
  private tenantNamed({ id, environment }: NamedTenant): Tenant {
    if (!/^\d{1,15}$/.test(id) || !isEnvironment(environment)) return this.defaultTenant;
    const tenant = this.workspace(Number(id)).environments.get(environment);
    if (!tenant) throw new NotFound(`Workspace ${id} has no environment ${environment}`);
    return tenant;
  }

  private ofBearer(authorization: string | undefined): Tenant {
    if (this.single) return this.defaultTenant;
    const key = this.directory.tenantOfBearer(authorization);
    return (key !== undefined && this.byKey.get(key)) || this.defaultTenant;
  }
}

/** A tenant as `?workspace=` and `?environment=` name it, as sent. */
interface NamedTenant {
  id: string;
  environment: string;
}

/**
 * The tenant the query names, its workspace the caller's own when left out (as the parameter's spec
 * says) and its environment `dev`; undefined when it names neither.
 */
function namedTenant(query: string, own: Tenant): NamedTenant | undefined {
  if (!query.includes('workspace=') && !query.includes('environment=')) return undefined;
  const params = new URLSearchParams(query);
  return {
    id: params.get('workspace') ?? String(own.identity.workspaceId),
    environment: params.get('environment') ?? 'dev',
  };
}

const isTenant = ({ identity }: Tenant, named: NamedTenant): boolean =>
  named.id === String(identity.workspaceId) && named.environment === identity.environment;

const isEnvironment = (name: string): name is EnvironmentName => (ENVIRONMENTS as readonly string[]).includes(name);

function summary({ id, name, environments }: Workspace): WorkspaceSummary {
  return { id, name, environments: [...environments.keys()].map((environment) => ({ name: environment })) };
}
