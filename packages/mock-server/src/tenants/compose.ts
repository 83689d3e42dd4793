// How a tenant is made: its domain state (topics, credentials, faults, rate limit), its resource engine
// (made on first use), its journal, its clock and its state document, over one storage. The default
// tenant (server.ts) and every tenant made at run time (registry.ts) are made here, the same way.
import { positiveInteger } from '@platform-api/spec/conventions';
import { CoverageTally } from '../control/coverage.js';
import { Journal } from '../control/journal.js';
import { JOURNAL_MAX_BYTES } from '../control/journal-ring.js';
import type { CredentialListener } from '../domain/access-tokens.js';
import { type BootstrapCredentials, bootstrapKey } from '../domain/bootstrap.js';
import { Clock } from '../domain/clock.js';
import { Credentials } from '../domain/credentials.js';
import { Faults, faultProblem } from '../domain/faults.js';
import { RateLimiter } from '../domain/rate-limit.js';
import type { DomainState } from '../domain/state.js';
import { Topics } from '../domain/topics.js';
import { createResourceEngine, lazyResourceEngine, type ResourceEngine } from '../engine/engine.js';
import { StateAsDocument, stateSections } from '../engine/state-document.js';
import { DEFAULT_JOURNAL_SIZE, type MockServerOptions, resolveLimits } from '../options.js';
import { builtFrom } from '../spec/checks.js';
import type { SharedSpecs } from '../spec/shared.js';
import { scopedResources } from '../store/resource-store.js';
import type { Follower } from '../store/shared-state.js';
import type { Storage, TenantStorages } from '../store/storage.js';
import type { MadeTenant, Tenant, TenantIdentity } from './tenant.js';
import { UrlScope } from './url-scope.js';

/** A tenant with what its reset puts back: the bootstrap key, known once the state is loaded. */
export interface ComposedTenant {
  tenant: Tenant;
  restoredAtReset: RestoredAtReset;
}

interface RestoredAtReset {
  bootstrap?: BootstrapCredentials;
}

export interface TenantParts {
  bundles: SharedSpecs;
  storage: Storage;
  clock: Clock;
  options: MockServerOptions;
  identity: TenantIdentity;
  /** A tenant made at run time: the fleet directory, told of its credentials; its workspace answers its own details. */
  listener?: CredentialListener;
  /**
   * With a shared store, what catching up means for this tenant; by default its own feed's. The default
   * tenant's also catches up with the workspaces (Tenants.catchUp): a credential of one made by another
   * emulator a moment ago is found.
   */
  catchUp?: () => Promise<void>;
}

/** A tenant's domain state, resource engine, journal, clock and state document. */
export function composeTenant(parts: TenantParts): ComposedTenant {
  const { bundles, storage, clock, options, identity, listener } = parts;
  const { specs, valueChecks } = bundles;
  const catchUp = storage.shared && (parts.catchUp ?? storage.shared.catchUp.bind(storage.shared));
  const domain = composeDomain(bundles, storage, clock.now, options, listener, catchUp);
  const urls = new UrlScope(identity, storage.resources);
  const createEngine = (): ResourceEngine =>
    createResourceEngine(specs, {
      clock: clock.now,
      random: options.random,
      checks: valueChecks,
      store: scopedResources(storage.resources, 'management:'),
      domain,
      identity: listener ? { id: identity.workspaceId, name: identity.workspaceName } : undefined,
      urls,
    });
  // The build read the bundled spec's vocabulary: made at first use. Another spec's is read now, so
  // that a mistake in it stops the start.
  const engine = builtFrom('management', specs.documents.management)
    ? lazyResourceEngine(createEngine)
    : createEngine();
  const journal = new Journal(
    options.journalSize ?? DEFAULT_JOURNAL_SIZE,
    JOURNAL_MAX_BYTES,
    new CoverageTally(clock.now),
  );
  const restoredAtReset: RestoredAtReset = {};
  // The engine's resources, then the families whose state the domain keeps (topics, API clients and
  // keys). A reset also restores the rest as at start: a fresh emulator.
  const stateDocument = new StateAsDocument(
    () => stateSections(engine),
    async () => {
      restoredAtReset.bootstrap?.restore();
      domain.faults.clear();
      journal.clear();
      await clock.reset();
    },
  );
  return { tenant: { identity, domain, engine, journal, clock, stateDocument, urls }, restoredAtReset };
}

