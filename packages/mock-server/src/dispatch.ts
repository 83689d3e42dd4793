// The life of a request, one verb per step: route it (the router, remembered per request target),
// admit it (bearer token, rate limit, injected fault, parameters, rights), handle it (its handler, the
// resource engine, or Prism in `--mode prism`), read its body for them, and respond (held replies, see
// http/replies.ts), handing the answered request to the journal. A path of the emulator's own API
// (/_emulator/*) goes to the control plane, which its spec routes.
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { ControlPlane } from './control/control-plane.js';
import type { Journal } from './control/journal.js';
import type { ApiKey, Scope } from './domain/credentials.js';
import { faultError } from './domain/faults.js';
import type { EmulatorState } from './domain/state.js';
import { PACKAGE_LIMITS } from './engine/custom/packages.js';
import type { ResourceEngine } from './engine/engine.js';
import {
  EmulatorError,
  errorReply,
  InvalidRequest,
  MethodNotAllowed,
  NotFound,
  PayloadTooLarge,
  StoreUnavailable,
} from './errors.js';
import {
  type AnyHandler,
  type AnyHandlerRequest,
  type Handlers,
  type JsonBodyRule,
  type Outcome,
  PENDING,
  type ReceivedBody,
  SMALL_BODY_LIMIT,
} from './handlers/handler.js';
import {
  BodyReader,
  type BodyReceiver,
  discardUnreadBody,
  isJsonContentType,
  notUtf8,
  parseJson,
  unreadableJson,
  unsupportedEncoding,
} from './http/body.js';
import { BoundedMemo } from './http/memo.js';
import type { PrismBackend } from './http/prism.js';
import { HeldReplies, jsonReply, type Reply } from './http/replies.js';
import type { RouteMatch, RouteResult, Router } from './http/router.js';
import { isUnder, type StaticSite, serveRoot, serveStatic } from './http/static-files.js';
import type { Logger } from './logger.js';
import type { ApiName, Operation, SpecName } from './spec/bundles.js';
import type { RequestValidators } from './spec/validators.js';

export interface DispatcherParts {
  state: EmulatorState;
  handlers: Handlers;
  router: Router;
  validators: RequestValidators;
  prism: PrismBackend;
  /** Serves the management operations the spec annotates. */
  engine: ResourceEngine;
  /**
   * `--mode prism`: Prism answers the engine's operations but those whose state the domain keeps
   * (topics, API clients and keys), which stay the engine's.
   */
  prismMode: boolean;
  /** The emulator's own API, /_emulator/*. */
  control: ControlPlane;
  /** Where answered requests of the platform's APIs go; off with size 0. */
  journal: Journal;
  /** The rendered docs (/docs/) and the web console (/_emulator/console/). */
  sites: StaticSite[];
  logger: Logger;
  /** Commits the changes of a turn; its held replies are written once the result settles (see HeldReplies). */
  commit: () => Promise<void> | undefined;
}

interface RequestTarget {
  route: RouteResult;
  /** Path and query parameters, validated and coerced; shared by every request to the target, so frozen. */
  params?: Readonly<Record<string, unknown>>;
}

/** Runs the requests of one server; what it holds (queued body reads, held replies, the memo) is its own. */
export class Dispatcher {
  readonly bodies = new BodyReader();
  private readonly replies: HeldReplies;
  private readonly handlers: ReadonlyMap<string, AnyHandler>;
  /**
   * What each request target resolves to per method, kept because load tests repeat a few URLs: its
   * route and, once they pass validation, its parameters (a refused target is validated again each
   * time). Keyed by the URL as received, then the method: a key joining the two would cost every
   * request more (BENCHMARKS.md), since the joined string must be copied before it can be hashed.
   */
  private readonly targets = new BoundedMemo<Map<string, RequestTarget>>();
  private readonly logRequests: boolean;
  /** While shutting down, each reply also ends its keep-alive connection. */
  private closing = false;

  constructor(readonly parts: DispatcherParts) {
    // A shared store out of reach (StoreUnavailable) is answered: the emulator goes on, and recovers with it.
    this.replies = new HeldReplies(parts.commit, (api, error) =>
      error instanceof StoreUnavailable ? errorReply(api, error) : undefined,
    );
    this.handlers = new Map<string, AnyHandler>(Object.entries(parts.handlers));
    this.logRequests = parts.logger.isLevelEnabled('debug');
  }

