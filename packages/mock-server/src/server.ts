// startMockServer: one node:http server for the event-streams API, the token endpoint, the management
// operations (the resource engine's; Prism's examples in --mode prism, but for topics, API clients and
// keys, whose state the domain keeps), the emulator API, the docs and the web console. It composes the
// layers in named steps: the specs, the storage (memory, a data dir or Redis), the tenant (the domain
// state, the resource engine, the journal, the clock, the state document), the endpoints and the
// pipeline that runs every request. With Redis, several emulators share one state: each follows the
// changes the others announce.

import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { positiveInteger } from '@platform-api/spec/conventions';
import { CoverageTally } from './control/coverage.js';
import { emulatorEndpoints } from './control/endpoints.js';
import { Journal } from './control/journal.js';
import { JOURNAL_MAX_BYTES } from './control/journal-ring.js';
import { type BootstrapCredentials, bootstrapKey } from './domain/bootstrap.js';
import { Clock } from './domain/clock.js';
import { Credentials } from './domain/credentials.js';
import { Faults, faultProblem } from './domain/faults.js';
import { RateLimiter } from './domain/rate-limit.js';
import type { DomainState } from './domain/state.js';
import { Topics } from './domain/topics.js';
import { createResourceEngine, lazyResourceEngine, type ResourceEngine } from './engine/engine.js';
import { StateAsDocument, stateSections } from './engine/state-document.js';
import { EMITTED_ERROR_CODES } from './errors.js';
import { platformEndpoints } from './handlers/index.js';
import { createServer } from './http/node-http.js';
import { PrismBackend } from './http/prism.js';
import { Router } from './http/router.js';
import { consoleSite, docsSite } from './http/static-files.js';
import { answerUnparsable } from './http/unparsable.js';
import { createLogger, type Logger } from './logger.js';
import {
  DEFAULT_JOURNAL_SIZE,
  DEFAULT_REDIS_PREFIX,
  DEFAULT_REDIS_REPLY_TIMEOUT_MS,
  type MockServerOptions,
  resolveLimits,
} from './options.js';
import { managementEndpoints } from './pipeline/management.js';
import { Pipeline } from './pipeline/pipeline.js';
import { documentedErrorCodes, type Specs, specFilePath } from './spec/bundles.js';
import { builtFrom } from './spec/checks.js';
import { type SharedSpecs, sharedSpecs } from './spec/shared.js';
import { MemoryStore } from './store/memory/messages.js';
import { scopedResources } from './store/resource-store.js';
import { dataDirStorage, memoryStorage, redisStorage, type Storage } from './store/storage.js';
import type { Tenant } from './tenants/tenant.js';

export interface MockServer {
  /** 'http://HOST:PORT' */
  url: string;
  port: number;
  clientId: string;
  clientSecret: string;
  faults: Faults;
  /** The emulator's state (resources, topics and their messages, API clients and keys): export(), load(document), reset(). */
  state: StateAsDocument;
  close(): Promise<void>;
}

export async function startMockServer(options: MockServerOptions = {}): Promise<MockServer> {
  const logger = createLogger(options.logLevel ?? 'silent');
  const bundles = checkedBundles(options.specDir);
  // Everything time-based reads this clock, which the emulator API can set, advance or freeze.
  const clock = new Clock(options.clock ?? Date.now);
  const storage = await openStorage(options, clock.now, logger);
  clock.keepIn(storage.resources);
  const { tenant, restoredAtReset } = composeTenant(bundles, storage, clock, options);
  const prism = new PrismBackend(specFilePath('management', options.specDir), logger);
  const pipeline = composePipeline(bundles, tenant, prism, options, logger, storage.commit);
  const server = httpServer(pipeline);
  let bootstrap: BootstrapCredentials;
  try {
    bootstrap = await loadDomainAndSeed(tenant, storage, options);
    restoredAtReset.bootstrap = bootstrap;
    await listen(server, options);
  } catch (error) {
    // No half-started emulator: the data dir is unlocked for the next attempt.
    await storage.close();
    throw error;
  }
  const url = urlOf(server);
  logger.info({ url }, 'emulator listening');
  let closing: Promise<void> | undefined;
  return {
    url,
    port: (server.address() as AddressInfo).port,
    clientId: bootstrap.clientId,
    clientSecret: bootstrap.secret,
    faults: tenant.domain.faults,
    state: tenant.stateDocument,
    close() {
      // Once: a second call (a test's cleanup after a restart) gets the same promise.
      closing ??= closeServer({ server, pipeline, tenant, prism, storage });
      return closing;
    },
  };
}