function composeDomain(
  { specs, operationsById: operations }: SharedSpecs,
  storage: Storage,
  clock: () => number,
  options: MockServerOptions,
  listener: CredentialListener | undefined,
  catchUp: (() => Promise<void>) | undefined,
): DomainState {
  const { messages, resources, shared } = storage;
  const limits = resolveLimits(specs, options.limits ?? {});
  const tokenTtlSeconds = positiveInteger('tokenTtlSeconds', options.tokenTtlSeconds ?? 3600);
  return {
    clock,
    limits,
    messages,
    topics: new Topics(messages, resources, clock, shared && ((topicId) => shared.watch(topicId))),
    credentials: new Credentials(resources, clock, tokenTtlSeconds, catchUp, listener),
    faults: new Faults((operationId, fault) => faultProblem(operations.get(operationId), fault)),
    rateLimiter: new RateLimiter(limits.rateLimitPerMinute, clock),
    catchUp,
  };
}

/**
 * The domain (followed, with a shared store), the bootstrap key of `given` (a new one when it names
 * none), and `seed` for a new store; committed. The reset restores that bootstrap key.
 */
export async function loadTenant(
  { tenant, restoredAtReset }: ComposedTenant,
  storage: Storage,
  given: Pick<MockServerOptions, 'clientId' | 'clientSecret' | 'seed'>,
  /** What else keeps records in this storage and follows them (the default tenant's: the workspaces on record). */
  alongside?: StoredFollower,
): Promise<BootstrapCredentials> {
  const { shared } = storage;
  const endStart = await shared?.startAlone();
  try {
    await loadDomain(tenant, storage, alongside);
    await tenant.urls.load();
    const bootstrapped = await bootstrapKey(tenant.domain.credentials, storage.resources, given);
    // A data dir that holds state already keeps it: the seed initialises a new one. After the
    // bootstrap key, which a seed neither holds nor replaces (its API client is the first).
    if (given.seed !== undefined && storage.fresh) await tenant.stateDocument.load(given.seed);
    await storage.commit();
    restoredAtReset.bootstrap = bootstrapped;
    return bootstrapped;
  } finally {
    // Not kept when this start failed: the mark would hold the others up until it expires.
    await endStart?.().catch(() => {});
  }
}

/** What reads records from a tenant's storage and, when it is shared, follows the others' changes to them. */
export type StoredFollower = Pick<Follower, 'changed' | 'reload'>;

/** The domain's indexes from the store; a shared store's feed loads them, holding the announcements that come meanwhile: none is lost. */
async function loadDomain({ domain, clock }: Tenant, { shared }: Storage, alongside?: StoredFollower): Promise<void> {
  const load = async () => {
    await Promise.all([domain.topics.load(), domain.credentials.load(), clock.load(), alongside?.reload()]);
  };
  if (!shared) {
    await load();
    return;
  }
  await shared.follow({
    changed(type, id, item) {
      domain.topics.applyChange(type, id, item);
      domain.credentials.applyChange(type, id, item);
      clock.applyChange(type, id, item);
      alongside?.changed(type, id, item);
    },
    appended: (topicId) => domain.topics.appended(topicId),
    waiting: (topicId) => domain.topics.waiting(topicId),
    reload: load,
  });
}

/** A tenant made at run time (or found on record at start), in its own storage, with its own clock and id counters. */
export async function workspaceTenant(
  { bundles, options, storages }: Pick<TenantParts, 'bundles' | 'options'> & { storages: TenantStorages },
  identity: TenantIdentity,
  listener: CredentialListener,
  /** Its bootstrap key as on record; a new one when it has none. */
  given: Pick<MockServerOptions, 'clientId' | 'clientSecret'>,
): Promise<MadeTenant> {
  const clock = new Clock(options.clock ?? Date.now);
  const storage = await storages.open(identity.workspaceId, identity.environment, clock.now);
  try {
    clock.keepIn(storage.resources);
    const composed = composeTenant({ bundles, storage, clock, options, identity, listener });
    const bootstrap = await loadTenant(composed, storage, given);
    return { tenant: composed.tenant, bootstrap, storage };
  } catch (error) {
    await storage.close();
    throw error;
  }
}