  /** node:http's request listener. */
  readonly listener = (req: IncomingMessage, res: ServerResponse): void => {
    if (this.logRequests) this.logWhenClosed(req, res);
    const url = req.url ?? '/';
    const queryAt = url.indexOf('?');
    const pathname = queryAt < 0 ? url : url.slice(0, queryAt);
    const method = req.method ?? 'GET';
    const targetByMethod = this.targets.get(url, () => new Map());
    let target = targetByMethod.get(method);
    if (!target) {
      target = { route: this.parts.router.route(method, pathname) };
      targetByMethod.set(method, target);
    }
    const { route } = target;
    if (route && 'operation' in route) {
      this.run(new Call(this, req, res, route, target, queryAt < 0 ? '' : url.slice(queryAt + 1)), admit);
      return;
    }
    const began = performance.now();
    const receivedAt = this.parts.journal.enabled ? this.parts.state.clock() : 0;
    if (route) {
      this.respondOutsideCall(
        req,
        res,
        route.api,
        errorReply(route.api, new MethodNotAllowed(method, route.allowed)),
        receivedAt,
        began,
      );
      return;
    }
    const site = this.parts.sites.find((candidate) => isUnder(candidate, pathname));
    if (site) {
      serveStatic(site, pathname, res, req).catch((error: unknown) => this.lastResort(error, res));
      return;
    }
    if ((method === 'GET' || method === 'HEAD') && serveRoot(pathname, res, req)) return;
    const control = this.parts.control.route(method, pathname);
    if (control && 'operation' in control) {
      this.serveControl(req, res, () =>
        this.parts.control.serve(req, res, control, queryAt < 0 ? '' : url.slice(queryAt + 1), this.bodies),
      );
    } else if (control) {
      this.serveControl(req, res, () => errorReply('emulator', new MethodNotAllowed(method, control.allowed)));
    } else {
      const notFound = new NotFound(`No operation at ${pathname}`);
      this.respondOutsideCall(req, res, undefined, errorReply('event-streams', notFound), receivedAt, began);
    }
  };

  /** An answer of the emulator API (not journaled); a refusal in its EmulatorError shape. */
  private serveControl(
    req: IncomingMessage,
    res: ServerResponse,
    serve: () => Promise<Reply | undefined> | Reply | undefined,
  ) {
    const answer = (reply: Reply | undefined) => {
      if (reply) this.respond(req, res, 'emulator', reply);
    };
    const refuse = (error: unknown) => {
      if (!(error instanceof EmulatorError)) this.parts.logger.error({ err: error, url: req.url }, 'request failed');
      answer(errorReply('emulator', error));
    };
    try {
      const outcome = serve();
      if (outcome instanceof Promise) outcome.then(answer, refuse);
      else answer(outcome);
    } catch (error) {
      refuse(error);
    }
  }

  /** A request no operation answers (a method a path does not have, an unknown path): answered and journaled. */
  private respondOutsideCall(
    req: IncomingMessage,
    res: ServerResponse,
    api: ApiName | undefined,
    reply: Reply,
    receivedAt: number,
    began: number,
  ): void {
    this.respond(req, res, api ?? 'event-streams', reply);
    if (this.parts.journal.enabled) {
      this.journal(req, undefined, api, undefined, undefined, reply, receivedAt, began);
    }
  }

  /** Hands an answered request to the journal: references to what is at hand, nothing parsed. */
  journal(
    req: IncomingMessage,
    operation: Operation | undefined,
    api: ApiName | undefined,
    body: string | Buffer | undefined,
    key: ApiKey | undefined,
    /** The answer; its status only when another component wrote it (Prism). */
    reply: Reply | { status: number },
    /** When it arrived, on the emulator's clock; and performance.now() then, for the duration. */
    receivedAt: number,
    began: number,
  ): void {
    const answer: Partial<Reply> = reply;
    this.parts.journal.record({
      method: req.method ?? 'GET',
      url: req.url ?? '/',
      operationId: operation?.operationId,
      api,
      rawHeaders: req.rawHeaders,
      body,
      clientId: key?.client_id,
      status: reply.status,
      replyJson: answer.file ? undefined : answer.json,
      replyHeaders: answer.file ? { ...answer.headers, 'content-type': answer.file.contentType } : answer.headers,
      receivedAt,
      durationMs: performance.now() - began,
    });
  }

