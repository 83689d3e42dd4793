// A request to an engine operation, checked against the spec: path and query parameters (deepObject
// `by[code]=DE` and repeated array parameters included) coerced to their schema types, and the JSON body.
import { InvalidRequest } from '../errors.js';
import { isJsonContentType } from '../http/body.js';
import type { Operation } from '../spec/bundles.js';
import type { RequestValidators } from '../spec/validators.js';
import type { JsonObject } from '../store/resource-store.js';

export interface EngineRequest {
  /** Path parameters as the router decoded them. */
  pathParams: Readonly<Record<string, string>>;
  /** The query string without its `?`. */
  query?: string;
  /** The request body as text, when one was sent. */
  body?: string;
  /** The same body as bytes, for an operation whose body is not JSON (a package's zip file). */
  bytes?: Uint8Array;
  contentType?: string;
  /** The request's Host header, for answers that name a URL of the emulator itself. */
  host?: string;
}

export interface CheckedRequest {
  params: Readonly<JsonObject>;
  body: unknown;
  /** The body's bytes when it is not JSON. */
  bytes?: Uint8Array;
  host?: string;
}

/** The request's parameters and body, checked against the spec (InvalidRequest otherwise). */
export function checkRequest(
  validators: RequestValidators,
  operation: Operation,
  request: EngineRequest,
): CheckedRequest {
  const gathered = { ...queryParams(operation, request.query ?? ''), ...request.pathParams };
  const params = validators.checkParamValues(operation, gathered);
  const body = parseBody(operation, request);
  if (body !== undefined) validators.checkBody(operation, body);
  return { params, body, bytes: body === undefined ? request.bytes : undefined, host: request.host };
}

function queryParams(operation: Operation, query: string): JsonObject {
  const search = new URLSearchParams(query);
  const params: JsonObject = {};
  for (const parameter of operation.parameters) {
    if (parameter.in !== 'query') continue;
    const { name } = parameter;
    if (parameter.style === 'deepObject') {
      const members = [...search].filter(([key]) => key.startsWith(`${name}[`) && key.endsWith(']'));
      if (members.length > 0)
        params[name] = Object.fromEntries(members.map(([key, value]) => [key.slice(name.length + 1, -1), value]));
    } else if (parameter.schema?.type === 'array') {
      const values = search.getAll(name);
      if (values.length > 0) params[name] = parameter.explode === false ? values.flatMap((v) => v.split(',')) : values;
    } else if (search.has(name)) {
      params[name] = search.get(name);
    }
  }
  return params;
}

function parseBody(operation: Operation, request: EngineRequest): unknown {
  const takesJson = Object.keys(operation.requestBody?.content ?? {}).some((type) =>
    type.startsWith('application/json'),
  );
  if (!takesJson) return undefined;
  if (request.body === undefined || request.body.trim() === '') {
    if (operation.requestBody?.required) throw new InvalidRequest('INVALID_REQUEST', 'A JSON request body is required');
    return undefined;
  }
  if (!isJsonContentType(request.contentType)) {
    throw new InvalidRequest(
      'UNSUPPORTED_CONTENT_TYPE',
      `Content-Type must be application/json, not ${request.contentType ?? 'absent'}`,
    );
  }
  try {
    return JSON.parse(request.body);
  } catch (error) {
    throw new InvalidRequest('INVALID_JSON', `The body is not valid JSON: ${(error as Error).message}`, {
      errors: [{ pointer: '/body', message: 'is not valid JSON' }],
    });
  }
}
