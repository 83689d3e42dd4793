// The endpoints of the management operations, one per operation of the spec, made from it at start:
// the resource engine's (every operation the spec annotates with `x-resource`), or Prism's in
// `--mode prism` and for an operation the engine does not serve. The families whose state the domain
// keeps (topics, API clients and keys) are the engine's in every mode; their endpoints declare their
// right, a catch-up with a shared store, and their family's checks before the body.
import { PACKAGE_LIMITS } from '../engine/custom/packages.js';
import type { ResourceEngine } from '../engine/engine.js';
import { InvalidRequest } from '../errors.js';
import type { PrismBackend } from '../http/prism.js';
import { jsonReply, type Reply } from '../http/replies.js';
import type { Operation } from '../spec/bundles.js';
import { mayHoldOutOfRangeNumber, outOfRangeNumberPointer } from '../spec/json-numbers.js';
import type { RequestValidators } from '../spec/validators.js';
import type { Tenant } from '../tenants/tenant.js';
import { isJsonContentType, parseJson } from './body-rules.js';
import { type Answer, type AnyEndpoint, type BodyRule, type EndpointRequest, NO_BODY, NO_REPLY } from './endpoint.js';

export interface ManagementBackends {
  /** An engine of the spec: which operations it serves, with which right and checks (every tenant's serves the same). */
  engine: ResourceEngine;
  prism: PrismBackend;
  /** `--mode prism`: Prism answers the engine's operations but those of the families whose state the domain keeps. */
  prismMode: boolean;
}

export function managementEndpoints(
  operations: readonly Operation[],
  backends: ManagementBackends,
  validators: RequestValidators,
): AnyEndpoint[] {
  return operations
    .filter((operation) => operation.api === 'management')
    .map((operation) =>
      madeOnFirstUse(operation.operationId, () => managementEndpoint(operation, backends, validators)),
    );
}

function managementEndpoint(
  operation: Operation,
  { engine, prism, prismMode }: ManagementBackends,
  validators: RequestValidators,
): AnyEndpoint {
  const scope = engine.domainScope(operation.operationId);
  if (scope === undefined && (prismMode || !engine.handles(operation.operationId))) {
    return prismEndpoint(operation, prism, validators);
  }
  const served = engineEndpoint(operation);
  if (scope === undefined) return served;
  return {
    ...served,
    scope,
    catchUp: 'always',
    precheck: ({ tenant, params }) => tenant.engine.precheck(operation.operationId, params),
  };
}

/**
 * An endpoint made when its operation is first called: which one it is (the engine's or Prism's, with
 * which right) is the engine's to say, and the engine is made on first use (server.ts).
 */
function madeOnFirstUse(operationId: string, make: () => AnyEndpoint): AnyEndpoint {
  let made: AnyEndpoint | undefined;
  const endpoint = () => {
    made ??= make();
    return made;
  };
  return {
    operationId,
    get scope() {
      return endpoint().scope;
    },
    get catchUp() {
      return endpoint().catchUp;
    },
    get body() {
      return endpoint().body;
    },
    get precheck() {
      return endpoint().precheck;
    },
    handle: (request, found) => endpoint().handle(request, found),
  };
}

/**
 * A number JSON.parse read as ±Infinity (`1e400`) would be stored, and answered, as null: the request is
 * refused before anything changes, naming the field, as a publish refuses it (NUMBER_OUT_OF_RANGE).
 */
function numbersInRange(value: unknown, _tenant: Tenant, text: string): void {
  // The text rules most bodies out without a walk of their value, as a publish's does.
  if (!mayHoldOutOfRangeNumber(text)) return;
  const pointer = outOfRangeNumberPointer(value);
  if (pointer === undefined) return;
  const message = 'is a number past the range of a double; send it as a string';
  throw new InvalidRequest('NUMBER_OUT_OF_RANGE', `Request body ${pointer} ${message}`, {
    errors: [{ pointer, message }],
  });
}

/** The engine's answer; its body read as the spec declares it: none, JSON, or a package's zip. */
function engineEndpoint(operation: Operation): AnyEndpoint {
  const { operationId, requestBody } = operation;
  const answer = async (request: EndpointRequest, body: unknown, bytes: Uint8Array | undefined): Promise<Reply> => {
    const { params, headers, tenant } = request;
    const answered = await tenant.engine.handle(operationId, { params, body, bytes, host: headers.host });
    if (answered.file) return { status: answered.status, json: '', file: answered.file };
    return answered.body === undefined
      ? { status: answered.status, json: '' }
      : jsonReply(answered.status, answered.body);
  };
  if (!requestBody) return { operationId, body: NO_BODY, handle: (request) => answer(request, undefined, undefined) };
  if (takesJson(operation)) {
    const body: BodyRule = { kind: 'json', optional: requestBody.required !== true, beforeSchema: numbersInRange };
    return { operationId, body, handle: (request) => answer(request, request.body, undefined) };
  }
  // A package's zip (the one binary body) may be larger than the JSON bodies.
  const body: BodyRule = { kind: 'bytes', limit: PACKAGE_LIMITS.zipBytes };
  return { operationId, body, handle: (request) => answer(request, undefined, request.bodyBytes) };
}

/**
 * Prism's answer, which Prism writes. Parameters and a JSON body are checked first, as for every
 * operation: Prism answers malformed JSON in a shape of its own, and a request its spec refuses with an
 * example, not the spec's ManagementError naming the fields.
 */
function prismEndpoint(operation: Operation, prism: PrismBackend, validators: RequestValidators): AnyEndpoint {
  const { operationId } = operation;
  if (!takesJson(operation)) {
    return {
      operationId,
      body: NO_BODY,
      async handle({ exchange }): Promise<Answer> {
        await prism.forward(exchange.req, exchange.res);
        return NO_REPLY;
      },
    };
  }
  return {
    operationId,
    body: { kind: 'bytes' },
    async handle({ exchange, headers, bodyBytes }): Promise<Answer> {
      if (isJsonContentType(headers['content-type']) && bodyBytes.length > 0) {
        validators.checkBody(operation, parseJson(bodyBytes.toString('utf8')));
      }
      await prism.forward(exchange.req, exchange.res, bodyBytes);
      return NO_REPLY;
    },
  };
}

function takesJson(operation: Operation): boolean {
  return Object.keys(operation.requestBody?.content ?? {}).some((type) => type.startsWith('application/json'));
}
