// startMockServer: one node:http server for the event-streams API, the token endpoint, the stateful
// management operations, Prism for the other management operations, and the docs.
import { randomBytes } from 'node:crypto';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { pino } from 'pino';
import { Credentials } from './domain/credentials.js';
import { Faults, faultError, faultProblem } from './domain/faults.js';
import { RateLimiter } from './domain/rate-limit.js';
import type { EmulatorState, Limits } from './domain/state.js';
import { Topics } from './domain/topics.js';
import { EMITTED_ERROR_CODES, EmulatorError, errorReply, InvalidRequest, NotFound } from './errors.js';
import { apiClientHandlers } from './handlers/api-clients.js';
import { ANSWERED_LATER, type Outcome, type RouteHandler } from './handlers/context.js';
import { eventStreamHandlers } from './handlers/event-streams.js';
import { faultsEndpoint } from './handlers/faults-endpoint.js';
import { tokenHandlers } from './handlers/token.js';
import { topicHandlers } from './handlers/topics.js';
import { abandonBody } from './http/body.js';
import { findDocsDir, serveDocs } from './http/docs.js';
import { BoundedMemo } from './http/memo.js';
import { PrismBackend } from './http/prism.js';
import { type Reply, send } from './http/replies.js';
import { type RouteMatch, type RouteResult, Router } from './http/router.js';
import {
  type ApiName,
  deref,
  documentedErrorCodes,
  type JsonObject,
  loadSpecs,
  type Operation,
  platformLimits,
  type Specs,
  specFilePath,
} from './spec/bundles.js';
import { createAjv, describeViolations, RequestValidators, violations } from './spec/validators.js';
import { MemoryStore } from './store/memory.js';
import type { MessageStore } from './store/message-store.js';

export type LogLevel = 'silent' | 'error' | 'warn' | 'info' | 'debug';

interface RequestTarget {
  route: RouteResult;
  /** Path and query parameters, validated and coerced; shared by every request to the target, so frozen. */
  params?: Readonly<Record<string, any>>;
}

export interface MockServerOptions {
  /** Default '127.0.0.1'. */
  host?: string;
  /** Default 0: a free port. */
  port?: number;
  /** Client ID of the bootstrap API key (every right); generated when absent. */
  clientId?: string;
  clientSecret?: string;
  /** Lifetime of access tokens; default 3600. */
  tokenTtlSeconds?: number;
  limits?: {
    /** Largest consume batch_size (larger requests are reduced to it); default 50. */
    maxBatchSize?: number;
    /** Largest message, in bytes of JSON; default 1048576. */
    maxMessageBytes?: number;
    /** Most messages in one batch publish; default 100. */
    maxBatchMessages?: number;
    /** Requests per minute per API key on the event-streams API; default off. */
    rateLimitPerMinute?: number;
  };
  /** Milliseconds since the epoch; token expiry and retention use it. Default Date.now. */
  clock?: () => number;
  /** Default 'silent'. Per-request lines are logged at 'debug'. */
  logLevel?: LogLevel;
  /** Folder of the rendered docs served under /docs/; default the built @platform-api/docs package. */
  docsDir?: string;
  /** Where messages are kept; default a new in-memory store using `clock`. */
  store?: MessageStore;
}

export interface MockServer {
  /** 'http://HOST:PORT' */
  url: string;
  port: number;
  clientId: string;
  clientSecret: string;
  faults: Faults;
  close(): Promise<void>;
}

