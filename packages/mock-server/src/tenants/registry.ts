// The tenants of one emulator: the default tenant (workspace 1, `dev`: the emulator as started) and the
// workspaces made at run time over the emulator API, each environment of each a tenant of its own
// (compose.ts) in a storage of its own (TenantStorages: memory, a data dir each, or keys of its own in
// Redis). The workspaces are on record in the default tenant's store (id, name, each environment's
// bootstrap credentials), committed before a make or delete is answered: a restarted emulator opens
// them again, and on a shared store (Redis) the others follow the records (`follower`) and serve them.
// It resolves a request's tenant: named by the emulator API's `?workspace=` and `?environment=` (also in
// the URLs it gives out to be opened without credentials), else by the caller's credentials through the
// fleet directory, else the default. While the default tenant is
// the only one, the platform's requests go to it without a look.
import type { IncomingHttpHeaders } from 'node:http';
import type { CredentialListener } from '../domain/access-tokens.js';
import { NotFound, noWorkspace, Refused, WorkspaceGone, WorkspacesGone } from '../errors.js';
import type { Logger } from '../logger.js';
import type { Operation, SpecName } from '../spec/bundles.js';
import { StoredRecords } from '../store/records.js';
import { DataDirError } from '../store/sqlite/data-dir.js';
import type { Storage, TenantStorages } from '../store/storage.js';
import type { FleetAdmission } from './admission.js';
import type { StoredFollower } from './compose.js';
import { TenantDirectory } from './directory.js';
import {
  type ClientIdLookup,
  ENVIRONMENTS,
  type EnvironmentName,
  isEnvironment,
  type MadeTenant,
  type Tenant,
  type TenantIdentity,
  tenantKey,
} from './tenant.js';
import { unknownUrl } from './url-scope.js';

export const DEFAULT_WORKSPACE_ID = 1;

/** The records' type in the default tenant's store; `emulator:`, so a shared store announces their changes. */
const WORKSPACE_RECORDS = 'emulator:workspace';

/** A bootstrap key's credentials, fixed (a seed's, or as on record); each generated when absent. */
export interface GivenCredentials {
  clientId?: string;
  clientSecret?: string;
}

/** Makes a tenant at run time, or opens one on record (its bootstrap key given), its credentials told to `listener`. */
export type TenantMaker = (
  identity: TenantIdentity,
  listener: CredentialListener,
  bootstrap: GivenCredentials,
) => Promise<MadeTenant>;

interface Workspace {
  id: number;
  name: string;
  environments: Map<EnvironmentName, Tenant>;
  /** What its tenants hold open; none for the default workspace, whose storage is the emulator's. */
  storages: Storage[];
}

/** A workspace as the emulator API lists it: no credential. */
export interface WorkspaceSummary {
  id: number;
  name: string;
  environments: { name: EnvironmentName }[];
}

/** A workspace just made, with the bootstrap credentials of each environment (only ever answered here). */
export type CreatedWorkspace = {
  id: number;
  name: string;
  environments: { name: EnvironmentName; client_id: string; client_secret: string }[];
};

/**
 * A workspace on record: what it was made with, and its environments' bootstrap credentials, which a
 * reopened tenant keeps (only their digests are in the tenant's own store).
 */
type WorkspaceRecord = CreatedWorkspace;

export interface TenantsParts {
  defaultTenant: Tenant;
  /** The default tenant's storage, which holds the workspaces' records and commits first. */
  defaultStorage: Storage;
  storages: TenantStorages;
  makeTenant: TenantMaker;
  /** Who may make the fleet-level calls: create, list, get and delete workspaces, or name another tenant. */
  admission: FleetAdmission;
  logger: Logger;
}

export class Tenants implements ClientIdLookup {
  /** True while the default tenant is the only one. */
  single = true;
  readonly defaultTenant: Tenant;
  private readonly directory = new TenantDirectory();
  private readonly byKey = new Map<string, Tenant>();
  private readonly workspaces = new Map<number, Workspace>();
  /** The workspaces being made or opened here, by id: not served yet, and not opened twice. */
  private readonly pending = new Map<number, Promise<unknown>>();
  private readonly records: StoredRecords<WorkspaceRecord>;
  /**
   * The workspaces whose storage refused a write since the last group commit: dropped at once, so that
   * commit no longer visits their storages, but their held answers must still be refused.
   */
  private goneSinceCommit = new Set<number>();