  /** The hand-written handler of the operation; none for those the resource engine (or, in `--mode prism`, Prism) answers. */
  handlerOf(operation: Operation): AnyHandler | undefined {
    return this.handlers.get(operation.operationId);
  }

  /** From now on, every reply closes its connection. */
  closeConnections(): void {
    this.closing = true;
  }

  /**
   * Takes a step of the call and responds with what it returns or throws. No promise unless a handler
   * or the store returns one: the body reader hands a body to the call, which runs the next step, so
   * a publish costs no promise job.
   */
  run(call: Call, step: (call: Call) => Outcome): void {
    let outcome: Outcome;
    try {
      outcome = step(call);
    } catch (error) {
      this.respondWithError(call, error);
      return;
    }
    if (outcome instanceof Promise) {
      outcome.then(
        (reply) => this.respondToCall(call, reply),
        (error: unknown) => this.respondWithError(call, error),
      );
    } else if (outcome !== PENDING) {
      this.respondToCall(call, outcome);
    }
  }

  respondWithError(call: Call, error: unknown): void {
    const { operation } = call;
    // Failures answered on purpose are not bugs worth an error log line.
    if (!(error instanceof EmulatorError)) {
      this.parts.logger.error({ err: error, operationId: operation.operationId }, 'request failed');
    }
    this.respondToCall(call, errorReply(operation.api, asDeclared(operation, error)));
  }

  private respondToCall(call: Call, reply: Reply | undefined | typeof PENDING): void {
    // undefined: the client went away and nothing is to be sent; PENDING: the body is being read, and
    // its continuation responds.
    if (!reply || reply === PENDING) return;
    this.respond(call.req, call.res, call.operation.api, reply);
    if (call.began >= 0) call.journal(reply);
  }

  private respond(req: IncomingMessage, res: ServerResponse, api: SpecName, reply: Reply): void {
    discardUnreadBody(req, res);
    if (this.closing) res.shouldKeepAlive = false;
    this.replies.respond(res, api, reply);
  }

  /** Past the call's own handling (a static file): log, and cut the connection rather than crash. */
  private lastResort(error: unknown, res: ServerResponse): void {
    this.parts.logger.error({ err: error }, 'unhandled request failure');
    res.destroy();
  }