export async function startMockServer(options: MockServerOptions = {}): Promise<MockServer> {
  const clock = options.clock ?? Date.now;
  const logger = pino({ level: options.logLevel ?? 'silent', base: undefined });
  const specs = loadSpecs();
  assertErrorCodesDocumented(specs);
  const limits = resolveLimits(specs, options.limits ?? {});
  const bodyAjv = createAjv(specs);
  const store = options.store ?? new MemoryStore(clock);
  const operations = new Map(specs.operations.map((op) => [op.operationId, op]));
  const state: EmulatorState = {
    clock,
    limits,
    store,
    topics: new Topics(store, bodyAjv, clock),
    credentials: new Credentials(clock, positiveInteger('tokenTtlSeconds', options.tokenTtlSeconds ?? 3600)),
    faults: new Faults((operationId, fault) => faultProblem(operations.get(operationId), fault)),
    validators: new RequestValidators(createAjv(specs, { coerceTypes: true }), bodyAjv, (operationId, schema) =>
      operationId === 'publish_messages_batch' ? withBatchLimit(specs, schema, limits.maxBatchMessages) : schema,
    ),
    rateLimiter: new RateLimiter(limits.rateLimitPerMinute, clock),
  };
  const handlers: Record<string, RouteHandler> = {
    ...eventStreamHandlers(state),
    ...tokenHandlers(state),
    ...topicHandlers(state),
    ...apiClientHandlers(state),
  };
  assertHandlersMatchSpecs(specs, handlers);
  const bootstrap = bootstrapKey(state.credentials, options);
  const router = new Router(specs.operations);
  const prism = new PrismBackend(specFilePath('management'), logger);
  const docsDir = findDocsDir(options.docsDir);
  const logRequests = logger.isLevelEnabled('debug');
  /**
   * What each request target resolves to per method, kept because load tests repeat a few URLs: its
   * route and, once they pass validation, its parameters (a refused target is validated again each
   * time). Keyed by the URL as received: a key joined with the method costs about 150 ns more, since
   * the joined string must be copied before it can be hashed.
   */
  const targets = new BoundedMemo<Map<string, RequestTarget>>();

  const server = createServer((req, res) => {
    if (logRequests) logWhenAnswered(req, res);
    const url = req.url ?? '/';
    const queryAt = url.indexOf('?');
    const pathname = queryAt < 0 ? url : url.slice(0, queryAt);
    const method = req.method ?? 'GET';
    const targetByMethod = targets.get(url, () => new Map());
    let target = targetByMethod.get(method);
    if (!target) targetByMethod.set(method, (target = { route: router.match(method, pathname) }));
    const match = target.route;
    if (typeof match === 'object') {
      dispatch(match, target, req, res, queryAt < 0 ? '' : url.slice(queryAt + 1));
    } else if (pathname === '/docs' || pathname.startsWith('/docs/')) {
      serveDocs(docsDir, pathname, res, req).catch((error: unknown) => lastResort(error, res));
    } else if (pathname === '/_emulator/faults') {
      faultsEndpoint(state.faults, req, res).catch((error: unknown) => lastResort(error, res));
    } else {
      finish(
        req,
        res,
        'event-streams',
        errorReply('event-streams', new NotFound(`No operation at ${req.method} ${pathname}`)),
      );
    }
  });

  /**
   * Answers every failure itself. No promise unless a handler returns one: withJsonBody continues
   * through `complete` once readBody has the body, so a publish costs no promise job.
   */
  function dispatch(
    match: RouteMatch,
    target: RequestTarget,
    req: IncomingMessage,
    res: ServerResponse,
    query: string,
  ): void {
    const { operation } = match;
    const fail = (error: unknown) => {
      // Failures answered on purpose are not bugs worth an error log line.
      if (!(error instanceof EmulatorError))
        logger.error({ err: error, operationId: operation.operationId }, 'request failed');
      finish(req, res, operation.api, errorReply(operation.api, error));
    };
    const answer = (result: Reply | undefined) => {
      if (result) finish(req, res, operation.api, result);
    };
    const complete = (work: () => Outcome) => {
      let outcome: Outcome;
      try {
        outcome = work();
      } catch (error) {
        fail(error);
        return;
      }
      if (outcome instanceof Promise) outcome.then(answer, fail);
      else if (outcome !== ANSWERED_LATER) answer(outcome);
    };
    complete(() => {
      const handler = handlers[operation.operationId];
      const key = operation.needsBearer ? state.credentials.authenticateBearer(req.headers.authorization) : undefined;
      if (key && operation.api === 'event-streams') state.rateLimiter.count(key.id);
      const fault = state.faults.takeFault(operation.operationId);
      if (fault) throw faultError(operation, fault, limits);
      if (!handler) return prism.forward(req, res).then(() => undefined);
      const params = (target.params ??= validateParams(state, operation, match.params, query));
      if (key && handler.scope) {
        state.credentials.authorize(
          key,
          handler.scope,
          operation.api === 'event-streams' ? params.topic_id : undefined,
        );
      }
      return handler.handle({ req, res, operation, params, key, complete });
    });
  }

  /** Past dispatch's own handling (docs, faults endpoint): log, and cut the connection rather than crash. */
  function lastResort(error: unknown, res: ServerResponse): void {
    logger.error({ err: error }, 'unhandled request failure');
    res.destroy();
  }

  function logWhenAnswered(req: IncomingMessage, res: ServerResponse): void {
    const began = performance.now();
    res.once('close', () => {
      logger.debug(
        {
          method: req.method,
          url: req.url,
          status: res.headersSent ? res.statusCode : undefined,
          ms: performance.now() - began,
        },
        'request',
      );
    });
  }

  let closing = false;
  function finish(req: IncomingMessage, res: ServerResponse, api: ApiName, reply: Reply) {
    abandonBody(req, res);
    // While shutting down, each answer also ends its keep-alive connection.
    if (closing) res.shouldKeepAlive = false;
    send(res, api, reply);
  }

  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port ?? 0, options.host ?? '127.0.0.1', () => resolve());
  });
  const address = server.address() as AddressInfo;
  const host = address.family === 'IPv6' ? `[${address.address}]` : address.address;
  logger.info({ url: `http://${host}:${address.port}` }, 'emulator listening');

  return {
    url: `http://${host}:${address.port}`,
    port: address.port,
    clientId: bootstrap.clientId,
    clientSecret: bootstrap.secret,
    faults: state.faults,
    async close() {
      // Waiting consumers get their (empty) batch instead of a cut connection.
      closing = true;
      state.topics.wakeAll();
      const closed = new Promise<void>((resolve) => server.close(() => resolve()));
      server.closeIdleConnections();
      const force = setTimeout(() => server.closeAllConnections(), 1000);
      await Promise.all([closed, prism.close()]);
      clearTimeout(force);
    },
  };
}

