// One request through the pipeline, and its steps: admit (bearer token, rate limit, injected fault),
// check the parameters, catch up with a shared store, check the caller's right, precheck, read the body
// as its endpoint's rule says, check and validate it, handle. Each step is a function of the call, not
// a closure made per request, and goes on at once with what is at hand: a promise only where a store,
// a shared store's catch-up or a handler returns one, so a publish costs no promise job.
import type { IncomingHttpHeaders, IncomingMessage, ServerResponse } from 'node:http';
import { faultError } from '../domain/faults.js';
import type { ApiKey } from '../domain/model.js';
import type { PayloadTooLarge } from '../errors.js';
import type { BodyReader, BodyReceiver } from '../http/body.js';
import type { ApiName, Operation, SpecName } from '../spec/bundles.js';
import type { RequestValidators } from '../spec/validators.js';
import type { Tenant } from '../tenants/tenant.js';
import { checkJsonHeaders, checkSentAsIs, jsonText, parseJson } from './body-rules.js';
import { type Answer, type AnyEndpoint, type EndpointRequest, type Exchange, SMALL_BODY_LIMIT } from './endpoint.js';

/** The body is being read; the step that receives it goes on (Call.received). */
export const PENDING = Symbol('pending');

/** What a step returns: the answer, or PENDING, now or later. */
export type Outcome = Answer | typeof PENDING | Promise<Answer | typeof PENDING>;

/** An operation's endpoint and the checks of its API's spec. */
export interface Served {
  endpoint: AnyEndpoint;
  validators: RequestValidators;
}

/** What is kept per request target (see Pipeline.targets). */
export interface RequestTarget {
  /** Path and query parameters, validated and coerced; shared by every request to the target, so frozen. */
  params?: Readonly<Record<string, unknown>>;
}

/** What runs the calls of one server: the body reader, the steps, and the refusals. */
export interface CallRunner {
  readonly bodies: BodyReader;
  run(call: Call, step: (call: Call) => Outcome): void;
  fail(call: Call, error: unknown): void;
  /** The tenant made at run time whose token the header carries, if any (the fleet directory's). */
  tenantOfBearer(authorization: string | undefined): Tenant | undefined;
}

export class Call implements EndpointRequest, BodyReceiver, Exchange {
  // Shared placeholders until the steps set them: a publish allocates nothing for them.
  params: Readonly<Record<string, unknown>> = NO_PARAMS;
  body: unknown;
  bodyText = '';
  /** The body once read (undefined while not), for the endpoint and the journal. */
  bytesRead: Buffer | undefined;
  /** What the endpoint's precheck found. */
  found: unknown;
  /** The API key whose bearer token admitted the call. */
  key: ApiKey | undefined;
  /**
   * The tenant is known once the body is read (the token endpoint's client ID, with several tenants):
   * its fault for the operation is taken then (admitTo), not the first tenant's at admit.
   */
  faultDeferred = false;
  readonly endpoint: AnyEndpoint;

  constructor(
    readonly runner: CallRunner,
    readonly served: Served,
    public tenant: Tenant,
    readonly req: IncomingMessage,
    readonly res: ServerResponse,
    readonly operation: Operation<SpecName>,
    readonly pathParams: Readonly<Record<string, string>>,
    readonly target: RequestTarget,
    readonly query: string,
    /** When the call arrived, on the tenant's clock, and performance.now() then; -1 when it is not journaled. */
    public receivedAt: number,
    readonly began: number,
  ) {
    this.endpoint = served.endpoint;
  }

  get headers(): IncomingHttpHeaders {
    return this.req.headers;
  }

  get bodyBytes(): Buffer {
    return this.bytesRead ?? EMPTY_BODY;
  }

  get exchange(): Exchange {
    return this;
  }

  admitTo(tenant: Tenant): void {
    const moved = tenant !== this.tenant;
    if (!moved && !this.faultDeferred) return;
    this.faultDeferred = false;
    if (moved) this.moveTo(tenant);
    const { operation } = this;
    if (!isPlatform(operation)) return;
    const fault = tenant.domain.faults.takeFault(operation.operationId);
    if (fault) throw faultError(operation, fault, tenant.domain.limits);
  }

  /** The call is the tenant's (found once its credentials or its workspace were looked for again). */
  moveTo(tenant: Tenant): this {
    this.tenant = tenant;
    if (this.receivedAt >= 0) this.receivedAt = tenant.domain.clock();
    return this;
  }

  onClientGone(listener: () => void): () => void {
    this.res.on('close', listener);
    return () => this.res.off('close', listener);
  }

  received(body: Buffer): void {
    this.bytesRead = body;
    this.runner.run(this, bodyRead);
  }