  constructor(private readonly parts: TenantsParts) {
    const { defaultTenant, defaultStorage } = parts;
    this.defaultTenant = defaultTenant;
    this.records = new StoredRecords(defaultStorage.resources, WORKSPACE_RECORDS);
    // Another emulator deleted it, and its announcement has not come yet: as if it had.
    parts.storages.whenGone?.((id) => {
      this.goneSinceCommit.add(id);
      this.forget(id);
    });
    const { workspaceId, workspaceName, environment } = defaultTenant.identity;
    this.workspaces.set(workspaceId, {
      id: workspaceId,
      name: workspaceName,
      environments: new Map([[environment, defaultTenant]]),
      storages: [],
    });
  }

  /** Loads the default tenant's store with it (loadTenant): the workspaces on record, and on a shared store their changes. */
  readonly follower: StoredFollower = {
    changed: (type, id, item) => {
      if (type !== WORKSPACE_RECORDS) return;
      if (item) this.follow(this.records.recordOf(item)).catch((error: unknown) => this.openFailed(Number(id), error));
      else this.forget(Number(id));
    },
    reload: () => this.reconcile(),
  };

  /**
   * The tenant of a request: called only once another tenant exists, or for the emulator API. The
   * token endpoint's is found once its client ID is read (EndpointRequest.admitTo). A workspace named
   * that is not known here yet, on a shared store, is looked for again once caught up.
   */
  resolve(operation: Operation<SpecName>, headers: IncomingHttpHeaders, query: string): Tenant | Promise<Tenant> {
    if (operation.api !== 'emulator')
      return operation.needsBearer ? this.ofBearer(headers.authorization) : this.defaultTenant;
    if (OPENED_BY_URL.has(operation.operationId)) return this.tenantOfUrl(query);
    const own = this.ofBearer(headers.authorization);
    const named = namedTenant(query, own);
    // Before the named tenant is looked up: without the admin token, one that does not exist and one
    // that does answer alike.
    if (operation.needsAdminToken || (named && !isTenant(own, named)))
      this.parts.admission.check(headers.authorization);
    if (!named) return own;
    return this.lookUp(named);
  }

  /**
   * The tenant a URL given out to be opened without credentials names (url-scope.ts): the URL is what
   * admits it, so no admin token is asked for, and an unknown tenant is the unknown URL's 404.
   */
  private tenantOfUrl(query: string): Tenant | Promise<Tenant> {
    const named = namedTenant(query, this.defaultTenant);
    if (!named) return this.defaultTenant;
    const asUnknownUrl = (error: unknown): never => {
      throw error instanceof NotFound ? unknownUrl() : error;
    };
    try {
      const found = this.lookUp(named);
      return found instanceof Promise ? found.catch(asUnknownUrl) : found;
    } catch (error) {
      return asUnknownUrl(error);
    }
  }

  /** The tenant named; one not known here yet, on a shared store, is looked for again once caught up. */
  private lookUp(named: NamedTenant): Tenant | Promise<Tenant> {
    try {
      return this.tenantNamed(named);
    } catch (error) {
      if (!(error instanceof NotFound) || !this.parts.defaultStorage.shared) throw error;
      return this.catchUp().then(() => this.tenantNamed(named));
    }
  }

  tenantOfClientId(clientId: string): Tenant | undefined {
    if (this.single) return undefined;
    const key = this.directory.tenantOfClientId(clientId);
    return key === undefined ? undefined : this.byKey.get(key);
  }

  /** The tenant made at run time whose token the Authorization header carries; undefined for any other. */
  tenantOfBearer(authorization: string | undefined): Tenant | undefined {
    const key = this.directory.tenantOfBearer(authorization);
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
    const id = DEFAULT_WORKSPACE_ID + (await this.records.nextId());
    const making = this.make(id, name, environments, credentials);
    this.pending.set(id, making);
    try {
      return await making;
    } finally {
      this.pending.delete(id);
    }
  }

  /**
   * Frees everything the workspace held: its record (committed first), its tenants, their credentials
   * in the directory, their storage; waiting consumers get their batch.
   */
  async delete(id: number): Promise<void> {
    const workspace = this.workspace(id);
    if (id === DEFAULT_WORKSPACE_ID)
      throw new Refused(409, 'The default workspace cannot be deleted; reset it instead');
    this.records.delete(id);
    await this.parts.defaultStorage.commit();
    await this.drop(workspace);
    await this.parts.storages.free(id);
  }