function resolveLimits(specs: Specs, given: NonNullable<MockServerOptions['limits']>): Limits {
  const spec = platformLimits(specs);
  const maxBatchSize = positiveInteger('limits.maxBatchSize', given.maxBatchSize ?? spec.consumeBatchSizeMax);
  return {
    maxBatchSize,
    defaultBatchSize: Math.min(spec.consumeBatchSizeDefault, maxBatchSize),
    maxMessageBytes: positiveInteger('limits.maxMessageBytes', given.maxMessageBytes ?? spec.maxMessageBytes),
    maxBatchMessages: positiveInteger('limits.maxBatchMessages', given.maxBatchMessages ?? spec.maxBatchMessages),
    rateLimitPerMinute:
      given.rateLimitPerMinute === undefined
        ? undefined
        : positiveInteger('limits.rateLimitPerMinute', given.rateLimitPerMinute),
  };
}

function positiveInteger(name: string, value: number): number {
  if (!Number.isSafeInteger(value) || value < 1)
    throw new TypeError(`${name} must be a positive integer, not ${value}`);
  return value;
}

/** The batch body schema with `payloads.maxItems` set to the configured batch limit. */
function withBatchLimit(specs: Specs, schema: JsonObject, maxItems: number): JsonObject {
  const document = specs.documents['event-streams'];
  const resolved = deref(document, schema);
  const payloads = deref(document, resolved.properties.payloads);
  return { ...resolved, properties: { ...resolved.properties, payloads: { ...payloads, maxItems } } };
}

/** The spec's `info.x-error-codes` is the documented list; the emulator sends no other code. */
function assertErrorCodesDocumented(specs: Specs): void {
  const documented = new Set(documentedErrorCodes(specs));
  const missing = EMITTED_ERROR_CODES.filter((code) => !documented.has(code));
  if (missing.length > 0)
    throw new Error(`The event-streams spec does not document the error codes ${missing.join(', ')}`);
}

/** Every event-streams and token operation has a handler, and every handler an operation of the specs. */
function assertHandlersMatchSpecs(specs: Specs, handlers: Record<string, RouteHandler>): void {
  const missing = specs.operations.filter((op) => op.api !== 'management' && !handlers[op.operationId]);
  if (missing.length > 0) throw new Error(`No emulator handler for ${missing.map((op) => op.operationId).join(', ')}`);
  const known = new Set(specs.operations.map((op) => op.operationId));
  const unknown = Object.keys(handlers).filter((operationId) => !known.has(operationId));
  if (unknown.length > 0) throw new Error(`The specs have no operations ${unknown.join(', ')}`);
}

function bootstrapKey(credentials: Credentials, options: MockServerOptions) {
  const client = credentials.createClient({
    name: 'Local emulator',
    description: 'Created at start-up; its key has every right',
  });
  const { key, secret } = credentials.createKey(
    client,
    { name: 'Bootstrap key' },
    { clientId: options.clientId ?? randomBytes(10).toString('hex'), secret: options.clientSecret },
  );
  return { clientId: key.client_id, secret };
}

/** Path and query parameters coerced to their schema types (frozen: requests to the same target share them); 400 otherwise. */
function validateParams(
  state: EmulatorState,
  operation: Operation,
  pathParams: Readonly<Record<string, string>>,
  query: string,
) {
  const validate = state.validators.for(operation).params;
  const params: Record<string, unknown> = query
    ? { ...Object.fromEntries(new URLSearchParams(query)), ...pathParams }
    : { ...pathParams };
  if (validate && !validate(params)) {
    const list = violations(validate.errors);
    if (list.some((v) => v.pointer.startsWith('/topic_id'))) {
      throw new InvalidRequest(
        'INVALID_TOPIC_ID',
        `topic_id must be an unsigned 32-bit integer, not '${pathParams.topic_id}'`,
      );
    }
    throw new InvalidRequest('INVALID_REQUEST', describeViolations('Parameters', list), { errors: list });
  }
  return Object.freeze(params);
}