/**
 * How long an idle connection stays open. Clients drop their idle pooled connections sooner (node's
 * agent after 5 s, or a second before the server's Keep-Alive hint; undici after 4 s), so the client
 * always closes first. A server that closes first can close a connection as a request is sent on it
 * (ECONNRESET), which node's default of 5 s does whenever the process running the emulator and its
 * client stalls for a few seconds: a busy CI runner, a debugger.
 */
export const KEEP_ALIVE_TIMEOUT_MS = 65_000;

/** The bundles (shared by the emulators of the process), their error codes held to what the emulator sends. */
function checkedBundles(specDir: string | undefined): SharedSpecs {
  const bundles = sharedSpecs(specDir);
  assertErrorCodesDocumented(bundles.specs);
  return bundles;
}

/** The spec's `info.x-error-codes` is the documented list; the emulator sends no other code. */
function assertErrorCodesDocumented(specs: Specs): void {
  const documented = new Set(documentedErrorCodes(specs));
  const missing = EMITTED_ERROR_CODES.filter((code) => !documented.has(code));
  if (missing.length > 0)
    throw new Error(`The event-streams spec does not document the error codes ${missing.join(', ')}`);
}

/** Redis, a data dir's database, or memory (the given message store, or a new MemoryStore). */
function openStorage(options: MockServerOptions, clock: () => number, logger: Logger): Promise<Storage> | Storage {
  const given = [options.store && 'store', options.dataDir !== undefined && 'dataDir', options.redisUrl && 'redisUrl'];
  if (given.filter(Boolean).length > 1) {
    throw new TypeError(
      `Give startMockServer one of store, dataDir and redisUrl, not ${given.filter(Boolean).join(' and ')}`,
    );
  }
  if (options.redisUrl !== undefined) {
    const replyTimeoutMs = positiveInteger(
      'redisReplyTimeoutMs',
      options.redisReplyTimeoutMs ?? DEFAULT_REDIS_REPLY_TIMEOUT_MS,
    );
    const where = { url: options.redisUrl, prefix: options.redisPrefix ?? DEFAULT_REDIS_PREFIX, replyTimeoutMs };
    return redisStorage(where, clock, logger);
  }
  if (options.dataDir === undefined) return memoryStorage(options.store ?? new MemoryStore(clock));
  const durability = options.durability ?? 'full';
  if (durability !== 'full' && durability !== 'relaxed') {
    throw new TypeError(`durability must be 'full' or 'relaxed', not ${durability}`);
  }
  return dataDirStorage(options.dataDir, durability, clock);
}

/** What a reset puts back besides the state document: the bootstrap key, known once the state is loaded. */
interface RestoredAtReset {
  bootstrap?: BootstrapCredentials;
}

