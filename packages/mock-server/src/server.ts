// startMockServer: one node:http server for the event-streams API, the token endpoint, the management
// operations (the resource engine's; Prism's examples in --mode prism, but for topics, API clients and
// keys, whose state the domain keeps), the emulator API, the docs and the web console. It composes the
// layers in named steps: the specs, the storage (memory, a data dir or Redis), the default tenant (the
// domain state, the resource engine, the journal, the clock, the state document: tenants/compose.ts,
// which makes the workspaces' tenants too), the registry of tenants, the endpoints and the pipeline
// that runs every request. With Redis, several emulators share one state: each follows the
// changes the others announce.

import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { positiveInteger } from '@platform-api/spec/conventions';
import { emulatorEndpoints } from './control/endpoints.js';
import type { BootstrapCredentials } from './domain/bootstrap.js';
import { Clock } from './domain/clock.js';
import type { Faults } from './domain/faults.js';
import type { StateAsDocument } from './engine/state-document.js';
import { EMITTED_ERROR_CODES } from './errors.js';
import { platformEndpoints } from './handlers/index.js';
import { createServer } from './http/node-http.js';
import { PrismBackend } from './http/prism.js';
import { Router } from './http/router.js';
import { consoleSite, docsSite } from './http/static-files.js';
import { answerUnparsable } from './http/unparsable.js';
import { createLogger, type Logger } from './logger.js';
import { DEFAULT_REDIS_PREFIX, DEFAULT_REDIS_REPLY_TIMEOUT_MS, type MockServerOptions } from './options.js';
import { managementEndpoints } from './pipeline/management.js';
import { Pipeline } from './pipeline/pipeline.js';
import { documentedErrorCodes, type Specs, specFilePath } from './spec/bundles.js';
import { type SharedSpecs, sharedSpecs } from './spec/shared.js';
import { MemoryStore } from './store/memory/messages.js';
import { dataDirStorage, type EmulatorStorage, memoryStorage, redisStorage, type Storage } from './store/storage.js';
import { adminTokenFor, FleetAdmission } from './tenants/admission.js';
import { composeTenant, loadTenant, workspaceTenant } from './tenants/compose.js';
import { DEFAULT_WORKSPACE_ID, Tenants } from './tenants/registry.js';
import { seedWorkspaces, splitSeed } from './tenants/seed.js';
import type { TenantIdentity } from './tenants/tenant.js';

export interface MockServer {
  /** 'http://HOST:PORT' */
  url: string;
  port: number;
  clientId: string;
  clientSecret: string;
  /** The token the fleet-level calls of the emulator API need: the one given, or made for a host beyond loopback; none on loopback. */
  adminToken?: string;
  faults: Faults;
  /** The emulator's state (resources, topics and their messages, API clients and keys): export(), load(document), reset(). */
  state: StateAsDocument;
  close(): Promise<void>;
}

/** The tenant of the emulator as started: workspace 1, its `dev` environment. */
const DEFAULT_TENANT: TenantIdentity = {
  workspaceId: DEFAULT_WORKSPACE_ID,
  workspaceName: 'Local workspace',
  environment: 'dev',
};

const DEFAULT_HOST = '127.0.0.1';

export async function startMockServer(options: MockServerOptions = {}): Promise<MockServer> {
  const logger = createLogger(options.logLevel ?? 'silent');
  const bundles = checkedBundles(options.specDir);
  // Everything time-based reads this clock, which the emulator API can set, advance or freeze.
  const clock = new Clock(options.clock ?? Date.now);
  const storage = await openStorage(options, clock.now, logger);
  clock.keepIn(storage.resources);
  // On a shared store, what another emulator acknowledged in any workspace is known once caught up.
  const catchUp = () => tenants.catchUp();
  const composed = composeTenant({ bundles, storage, clock, options, identity: DEFAULT_TENANT, catchUp });
  const { tenant } = composed;
  const { workspaces: storages } = storage;
  const adminToken = adminTokenFor(options.host ?? DEFAULT_HOST, options.adminToken);
  const tenants = new Tenants({
    defaultTenant: tenant,
    defaultStorage: storage,
    storages,
    makeTenant: (identity, listener, given) =>
      workspaceTenant({ bundles, options, storages }, identity, listener, given),
    admission: new FleetAdmission(adminToken),
    logger,
  });
  const prism = new PrismBackend(specFilePath('management', options.specDir), logger);
  const pipeline = composePipeline(bundles, tenants, prism, options, logger);
  const server = httpServer(pipeline);
  let bootstrap: BootstrapCredentials;
  try {
    const { own, workspaces } = splitSeed(options.seed);
    // With the workspaces on record, each opened in its storage; a seed's made in a new store only.
    bootstrap = await loadTenant(composed, storage, { ...options, seed: own }, tenants.follower);
    if (storage.fresh) await seedWorkspaces(tenants, workspaces, bootstrap.clientId);
    await listen(server, options);
  } catch (error) {
    // No half-started emulator: the data dirs are unlocked for the next attempt.
    await tenants.close();
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
    adminToken,
    faults: tenant.domain.faults,
    state: tenant.stateDocument,
    close() {
      // Once: a second call (a test's cleanup after a restart) gets the same promise.
      closing ??= closeServer({ server, pipeline, tenants, prism, storage });
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
function openStorage(
  options: MockServerOptions,
  clock: () => number,
  logger: Logger,
): Promise<EmulatorStorage> | EmulatorStorage {
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

/** Every operation's endpoint, routed and checked from the specs, and the static sites. */
function composePipeline(
  bundles: SharedSpecs,
  tenants: Tenants,
  prism: PrismBackend,
  options: MockServerOptions,
  logger: Logger,
): Pipeline {
  const { specs, emulator } = bundles;
  const tenant = tenants.defaultTenant;
  const validators = bundles.requestValidators(tenant.domain.limits.maxBatchMessages);
  const backends = { engine: tenant.engine, prism, prismMode: options.mode === 'prism' };
  const endpoints = [
    ...Object.values(platformEndpoints(tenants)),
    ...managementEndpoints(specs.operations, backends, validators),
    ...Object.values(
      emulatorEndpoints({
        management: specs.documents.management,
        validators,
        specDir: options.specDir,
        operations: specs.operations,
        tenants,
      }),
    ),
  ];
  return new Pipeline({
    tenants,
    platform: { router: new Router(specs.operations), operations: specs.operations, validators },
    emulator: { router: new Router(emulator.operations), ...emulator },
    endpoints,
    sites: [docsSite(options.docsDir), consoleSite(options.consoleDir)],
    logger,
    commit: tenants.commit,
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

function listen(server: Server, options: MockServerOptions): Promise<void> {
  return new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port ?? 0, options.host ?? DEFAULT_HOST, () => resolve());
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
  tenants: Tenants;
  prism: PrismBackend;
  storage: Storage;
}): Promise<void> {
  const { server, pipeline, tenants, prism, storage } = running;
  // Waiting consumers get their (empty) batch instead of a cut connection.
  pipeline.closeConnections();
  for (const tenant of tenants.all()) tenant.domain.topics.wakeAll();
  const closed = new Promise<void>((resolve) => server.close(() => resolve()));
  server.closeIdleConnections();
  const force = setTimeout(() => server.closeAllConnections(), 1000);
  await Promise.all([closed, prism.close()]);
  clearTimeout(force);
  // After the last answer: the data dirs are committed, synced and unlocked.
  await tenants.close();
  await storage.close();
}
