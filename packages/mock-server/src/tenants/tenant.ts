// A tenant: one environment of one workspace, with its platform's state and what goes with it (its
// journal, the controls of its clock, its state as one document), handed to every endpoint with its
// request (EndpointRequest.tenant) rather than held by the endpoints. The registry (registry.ts) holds
// the default tenant and those made at run time; the pipeline resolves a request's tenant in one place
// (Pipeline.start, through Tenants.resolve).
import type { Journal } from '../control/journal.js';
import type { BootstrapCredentials } from '../domain/bootstrap.js';
import type { Clock } from '../domain/clock.js';
import type { DomainState } from '../domain/state.js';
import type { ResourceEngine } from '../engine/engine.js';
import type { StateAsDocument } from '../engine/state-document.js';
import type { Storage } from '../store/storage.js';
import type { UrlScope } from './url-scope.js';

/** The environments a workspace can have; `dev` it always has. */
export const ENVIRONMENTS = ['dev', 'test', 'prod'] as const;
export type EnvironmentName = (typeof ENVIRONMENTS)[number];

export const isEnvironment = (name: string): name is EnvironmentName =>
  (ENVIRONMENTS as readonly string[]).includes(name);

/** Which workspace and environment a tenant is. */
export interface TenantIdentity {
  readonly workspaceId: number;
  readonly workspaceName: string;
  readonly environment: EnvironmentName;
}

export interface Tenant {
  readonly identity: TenantIdentity;
  /** Topics and their messages, credentials, faults, the rate limit, the limits and the clock's time. */
  readonly domain: DomainState;
  /** The management resources, served from the spec's `x-resource` annotations. */
  readonly engine: ResourceEngine;
  /** The answered requests of the platform's APIs. */
  readonly journal: Journal;
  /** The clock the domain's time comes from: set, advanced, frozen over the emulator API. */
  readonly clock: Clock;
  /** The whole state as one document: exported, loaded, reset. */
  readonly stateDocument: StateAsDocument;
  /** What the URLs it answers to be opened without credentials carry: the tenant, and their keys. */
  readonly urls: UrlScope;
}

/** A tenant made at run time, with its bootstrap credentials and the storage it holds open. */
export interface MadeTenant {
  tenant: Tenant;
  bootstrap: BootstrapCredentials;
  storage: Storage;
}

/** The key of a tenant in the fleet: `"<workspaceId>:<environment>"`. */
export const tenantKey = ({ workspaceId, environment }: TenantIdentity): string => `${workspaceId}:${environment}`;

/** The tenant of a client ID, for the token endpoint, whose client ID may be in the body. */
export interface ClientIdLookup {
  tenantOfClientId(clientId: string): Tenant | undefined;
}
