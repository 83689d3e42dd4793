// The endpoints of the management operations, one per operation of the spec, made from it at start:
// the resource engine's (every operation the spec annotates with `x-resource`), or Prism's in
// `--mode prism` and for an operation the engine does not serve. The families whose state the domain
// keeps (topics, API clients and keys) are the engine's in every mode; their endpoints declare their
// right, a catch-up with a shared store, and their family's checks before the body.
import { PACKAGE_LIMITS } from '../engine/custom/packages.js';
import type { ResourceEngine } from '../engine/engine.js';
import type { PrismBackend } from '../http/prism.js';
import { jsonReply, type Reply } from '../http/replies.js';
import type { Operation } from '../spec/bundles.js';
import { isJsonContentType, parseJson } from './body-rules.js';
import { type Answer, type AnyEndpoint, type BodyRule, type EndpointRequest, NO_BODY, NO_REPLY } from './endpoint.js';

export interface ManagementBackends {
  /** An engine of the spec: which operations it serves, with which right and checks (every tenant's serves the same). */
  engine: ResourceEngine;
  prism: PrismBackend;
  /** `--mode prism`: Prism answers the engine's operations but those of the families whose state the domain keeps. */
  prismMode: boolean;
}

export function managementEndpoints(operations: readonly Operation[], backends: ManagementBackends): AnyEndpoint[] {
  const { engine, prism, prismMode } = backends;
  return operations
    .filter((operation) => operation.api === 'management')
    .map((operation): AnyEndpoint => {
      const scope = engine.domainScope(operation.operationId);
      if (scope === undefined && (prismMode || !engine.handles(operation.operationId))) {
        return prismEndpoint(operation, prism);
      }
      const served = engineEndpoint(operation);
      if (scope === undefined) return served;
      return {
        ...served,
        scope,
        catchUp: 'always',
        precheck: ({ tenant, params }) => tenant.engine.precheck(operation.operationId, params),
      };
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
    const body: BodyRule = { kind: 'json', optional: requestBody.required !== true };
    return { operationId, body, handle: (request) => answer(request, request.body, undefined) };
  }
  // A package's zip (the one binary body) may be larger than the JSON bodies.
  const body: BodyRule = { kind: 'bytes', limit: PACKAGE_LIMITS.zipBytes };
  return { operationId, body, handle: (request) => answer(request, undefined, request.bodyBytes) };
}

/**
 * Prism's answer, which Prism writes. Its parameters and body go to Prism unchecked, as it refuses them
 * in answers of its own; but a JSON body is read and parsed first: Prism answers malformed JSON in a
 * shape of its own, not the spec's ManagementError.
 */
function prismEndpoint(operation: Operation, prism: PrismBackend): AnyEndpoint {
  const { operationId } = operation;
  if (!takesJson(operation)) {
    return {
      operationId,
      uncheckedParams: true,
      body: NO_BODY,
      async handle({ exchange }): Promise<Answer> {
        await prism.forward(exchange.req, exchange.res);
        return NO_REPLY;
      },
    };
  }
  return {
    operationId,
    uncheckedParams: true,
    body: { kind: 'bytes' },
    async handle({ exchange, headers, bodyBytes }): Promise<Answer> {
      if (isJsonContentType(headers['content-type']) && bodyBytes.length > 0) parseJson(bodyBytes.toString('utf8'));
      await prism.forward(exchange.req, exchange.res, bodyBytes);
      return NO_REPLY;
    },
  };
}

function takesJson(operation: Operation): boolean {
  return Object.keys(operation.requestBody?.content ?? {}).some((type) => type.startsWith('application/json'));
}