  /** One environment of a workspace; NotFound when there is none. */
  tenant(id: number, environment: EnvironmentName): Tenant {
    return this.tenantNamed({ id: String(id), environment });
  }

  /** Every tenant, the default one first. */
  all(): Tenant[] {
    return [...this.workspaces.values()].flatMap((workspace) => [...workspace.environments.values()]);
  }

  /**
   * Commits every tenant's changes so far (the pipeline's group commit): the default tenant's alone
   * while it is the only one. Fails with WorkspacesGone when the only failures were of workspaces
   * another emulator deleted (or found gone since the last commit): the others' changes are committed.
   */
  readonly commit = (): Promise<void> | undefined => {
    const first = this.parts.defaultStorage.commit();
    // In memory (TenantStorages.commits false) no workspace's storage has anything to commit.
    const visits = !this.single && this.parts.storages.commits;
    if (!visits && this.goneSinceCommit.size === 0) return first;
    const gone = this.goneSinceCommit;
    this.goneSinceCommit = new Set();
    const waits = [first];
    if (visits)
      for (const { storages } of this.workspaces.values()) for (const storage of storages) waits.push(storage.commit());
    const waiting = waits.filter((wait) => wait !== undefined);
    return waiting.length === 0 && gone.size === 0 ? undefined : allCommitted(waiting, gone);
  };

  /**
   * On a shared store, the default tenant's catch-up: its own feed's, then the workspaces it named
   * opened, then each workspace's feed: a workspace, a token or a client ID that another emulator
   * acknowledged is known here after it.
   */
  async catchUp(): Promise<void> {
    await this.parts.defaultStorage.shared?.catchUp();
    await Promise.allSettled(this.pending.values());
    await Promise.all(
      [...this.workspaces.values()].flatMap(({ storages }) => storages.map((storage) => storage.shared?.catchUp())),
    );
  }

  /** Closes the workspaces' storages (the default one is the emulator's to close). */
  async close(): Promise<void> {
    await Promise.allSettled(this.pending.values());
    await Promise.all([...this.workspaces.values()].map((workspace) => this.drop(workspace)));
  }

  private async make(
    id: number,
    name: string,
    environments: readonly EnvironmentName[],
    credentials: Partial<Record<EnvironmentName, GivenCredentials>>,
  ): Promise<CreatedWorkspace> {
    const names = ENVIRONMENTS.filter((environment) => environment === 'dev' || environments.includes(environment));
    const unrecorded = {
      id,
      name,
      environments: names.map((environment) => ({
        name: environment,
        client_id: credentials[environment]?.clientId,
        client_secret: credentials[environment]?.clientSecret,
      })),
    };
    let made: MadeTenant[];
    try {
      await this.parts.storages.markLive?.(id);
      made = await this.open(unrecorded);
    } catch (error) {
      await this.parts.storages.free(id);
      throw error instanceof DataDirError
        ? new Refused(503, `Workspace ${id} could not be made: ${error.message}`)
        : error;
    }
    const record: WorkspaceRecord = {
      id,
      name,
      environments: made.map(({ tenant, bootstrap }) => ({
        name: tenant.identity.environment,
        client_id: bootstrap.clientId,
        client_secret: bootstrap.secret,
      })),
    };
    this.records.put(record);
    try {
      await this.parts.defaultStorage.commit();
    } catch (error) {
      // Whether the record was kept is unknown (Redis did not confirm): the storage stays.
      await Promise.all(made.map(({ storage }) => storage.close()));
      throw error;
    }
    this.add(record, made);
    return record;
  }

  /** The tenants of a workspace, each in its storage; none when one fails (the others closed). */
  private async open({
    id,
    name,
    environments,
  }: Omit<WorkspaceRecord, 'environments'> & {
    environments: { name: EnvironmentName; client_id?: string; client_secret?: string }[];
  }): Promise<MadeTenant[]> {
    const opened = await Promise.allSettled(
      environments.map(({ name: environment, client_id, client_secret }) => {
        const identity = { workspaceId: id, workspaceName: name, environment };
        const listener = this.directory.listenerFor(tenantKey(identity));
        return this.parts.makeTenant(identity, listener, { clientId: client_id, clientSecret: client_secret });
      }),
    );
    const made = opened.flatMap((result) => (result.status === 'fulfilled' ? [result.value] : []));
    const failed = opened.find((result) => result.status === 'rejected');
    if (!failed) return made;
    for (const { identity } of made.map(({ tenant }) => tenant)) this.directory.forget(tenantKey(identity));
    await Promise.all(made.map(({ storage }) => storage.close()));
    throw failed.reason;
  }

