// The one path of every request of the four APIs (the event-streams API, the token endpoint, the
// management API and the emulator API, /_emulator/*): route it (the router, remembered per request
// target), run its call (call.ts: admit, check, precheck, read the body, handle, as its endpoint
// declares), map a refusal to its API's error shape (errors.ts), and respond (held replies, see
// http/replies.ts), handing an answered request of the platform's APIs to the tenant's journal. What
// no operation answers is served here too: the docs and the console, the home page, a 405, a 404.
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { ApiKey } from '../domain/model.js';
import {
  EmulatorError,
  errorReply,
  MethodNotAllowed,
  NotFound,
  StoreUnavailable,
  WorkspaceGone,
  WorkspacesGone,
} from '../errors.js';
import { BodyReader, discardUnreadBody } from '../http/body.js';
import { BoundedMemo } from '../http/memo.js';
import { HeldReplies, type Reply } from '../http/replies.js';
import type { RouteResult, Router } from '../http/router.js';
import { isUnder, type StaticSite, serveRoot, serveStatic } from '../http/static-files.js';
import type { Logger } from '../logger.js';
import type { ApiName, Operation, SpecName } from '../spec/bundles.js';
import type { RequestValidators } from '../spec/validators.js';
import type { Tenants } from '../tenants/registry.js';
import type { Tenant } from '../tenants/tenant.js';
import { asDeclared } from './body-rules.js';
import {
  admit,
  Call,
  type CallRunner,
  isPlatform,
  type Outcome,
  PENDING,
  type RequestTarget,
  type Served,
} from './call.js';
import { type Answer, type AnyEndpoint, NO_REPLY } from './endpoint.js';

/** The routes of an API (or of several: the platform's three share one) and the checks of its spec. */
export interface RoutedApi<Api extends SpecName> {
  router: Router<Api>;
  operations: readonly Operation<Api>[];
  validators: RequestValidators;
}

export interface PipelineParts {
  /** The tenants a request is admitted to: the default one, and the workspaces' made at run time. */
  tenants: Tenants;
  platform: RoutedApi<ApiName>;
  emulator: RoutedApi<'emulator'>;
  /** One per operation of both: hand-written, the resource engine's or Prism's. */
  endpoints: readonly AnyEndpoint[];
  /** The rendered docs (/docs/) and the web console (/_emulator/console/). */
  sites: StaticSite[];
  logger: Logger;
  /** Commits the changes of a turn; its held replies are written once the result settles (see HeldReplies). */
  commit: () => Promise<void> | undefined;
}

/** What a request target resolves to, per method. */
interface Target extends RequestTarget {
  route: RouteResult;
  /** Looked up only for a path of no platform operation. */
  emulatorRoute?: RouteResult<'emulator'>;
}

/** Runs the requests of one server; what it holds (queued body reads, held replies, the memo) is its own. */
export class Pipeline implements CallRunner {
  readonly bodies = new BodyReader();
  private readonly replies: HeldReplies<Tenant>;
  private readonly served = new Map<string, Served>();
  /**
   * What each request target resolves to per method, kept because load tests repeat a few URLs: its
   * route and, once they pass validation, its parameters (a refused target is validated again each
   * time). Keyed by the URL as received, then the method: a key joining the two would cost every
   * request more (BENCHMARKS.md), since the joined string must be copied before it can be hashed.
   */
  private readonly targets = new BoundedMemo<Map<string, Target>>();
  private readonly logRequests: boolean;
  /** While shutting down, each reply also ends its keep-alive connection. */
  private closing = false;