  refused(error: PayloadTooLarge): void {
    this.runner.fail(this, error);
  }
}

const NO_PARAMS: Readonly<Record<string, unknown>> = Object.freeze({});
const EMPTY_BODY = Buffer.alloc(0);

/** An operation of the platform's APIs, not of the emulator's own. */
export const isPlatform = (operation: Operation<SpecName>): operation is Operation<ApiName> =>
  operation.api !== 'emulator';

/**
 * The first step: the bearer token (for the operations that need one), the rate limit (the
 * event-streams API's), a fault injected for the operation; the emulator API has none of these.
 */
export function admit(call: Call): Outcome {
  const { operation, tenant } = call;
  const key = operation.needsBearer
    ? tenant.domain.credentials.authenticateBearer(call.headers.authorization)
    : undefined;
  if (!(key instanceof Promise)) return admitted(call, key);
  return key.then(
    (found) => admitted(call, found),
    (error: unknown) => admitElsewhere(call, error),
  );
}

/**
 * A token looked for again once caught up (a shared store) and still not the tenant's may be a
 * workspace's that another emulator just made or issued it: the fleet directory knows it by then.
 */
function admitElsewhere(call: Call, error: unknown): Outcome {
  const owner = call.runner.tenantOfBearer(call.headers.authorization);
  if (!owner || owner === call.tenant) throw error;
  return admit(call.moveTo(owner));
}

function admitted(call: Call, key: ApiKey | undefined): Outcome {
  const { operation } = call;
  const { domain } = call.tenant;
  call.key = key;
  if (key && operation.api === 'event-streams') domain.rateLimiter.count(key.id);
  if (isPlatform(operation) && !call.faultDeferred) {
    const fault = domain.faults.takeFault(operation.operationId);
    if (fault) throw faultError(operation, fault, domain.limits);
  }
  call.target.params ??= call.served.validators.checkParams(operation, call.pathParams, call.query);
  call.params = call.target.params;
  // With a shared store, what another emulator just changed may not be here yet.
  if (domain.catchUp && mustCatchUp(call)) return domain.catchUp().then(() => authorized(call));
  return authorized(call);
}

function mustCatchUp({ endpoint, params, tenant }: Call): boolean {
  if (endpoint.catchUp === 'unknown-topic' && endpoint.topicOf) {
    return !tenant.domain.topics.get(endpoint.topicOf(params));
  }
  return endpoint.catchUp === 'always';
}

/** The caller's right, then what the endpoint checks before the body is read. */
function authorized(call: Call): Outcome {
  const { endpoint, key } = call;
  if (key && endpoint.scope) {
    call.tenant.domain.credentials.authorize(key, endpoint.scope, endpoint.topicOf?.(call.params));
  }
  if (!endpoint.precheck) return readBody(call);
  const found = endpoint.precheck(call);
  return found instanceof Promise ? found.then((value) => prechecked(call, value)) : prechecked(call, found);
}

function prechecked(call: Call, found: unknown): Outcome {
  call.found = found;
  return readBody(call);
}

/** Checks the headers the body rule needs before anything is read, then has the body read (bodyRead goes on). */
function readBody(call: Call): Outcome {
  const rule = call.endpoint.body;
  if (rule.kind === 'none') return handle(call);
  // An optional JSON body's headers are checked once it is known not to be left out.
  if (rule.kind === 'json') {
    if (!rule.optional) checkJsonHeaders(call.headers);
  } else {
    checkSentAsIs(call.headers);
  }
  const limit = typeof rule.limit === 'function' ? rule.limit(call.tenant) : (rule.limit ?? SMALL_BODY_LIMIT);
  call.runner.bodies.read(call.req, limit, rule.what ?? 'request body', call);
  return PENDING;
}

/** The body as its rule reads it: a JSON body in UTF-8, parsed, checked and valid against the operation's schema. */
function bodyRead(call: Call): Outcome {
  const rule = call.endpoint.body;
  const bytes = call.bodyBytes;
  if (rule.kind === 'bytes') {
    call.body = bytes;
    return handle(call);
  }
  if (rule.kind !== 'json') {
    call.bodyText = bytes.toString('utf8');
    call.body = call.bodyText;
    return handle(call);
  }
  if (rule.optional) {
    const sent = bytes.toString('utf8');
    if (sent.trim() === '') {
      call.bodyText = sent;
      return handle(call);
    }
    checkJsonHeaders(call.headers);
  }
  const text = jsonText(bytes);
  const value = parseJson(text);
  rule.beforeSchema?.(value, call.tenant, text);
  call.served.validators.checkBody(call.operation, value);
  call.bodyText = text;
  call.body = value;
  return handle(call);
}

function handle(call: Call): Outcome {
  return call.endpoint.handle(call, call.found);
}