  private add({ id, name }: WorkspaceRecord, made: MadeTenant[]): void {
    const workspace: Workspace = { id, name, environments: new Map(), storages: [] };
    for (const { tenant, storage } of made) {
      workspace.environments.set(tenant.identity.environment, tenant);
      workspace.storages.push(storage);
      this.byKey.set(tenantKey(tenant.identity), tenant);
    }
    this.workspaces.set(id, workspace);
    this.single = false;
  }

  /** No longer served here; its storage closed (not freed). */
  private async drop(workspace: Workspace): Promise<void> {
    if (this.workspaces.get(workspace.id) !== workspace || workspace.id === DEFAULT_WORKSPACE_ID) return;
    this.workspaces.delete(workspace.id);
    this.single = this.workspaces.size === 1;
    for (const tenant of workspace.environments.values()) {
      const key = tenantKey(tenant.identity);
      this.directory.forget(key);
      this.byKey.delete(key);
      tenant.domain.topics.wakeAll();
    }
    await Promise.all(workspace.storages.map((storage) => storage.close()));
  }

  /** Serves a workspace on record that is not served here (another emulator made it, or this one before a restart). */
  private follow(record: WorkspaceRecord): Promise<unknown> {
    const { id } = record;
    if (this.workspaces.has(id)) return Promise.resolve();
    let opening = this.pending.get(id);
    if (opening) return opening;
    opening = this.open(record)
      .then(
        async (made) => {
          // Deleted meanwhile (its announcement found nothing to drop): not served.
          if (await this.parts.defaultStorage.resources.get(WORKSPACE_RECORDS, String(id))) this.add(record, made);
          else await Promise.all(made.map(({ storage }) => storage.close()));
        },
        (error: unknown) => {
          // Deleted meanwhile, its keys freed: its storage refused to open. Not served, as above.
          if (!(error instanceof WorkspaceGone)) throw error;
        },
      )
      .finally(() => this.pending.delete(id));
    this.pending.set(id, opening);
    return opening;
  }

  /** Another emulator deleted the workspace (and frees its storage). */
  private forget(id: number): void {
    const workspace = this.workspaces.get(id);
    if (workspace) this.drop(workspace).catch((error: unknown) => this.openFailed(id, error));
  }

  private openFailed(id: number, error: unknown): void {
    this.parts.logger.error({ err: error, workspaceId: id }, 'could not serve a workspace on record');
  }

  /**
   * The workspaces served here become those on record (at start; on a shared store, after a reload).
   * Where one emulator holds the storage (a data dir; Redis while this emulator starts alone on it),
   * what a crash left of a workspace not on record is freed.
   */
  private async reconcile(): Promise<void> {
    const records = await this.records.all();
    const recorded = new Set(records.map(({ id }) => id));
    await this.parts.storages.freeUnrecorded?.(recorded);
    const gone = [...this.workspaces.values()].filter(({ id }) => !recorded.has(id));
    await Promise.all([
      ...gone.map((workspace) => this.drop(workspace)),
      ...records.map((record) => this.follow(record)),
    ]);
  }

  private workspace(id: number): Workspace {
    const workspace = this.workspaces.get(id);
    if (!workspace) throw noWorkspace(id);
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
    return this.tenantOfBearer(authorization) ?? this.defaultTenant;
  }
}

/** The emulator API's operations at the URLs the emulator gives out, whose tenant is in the URL (url-scope.ts). */
const OPENED_BY_URL: ReadonlySet<string> = new Set(['authorize_connection', 'mcp_message']);

/** Settles once every commit has; the first failure other than WorkspaceGone fails it at once. */
async function allCommitted(commits: Promise<void>[], gone: Set<number>): Promise<void> {
  await Promise.all(
    commits.map((commit) =>
      commit.catch((error: unknown) => {
        if (!(error instanceof WorkspaceGone)) throw error;
        gone.add(error.workspaceId);
      }),
    ),
  );
  if (gone.size > 0) throw new WorkspacesGone(gone);
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

function summary({ id, name, environments }: Workspace): WorkspaceSummary {
  return { id, name, environments: [...environments.keys()].map((environment) => ({ name: environment })) };
}