/** The emulator's one tenant: its domain state, resource engine, journal, clock and state document. */
function composeTenant(
  { specs, valueChecks }: SharedSpecs,
  storage: Storage,
  clock: Clock,
  options: MockServerOptions,
): { tenant: Tenant; restoredAtReset: RestoredAtReset } {
  const domain = composeDomain(specs, storage, clock.now, options);
  const createEngine = (): ResourceEngine =>
    createResourceEngine(specs, {
      clock: clock.now,
      random: options.random,
      checks: valueChecks,
      store: scopedResources(storage.resources, 'management:'),
      domain,
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
  return { tenant: { domain, engine, journal, clock, stateDocument }, restoredAtReset };
}

function composeDomain(specs: Specs, storage: Storage, clock: () => number, options: MockServerOptions): DomainState {
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
    credentials: new Credentials(resources, clock, tokenTtlSeconds, catchUp),
    faults: new Faults((operationId, fault) => faultProblem(operations.get(operationId), fault)),
    rateLimiter: new RateLimiter(limits.rateLimitPerMinute, clock),
    catchUp,
  };
}

/** Every operation's endpoint, routed and checked from the specs, and the static sites. */
function composePipeline(
  bundles: SharedSpecs,
  tenant: Tenant,
  prism: PrismBackend,
  options: MockServerOptions,
  logger: Logger,
  commit: Storage['commit'],
): Pipeline {
  const { specs, emulator } = bundles;
  const validators = bundles.requestValidators(tenant.domain.limits.maxBatchMessages);
  const backends = { engine: tenant.engine, prism, prismMode: options.mode === 'prism' };
  const endpoints = [
    ...Object.values(platformEndpoints()),
    ...managementEndpoints(specs.operations, backends, validators),
    ...Object.values(
      emulatorEndpoints({
        management: specs.documents.management,
        validators,
        specDir: options.specDir,
        operations: specs.operations,
      }),
    ),
  ];
  return new Pipeline({
    tenant,
    platform: { router: new Router(specs.operations), operations: specs.operations, validators },
    emulator: { router: new Router(emulator.operations), ...emulator },
    endpoints,
    sites: [docsSite(options.docsDir), consoleSite(options.consoleDir)],
    logger,
    commit,
  });
}

function httpServer(pipeline: Pipeline): Server {
  const server = createServer(pipeline.listener);
  server.keepAliveTimeout = KEEP_ALIVE_TIMEOUT_MS;
  server.on('clientError', answerUnparsable);
  // An Expect other than 100-continue: node would answer a bare 417; RFC 9110 10.1.1 lets a server
  // ignore an expectation it does not know, so the request is served as if it had none.
  server.on('checkExpectation', pipeline.listener);
  return server;
}

/** The domain (followed, with a shared store), the bootstrap key, and a seed for a new store; committed. */
async function loadDomainAndSeed(
  tenant: Tenant,
  storage: Storage,
  options: MockServerOptions,
): Promise<BootstrapCredentials> {
  const { shared } = storage;
  const endStart = await shared?.startAlone();
  try {
    await loadDomain(tenant, storage);
    const bootstrapped = await bootstrapKey(tenant.domain.credentials, storage.resources, options);
    // A data dir that holds state already keeps it: the seed initialises a new one. After the
    // bootstrap key, which a seed neither holds nor replaces (its API client is the first).
    if (options.seed !== undefined && storage.fresh) await tenant.stateDocument.load(options.seed);
    await storage.commit();
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

function listen(server: Server, options: MockServerOptions): Promise<void> {
  return new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port ?? 0, options.host ?? '127.0.0.1', () => resolve());
  });
}

function urlOf(server: Server): string {
  const address = server.address() as AddressInfo;
  const host = address.family === 'IPv6' ? `[${address.address}]` : address.address;
  return `http://${host}:${address.port}`;
}

async function closeServer(running: {
  server: Server;
  pipeline: Pipeline;
  tenant: Tenant;
  prism: PrismBackend;
  storage: Storage;
}): Promise<void> {
  const { server, pipeline, tenant, prism, storage } = running;
  // Waiting consumers get their (empty) batch instead of a cut connection.
  pipeline.closeConnections();
  tenant.domain.topics.wakeAll();
  const closed = new Promise<void>((resolve) => server.close(() => resolve()));
  server.closeIdleConnections();
  const force = setTimeout(() => server.closeAllConnections(), 1000);
  await Promise.all([closed, prism.close()]);
  clearTimeout(force);
  // After the last answer: the data dir is committed, synced and unlocked.
  await storage.close();
}