  private logWhenClosed(req: IncomingMessage, res: ServerResponse): void {
    const began = performance.now();
    res.once('close', () => {
      this.parts.logger.debug(
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
}

/** How a call reads a JSON body: a handler's rule, or the spec's for an operation of the resource engine. */
interface BodyRule extends JsonBodyRule {
  /** The body may be left out (the spec's `required: false`): an empty or blank one is none, whatever the headers say. */
  optional?: boolean;
}

/**
 * One request to an operation of the specs; its handler sees it as a HandlerRequest. It is the one
 * reader of request bodies, whoever serves the operation: a hand-written handler, the resource engine
 * or Prism.
 */
class Call implements AnyHandlerRequest, BodyReceiver {
  readonly operation: Operation;
  // Shared placeholders until admit and readJson set them: a publish allocates nothing for them.
  params: Readonly<Record<string, unknown>> = NO_PARAMS;
  private jsonRule: BodyRule = NO_RULE;
  private continuation: (body: never, received: ReceivedBody) => Outcome = NO_CONTINUATION;
  /** The body once read (undefined while not), for the handler and the journal. */
  private body: Buffer | undefined;
  /** The API key whose bearer token admitted the call. */
  key: ApiKey | undefined;
  /** When the call arrived, on the emulator's clock, and performance.now() then; -1 with the journal off. */
  readonly receivedAt: number;
  readonly began: number;

  constructor(
    readonly dispatcher: Dispatcher,
    readonly req: IncomingMessage,
    readonly res: ServerResponse,
    readonly route: RouteMatch,
    readonly target: RequestTarget,
    readonly query: string,
  ) {
    this.operation = route.operation;
    const journaled = dispatcher.parts.journal.enabled;
    this.receivedAt = journaled ? dispatcher.parts.state.clock() : -1;
    this.began = journaled ? performance.now() : -1;
  }

  /** Records the answered call in the journal. */
  journal(reply: Reply | { status: number }): void {
    const { operation, body } = this;
    this.dispatcher.journal(this.req, operation, operation.api, body, this.key, reply, this.receivedAt, this.began);
  }

  get headers() {
    return this.req.headers;
  }

  /**
   * 400 for a wrong Content-Type, charset or Content-Encoding (before anything is read, unless the body
   * may be left out), an empty body, bad JSON or UTF-8 or a schema violation; 413 past the limit.
   */
  readJson(rule: BodyRule, then: (body: never, received: ReceivedBody) => Outcome): Outcome {
    if (!rule.optional) this.checkJsonHeaders();
    this.jsonRule = rule;
    this.continuation = then;
    this.dispatcher.bodies.read(this.req, rule.limit ?? SMALL_BODY_LIMIT, rule.what ?? 'request body', this);
    return PENDING;
  }

  /** 400 unless the headers say the body is JSON, in UTF-8, as sent (no Content-Encoding). */
  private checkJsonHeaders(): void {
    const contentType = this.req.headers['content-type'];
    if (!isJsonContentType(contentType)) {
      throw new InvalidRequest(
        'UNSUPPORTED_CONTENT_TYPE',
        `Content-Type must be application/json, not ${contentType ?? 'absent'}`,
      );
    }
    const unreadable = unreadableJson(contentType as string, this.req.headers['content-encoding']);
    if (unreadable) throw new InvalidRequest('UNSUPPORTED_CONTENT_TYPE', unreadable);
  }

  /** The body as sent, whatever its Content-Type; 400 for a Content-Encoding (before anything is read). */
  async readBytes(limit = SMALL_BODY_LIMIT): Promise<Buffer> {
    const unreadable = unsupportedEncoding(this.req.headers['content-encoding']);
    if (unreadable) throw new InvalidRequest('UNSUPPORTED_CONTENT_TYPE', unreadable);
    this.body = await this.dispatcher.bodies.readAll(this.req, limit, 'request body');
    return this.body;
  }

  received(body: Buffer): void {
    this.body = body;
    this.dispatcher.run(this, continueWithJson);
  }

  refused(error: PayloadTooLarge): void {
    this.dispatcher.respondWithError(this, error);
  }

  onClientGone(listener: () => void): () => void {
    this.res.on('close', listener);
    return () => this.res.off('close', listener);
  }

  continueWithJson(): Outcome {
    const bytes = this.body ?? EMPTY_BODY;
    if (this.jsonRule.optional) {
      const sent = bytes.toString('utf8');
      if (sent.trim() === '') {
        return this.continuation(undefined as never, { text: sent, bytes });
      }
      this.checkJsonHeaders();
    }
    const notText = notUtf8(bytes);
    if (notText) throw new InvalidRequest('INVALID_JSON', notText);
    const text = bytes.toString('utf8');
    const value = parseJson(text);
    this.jsonRule.precheck?.(value);
    this.dispatcher.parts.validators.checkBody(this.operation, value);
    // The value matches the operation's request schema, which its handler's body type was generated from.
    return this.continuation(value as never, { text, bytes });
  }
}

const NO_PARAMS: Readonly<Record<string, unknown>> = Object.freeze({});
const NO_RULE: BodyRule = Object.freeze({});
const NO_CONTINUATION = (): Outcome => undefined;
const EMPTY_BODY = Buffer.alloc(0);

const continueWithJson = (call: Call): Outcome => call.continueWithJson();

/** A body too large for an operation that declares no 413 (consume, token, management) is a bad request. */
function asDeclared(operation: Operation, error: unknown): unknown {
  if (!(error instanceof PayloadTooLarge) || operation.responses['413']) return error;
  return new InvalidRequest('INVALID_REQUEST', error.detail);
}

/** Authenticates the caller, applies the rate limit and faults, checks parameters and rights, and hands the call on. */
function admit(call: Call): Outcome {
  const { operation, req } = call;
  const key = operation.needsBearer
    ? call.dispatcher.parts.state.credentials.authenticateBearer(req.headers.authorization)
    : undefined;
  return key instanceof Promise ? key.then((found) => admitKey(call, found)) : admitKey(call, key);
}

function admitKey(call: Call, key: ApiKey | undefined): Outcome {
  const { dispatcher, operation } = call;
  call.key = key;
  const { state, validators } = dispatcher.parts;
  if (key && operation.api === 'event-streams') state.rateLimiter.count(key.id);
  const fault = state.faults.takeFault(operation.operationId);
  if (fault) throw faultError(operation, fault, state.limits);
  const handler = dispatcher.handlerOf(operation);
  if (!handler) return admitToEngine(call, key);
  const { target } = call;
  target.params ??= validators.checkParams(operation, call.route.params, call.query);
  call.params = target.params;
  // Every event-streams operation has a topic_id, a uint32 by its spec.
  const topicId = operation.api === 'event-streams' ? (call.params.topic_id as number) : undefined;
  // With a shared store, what another emulator just changed may not be here yet: the token operation
  // catches up first (as the management operations of the domain's families do, admitToEngine), an
  // event-streams call only on a topic not known here.
  if (state.catchUp && (topicId === undefined || !state.topics.get(topicId))) {
    return state.catchUp().then(() => authorizeAndHandle(call, handler, key, topicId));
  }
  return authorizeAndHandle(call, handler, key, topicId);
}

function authorizeAndHandle(
  call: Call,
  handler: AnyHandler,
  key: ApiKey | undefined,
  topicId: number | undefined,
): Outcome {
  if (key && handler.scope) call.dispatcher.parts.state.credentials.authorize(key, handler.scope, topicId);
  return handler.handle(call);
}

/**
 * A management operation without a hand-written handler: the engine's (Prism's in `--mode prism`, but
 * for the families whose state the domain keeps). Those families' operations are admitted as the
 * hand-written ones were: caught up with a shared store, then the key's right, then what their family
 * checks before the body.
 */
function admitToEngine(call: Call, key: ApiKey | undefined): Outcome {
  const { dispatcher, operation, target } = call;
  const { engine, prismMode, state, validators } = dispatcher.parts;
  const scope = engine.domainScope(operation.operationId);
  // Checked here for Prism too: its own check refuses a deepObject parameter with minProperties
  // (`by[code]=DE`) that holds a pair, and would answer a refusal with an example, not the spec's shape.
  target.params ??= validators.checkParams(operation, call.route.params, call.query);
  call.params = target.params;
  if (scope === undefined && (prismMode || !engine.handles(operation.operationId))) return toPrism(call);
  if (scope === undefined) return fromEngine(call);
  if (state.catchUp) return state.catchUp().then(() => fromDomainFamily(call, key, scope));
  return fromDomainFamily(call, key, scope);
}

function fromDomainFamily(call: Call, key: ApiKey | undefined, scope: Scope): Outcome {
  const { engine, state } = call.dispatcher.parts;
  if (key) state.credentials.authorize(key, scope);
  const checked = engine.precheck(call.operation.operationId, call.params);
  return checked ? checked.then(() => fromEngine(call)) : fromEngine(call);
}

/** The resource engine's answer to a management operation; its body, if it takes one, is read first. */
function fromEngine(call: Call): Outcome {
  const { requestBody } = call.operation;
  if (!requestBody) return engineAnswer(call, undefined, undefined);
  const takesJson = Object.keys(requestBody.content ?? {}).some((type) => type.startsWith('application/json'));
  if (takesJson) {
    const rule = { optional: requestBody.required !== true };
    return call.readJson(rule, (body: unknown) => engineAnswer(call, body, undefined));
  }
  // A package's zip (the one binary body) may be larger than the JSON bodies.
  return call.readBytes(PACKAGE_LIMITS.zipBytes).then((bytes) => engineAnswer(call, undefined, bytes));
}

async function engineAnswer(call: Call, body: unknown, bytes: Uint8Array | undefined): Promise<Reply> {
  const { dispatcher, operation, params, req } = call;
  const answer = await dispatcher.parts.engine.handle(operation.operationId, {
    params,
    body,
    bytes,
    host: req.headers.host,
  });
  if (answer.file) return { status: answer.status, json: '', file: answer.file };
  return answer.body === undefined ? { status: answer.status, json: '' } : jsonReply(answer.status, answer.body);
}

/**
 * Prism's answer. Parameters and a JSON body are checked first, as for every operation: Prism answers
 * malformed JSON in a shape of its own, and a request its spec refuses with an example, not the spec's
 * ManagementError naming the fields.
 */
async function toPrism(call: Call): Promise<undefined> {
  const { dispatcher, operation, req, res } = call;
  const { prism } = dispatcher.parts;
  if (!operation.requestBody || !isJsonContentType(req.headers['content-type'])) {
    await prism.forward(req, res);
  } else {
    const body = await call.readBytes();
    if (body.length > 0) dispatcher.parts.validators.checkBody(operation, parseJson(body.toString('utf8')));
    await prism.forward(req, res, body);
  }
  // Prism wrote the answer: its status is journaled, not its body.
  if (call.began >= 0) call.journal({ status: res.statusCode });
  return undefined;
}
