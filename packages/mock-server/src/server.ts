// startMockServer: one node:http server for the event-streams API, the token endpoint, the stateful
// management operations (the resource engine's; Prism's examples in --mode prism, but for topics, API
// clients and keys, whose state the domain keeps), the emulator API, the docs and the web console. It composes the layers: the specs, the storage (memory
// or a data dir), the domain state, the handlers, the resource engine, and the dispatcher that runs
// requests. With Redis, several emulators share one state: each follows the changes the others announce.

import type { AddressInfo } from 'node:net';
import { positiveInteger } from '@platform-api/spec/conventions';
import { ControlPlane } from './control/control-plane.js';
import { CoverageTally } from './control/coverage.js';
import { controlEndpoints } from './control/endpoints.js';
import { JOURNAL_MAX_BYTES, Journal } from './control/journal.js';
import { Dispatcher } from './dispatch.js';
import { type BootstrapCredentials, bootstrapKey } from './domain/bootstrap.js';
import { Clock } from './domain/clock.js';
import { Credentials } from './domain/credentials.js';
import { Faults, faultProblem } from './domain/faults.js';
import { RateLimiter } from './domain/rate-limit.js';
import type { EmulatorState } from './domain/state.js';
import { Topics } from './domain/topics.js';
import { createResourceEngine, lazyResourceEngine } from './engine/engine.js';
import { stateSections, WorkspaceState } from './engine/state.js';
import { EMITTED_ERROR_CODES } from './errors.js';
import type { Handlers } from './handlers/handler.js';
import { createHandlers } from './handlers/index.js';
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
import { documentedErrorCodes, type Specs, specFilePath } from './spec/bundles.js';
import { builtFrom } from './spec/checks.js';
import { sharedSpecs } from './spec/shared.js';
import { MemoryStore } from './store/memory.js';
import { scopedResources } from './store/resource-store.js';
import { dataDirStorage, memoryStorage, redisStorage, type Storage } from './store/storage.js';

export interface MockServer {
  /** 'http://HOST:PORT' */
  url: string;
  port: number;
  clientId: string;
  clientSecret: string;
  faults: Faults;
  /** The emulator's state (resources, topics and their messages, API clients and keys): export(), load(document), reset(). */
  state: WorkspaceState;
  close(): Promise<void>;
}