  constructor(private readonly parts: PipelineParts) {
    // A shared store out of reach (StoreUnavailable) is answered: the emulator goes on, and recovers with it.
    // A workspace deleted by another emulator refuses its own requests; the others' changes are committed.
    this.replies = new HeldReplies<Tenant>(parts.commit, ({ api, reply, owner }, error) => {
      if (error instanceof StoreUnavailable) return errorReply(api, error);
      if (!(error instanceof WorkspacesGone)) return undefined;
      const { workspaceId } = owner.identity;
      return error.workspaceIds.has(workspaceId) ? errorReply(api, new WorkspaceGone(workspaceId)) : reply;
    });
    this.logRequests = parts.logger.isLevelEnabled('debug');
    const endpoints = new Map(parts.endpoints.map((endpoint) => [endpoint.operationId, endpoint]));
    for (const { operations, validators } of [parts.platform, parts.emulator]) {
      for (const { operationId } of operations) {
        const endpoint = endpoints.get(operationId);
        if (!endpoint) throw new Error(`No endpoint for ${operationId}`);
        this.served.set(operationId, { endpoint, validators });
        endpoints.delete(operationId);
      }
    }
    if (endpoints.size > 0) throw new Error(`The specs have no operations ${[...endpoints.keys()].join(', ')}`);
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
      target = { route: this.parts.platform.router.route(method, pathname) };
      targetByMethod.set(method, target);
    }
    const { route } = target;
    if (route && 'operation' in route) {
      this.start(req, res, route.operation, route.params, target, queryAt < 0 ? '' : url.slice(queryAt + 1));
      return;
    }
    if (route) {
      this.answerOutsideOperations(req, res, route.api, new MethodNotAllowed(method, route.allowed));
      return;
    }
    const site = this.parts.sites.find((candidate) => isUnder(candidate, pathname));
    if (site) {
      serveStatic(site, pathname, res, req).catch((error: unknown) => this.lastResort(error, res));
      return;
    }
    if ((method === 'GET' || method === 'HEAD') && serveRoot(pathname, res, req)) return;
    target.emulatorRoute ??= this.parts.emulator.router.route(method, pathname);
    const control = target.emulatorRoute;
    if (control && 'operation' in control) {
      this.start(req, res, control.operation, control.params, target, queryAt < 0 ? '' : url.slice(queryAt + 1));
    } else if (control) {
      const reply = errorReply('emulator', new MethodNotAllowed(method, control.allowed));
      this.respond(req, res, 'emulator', reply, this.parts.tenants.defaultTenant);
    } else {
      this.answerOutsideOperations(req, res, undefined, new NotFound(`No operation at ${pathname}`));
    }
  };

  /** From now on, every reply closes its connection. */
  closeConnections(): void {
    this.closing = true;
  }

  /**
   * Takes a step of the call and responds with what it returns or throws. No promise unless a step
   * returns one: the body reader hands a body to the call, which runs the next step.
   */
  run(call: Call, step: (call: Call) => Outcome): void {
    let outcome: Outcome;
    try {
      outcome = step(call);
    } catch (error) {
      this.fail(call, error);
      return;
    }
    if (outcome instanceof Promise) {
      outcome.then(
        (answer) => this.finish(call, answer),
        (error: unknown) => this.fail(call, error),
      );
    } else {
      this.finish(call, outcome);
    }
  }

  /** The one error mapping: a refusal in its API's shape and the status its operation declares; anything else a 500. */
  fail(call: Call, error: unknown): void {
    const { operation } = call;
    // Failures answered on purpose are not bugs worth an error log line.
    if (!(error instanceof EmulatorError)) {
      this.parts.logger.error({ err: error, operationId: operation.operationId }, 'request failed');
    }
    this.finish(call, errorReply(operation.api, asDeclared(operation, error)));
  }

  private start(
    req: IncomingMessage,
    res: ServerResponse,
    operation: Operation<SpecName>,
    pathParams: Readonly<Record<string, string>>,
    target: Target,
    query: string,
  ): void {
    // Every operation the routers hold has its endpoint (checked when the pipeline was made).
    const served = this.served.get(operation.operationId) as Served;
    // The one place a request's tenant is resolved; with the default tenant alone, the platform's
    // requests are its own without a look (the emulator API's name theirs in the query).
    const { tenants } = this.parts;
    let tenant = tenants.defaultTenant;
    let refusal: unknown;
    let later: Promise<Tenant> | undefined;
    if (!tenants.single || operation.api === 'emulator') {
      try {
        const resolved = tenants.resolve(operation, req.headers, query);
        if (resolved instanceof Promise) later = resolved;
        else tenant = resolved;
      } catch (error) {
        refusal = error;
      }
    }
    // The emulator API's requests are not the platform's: the journal does not keep them.
    const journaled = operation.api !== 'emulator' && tenant.journal.enabled;
    const receivedAt = journaled ? tenant.domain.clock() : -1;
    const began = journaled ? performance.now() : -1;
    const call = new Call(this, served, tenant, req, res, operation, pathParams, target, query, receivedAt, began);
    // The token endpoint's tenant is the one of the client ID it is sent, which may be in its body.
    if (!tenants.single && operation.api === 'auth') call.faultDeferred = true;
    if (refusal !== undefined) this.fail(call, refusal);
    else if (later) this.run(call, () => later.then((found) => admit(call.moveTo(found))));
    else this.run(call, admit);
  }

  tenantOfBearer(authorization: string | undefined): Tenant | undefined {
    return this.parts.tenants.tenantOfBearer(authorization);
  }

  private finish(call: Call, answer: Answer | typeof PENDING): void {
    // PENDING: the body is being read, and the call goes on once it is.
    if (answer === PENDING) return;
    const journaled = call.began >= 0;
    if (answer === NO_REPLY) {
      // The endpoint answered itself (Prism): its status is journaled, not its body. Or the client left.
      if (journaled && call.res.headersSent) this.journalCall(call, { status: call.res.statusCode });
      return;
    }
    this.respond(call.req, call.res, call.operation.api, answer, call.tenant);
    if (journaled) this.journalCall(call, answer);
  }

  private journalCall(call: Call, reply: Reply | { status: number }): void {
    const { req, operation, bytesRead, key, receivedAt, began, tenant } = call;
    if (isPlatform(operation)) this.journal(tenant, req, operation, bytesRead, key, reply, receivedAt, began);
  }

  /** A request no operation answers (a method a path does not have, an unknown path): answered and journaled. */
  private answerOutsideOperations(
    req: IncomingMessage,
    res: ServerResponse,
    api: ApiName | undefined,
    refusal: EmulatorError,
  ): void {
    // The default tenant's: no operation, so no credentials the request is known by.
    const tenant = this.parts.tenants.defaultTenant;
    const { journal, domain } = tenant;
    const receivedAt = journal.enabled ? domain.clock() : 0;
    const began = performance.now();
    // An answer outside any API (an unknown path) is in the event-streams shape.
    const reply = errorReply(api ?? 'event-streams', refusal);
    this.respond(req, res, api ?? 'event-streams', reply, tenant);
    if (journal.enabled) this.journal(tenant, req, undefined, undefined, undefined, reply, receivedAt, began, api);
  }

  /** Hands an answered request to the journal: references to what is at hand, nothing parsed. */
  private journal(
    tenant: Tenant,
    req: IncomingMessage,
    operation: Operation | undefined,
    body: Buffer | undefined,
    key: ApiKey | undefined,
    /** The answer; its status only when another component wrote it (Prism). */
    reply: Reply | { status: number },
    /** When it arrived, on the tenant's clock; and performance.now() then, for the duration. */
    receivedAt: number,
    began: number,
    api = operation?.api,
  ): void {
    const answer: Partial<Reply> = reply;
    tenant.journal.record({
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

  private respond(req: IncomingMessage, res: ServerResponse, api: SpecName, reply: Reply, owner: Tenant): void {
    discardUnreadBody(req, res);
    if (this.closing) res.shouldKeepAlive = false;
    this.replies.respond(res, api, reply, owner);
  }

  /** Past the request's own handling (a static file): log, and cut the connection rather than crash. */
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
