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
import type { Specs } from '../spec/bundles.js';
import { builtFrom } from '../spec/checks.js';
import type { SharedSpecs } from '../spec/shared.js';
import { MemoryStore } from '../store/memory/messages.js';
import { scopedResources } from '../store/resource-store.js';
import { memoryStorage, type Storage } from '../store/storage.js';
import type { Tenant, TenantIdentity } from './tenant.js';

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
}

/** A tenant's domain state, resource engine, journal, clock and state document. */
export function composeTenant({ bundles, storage, clock, options, identity, listener }: TenantParts): ComposedTenant {
  const { specs, valueChecks } = bundles;
  const domain = composeDomain(specs, storage, clock.now, options, listener);
  const createEngine = (): ResourceEngine =>
    createResourceEngine(specs, {
      clock: clock.now,
      random: options.random,
      checks: valueChecks,
      store: scopedResources(storage.resources, 'management:'),
      domain,
      identity: listener ? { id: identity.workspaceId, name: identity.workspaceName } : undefined,
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
  return { tenant: { identity, domain, engine, journal, clock, stateDocument }, restoredAtReset };
}

function composeDomain(
  specs: Specs,
  storage: Storage,
  clock: () => number,
  options: MockServerOptions,
  listener: CredentialListener | undefined,
): DomainState {
  const { messages, resources, shared } = storage;
  const limits = resolveLimits(specs, options.limits ?? {});
  const tokenTtlSeconds = positiveInteger('tokenTtlSeconds', options.tokenTtlSeconds ?? 3600);
  const catchUp = shared && (() => shared.catchUp());
  const operations = new Map(specs.operations.map((op) => [op.operationId, op]));
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
): Promise<BootstrapCredentials> {
  const { shared } = storage;
  const endStart = await shared?.startAlone();
  try {
    await loadDomain(tenant, storage);
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

/** The domain's indexes from the store; a shared store's feed loads them, holding the announcements that come meanwhile: none is lost. */
async function loadDomain({ domain, clock }: Tenant, { shared }: Storage): Promise<void> {
  const load = async () => {
    await Promise.all([domain.topics.load(), domain.credentials.load(), clock.load()]);
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
    },
    appended: (topicId) => domain.topics.appended(topicId),
    waiting: (topicId) => domain.topics.waiting(topicId),
    reload: load,
  });
}

/** A tenant made at run time: in memory, its own stores, clock and id counters; its bootstrap key new, with the given credentials. */
export async function memoryTenant(
  bundles: SharedSpecs,
  options: MockServerOptions,
  identity: TenantIdentity,
  listener: CredentialListener,
  given: Pick<MockServerOptions, 'clientId' | 'clientSecret'>,
): Promise<{ tenant: Tenant; bootstrap: BootstrapCredentials }> {
  const clock = new Clock(options.clock ?? Date.now);
  const storage = memoryStorage(new MemoryStore(clock.now));
  clock.keepIn(storage.resources);
  const composed = composeTenant({ bundles, storage, clock, options, identity, listener });
  const bootstrap = await loadTenant(composed, storage, given);
  return { tenant: composed.tenant, bootstrap };
}