export async function startMockServer(options: MockServerOptions = {}): Promise<MockServer> {
  // Everything time-based reads this clock, which the emulator API can set, advance or freeze.
  const controlledClock = new Clock(options.clock ?? Date.now);
  const clock = controlledClock.now;
  const logger = createLogger(options.logLevel ?? 'silent');
  const bundles = sharedSpecs(options.specDir);
  const { specs } = bundles;
  assertErrorCodesDocumented(specs);
  const limits = resolveLimits(specs, options.limits ?? {});
  const tokenTtlSeconds = positiveInteger('tokenTtlSeconds', options.tokenTtlSeconds ?? 3600);
  const storage = await openStorage(options, clock, logger);
  const { messages: store, resources, shared } = storage;
  controlledClock.keepIn(resources);
  const catchUp = shared && (() => shared.catchUp());
  const operations = new Map(specs.operations.map((op) => [op.operationId, op]));
  const state: EmulatorState = {
    clock,
    limits,
    store,
    topics: new Topics(store, resources, clock, shared && ((topicId) => shared.watch(topicId))),
    credentials: new Credentials(resources, clock, tokenTtlSeconds, catchUp),
    faults: new Faults((operationId, fault) => faultProblem(operations.get(operationId), fault)),
    rateLimiter: new RateLimiter(limits.rateLimitPerMinute, clock),
    catchUp,
  };
  const loadDomain = async () => {
    await Promise.all([state.topics.load(), state.credentials.load(), controlledClock.load()]);
  };
  const handlers = createHandlers(state);
  assertHandlersMatchSpecs(specs, handlers);
  const prism = new PrismBackend(specFilePath('management', options.specDir), logger);
  const createEngine = () =>
    createResourceEngine(specs, {
      clock,
      random: options.random,
      checks: bundles.valueChecks,
      store: scopedResources(resources, 'management:'),
      domain: { credentials: state.credentials, topics: state.topics, messages: store },
    });
  // The build read the bundled spec's vocabulary: made at first use. Another spec's is read now, so
  // that a mistake in it stops the start.
  const engine = builtFrom('management', specs.documents.management)
    ? lazyResourceEngine(createEngine)
    : createEngine();
  const journal = new Journal(options.journalSize ?? DEFAULT_JOURNAL_SIZE, JOURNAL_MAX_BYTES, new CoverageTally(clock));
  let bootstrap: BootstrapCredentials | undefined;
  // The state document: the engine's resources, then the families whose state the domain keeps (topics,
  // API clients and keys). A reset also restores the rest as at start: a fresh emulator.
  const workspace = new WorkspaceState(
    () => stateSections(engine),
    async () => {
      bootstrap?.restore();
      state.faults.clear();
      journal.clear();
      await controlledClock.reset();
    },
  );
  const validators = bundles.requestValidators(limits.maxBatchMessages);
  const dispatcher = new Dispatcher({
    state,
    handlers,
    router: new Router(specs.operations),
    validators,
    prism,
    engine,
    prismMode: options.mode === 'prism',
    control: new ControlPlane(
      controlEndpoints({
        state,
        engine,
        management: specs.documents.management,
        validators,
        workspace,
        journal,
        clock: controlledClock,
        specDir: options.specDir,
        operations: specs.operations,
      }),
      bundles.emulator,
    ),
    journal,
    sites: [docsSite(options.docsDir), consoleSite(options.consoleDir)],
    logger,
    commit: storage.commit,
  });
  const server = createServer(dispatcher.listener);
  server.keepAliveTimeout = KEEP_ALIVE_TIMEOUT_MS;
  server.on('clientError', answerUnparsable);
  // An Expect other than 100-continue: node would answer a bare 417; RFC 9110 10.1.1 lets a server
  // ignore an expectation it does not know, so the request is served as if it had none.
  server.on('checkExpectation', dispatcher.listener);
  /** The domain (followed, with a shared store), the bootstrap key, and a seed for a new store; committed. */
  const loadState = async (): Promise<BootstrapCredentials> => {
    // A shared store's feed loads the domain, holding the announcements that come meanwhile: none is lost.
    if (shared) {
      await shared.follow({
        changed(type, id, item) {
          state.topics.applyChange(type, id, item);
          state.credentials.applyChange(type, id, item);
          controlledClock.applyChange(type, id, item);
        },
        appended: (topicId) => state.topics.appended(topicId),
        waiting: (topicId) => state.topics.waiting(topicId),
        reload: loadDomain,
      });
    } else {
      await loadDomain();
    }
    const bootstrapped = await bootstrapKey(state.credentials, resources, options);
    // A data dir that holds state already keeps it: the seed initialises a new one. After the
    // bootstrap key, which a seed neither holds nor replaces (its API client is the first).
    if (options.seed !== undefined && storage.fresh) await workspace.load(options.seed);
    await storage.commit();
    return bootstrapped;
  };
  try {
    const endStart = await shared?.startAlone();
    try {
      bootstrap = await loadState();
    } finally {
      // Not kept when this start failed: the mark would hold the others up until it expires.
      await endStart?.().catch(() => {});
    }
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(options.port ?? 0, options.host ?? '127.0.0.1', () => resolve());
    });
  } catch (error) {
    // No half-started emulator: the data dir is unlocked for the next attempt.
    await storage.close();
    throw error;
  }
  let closing: Promise<void> | undefined;
  const address = server.address() as AddressInfo;
  const host = address.family === 'IPv6' ? `[${address.address}]` : address.address;
  logger.info({ url: `http://${host}:${address.port}` }, 'emulator listening');

  const started = bootstrap;
  return {
    url: `http://${host}:${address.port}`,
    port: address.port,
    clientId: started.clientId,
    clientSecret: started.secret,
    faults: state.faults,
    state: workspace,
    close() {
      // Once: a second call (a test's cleanup after a restart) gets the same promise.
      closing ??= closeServer();
      return closing;
    },
  };

  async function closeServer(): Promise<void> {
    // Waiting consumers get their (empty) batch instead of a cut connection.
    dispatcher.closeConnections();
    state.topics.wakeAll();
    const closed = new Promise<void>((resolve) => server.close(() => resolve()));
    server.closeIdleConnections();
    const force = setTimeout(() => server.closeAllConnections(), 1000);
    await Promise.all([closed, prism.close()]);
    clearTimeout(force);
    // After the last answer: the data dir is committed, synced and unlocked.
    await storage.close();
  }
}

/**
 * How long an idle connection stays open. Clients drop their idle pooled connections sooner (node's
 * agent after 5 s, or a second before the server's Keep-Alive hint; undici after 4 s), so the client
 * always closes first. A server that closes first can close a connection as a request is sent on it
 * (ECONNRESET), which node's default of 5 s does whenever the process running the emulator and its
 * client stalls for a few seconds: a busy CI runner, a debugger.
 */
export const KEEP_ALIVE_TIMEOUT_MS = 65_000;

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

/** The batch body schema with `payloads.maxItems` set to the configured batch limit. */
/** The spec's `info.x-error-codes` is the documented list; the emulator sends no other code. */
function assertErrorCodesDocumented(specs: Specs): void {
  const documented = new Set(documentedErrorCodes(specs));
  const missing = EMITTED_ERROR_CODES.filter((code) => !documented.has(code));
  if (missing.length > 0)
    throw new Error(`The event-streams spec does not document the error codes ${missing.join(', ')}`);
}

/**
 * Every event-streams and token operation of the loaded specs has a handler, and every handler an
 * operation: tsc holds the handlers to the specs they were generated from, this to the installed ones.
 */
function assertHandlersMatchSpecs(specs: Specs, handlers: Handlers): void {
  const missing = specs.operations.filter((op) => op.api !== 'management' && !(op.operationId in handlers));
  if (missing.length > 0) throw new Error(`No emulator handler for ${missing.map((op) => op.operationId).join(', ')}`);
  const known = new Set(specs.operations.map((op) => op.operationId));
  const unknown = Object.keys(handlers).filter((operationId) => !known.has(operationId));
  if (unknown.length > 0) throw new Error(`The specs have no operations ${unknown.join(', ')}`);
}
