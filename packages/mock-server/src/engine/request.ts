// A request to an engine operation, checked against the spec: path and query parameters (deepObject
// `by[code]=DE` and repeated array parameters included) coerced to their schema types, and the JSON body.
import type { JsonObject, Operation } from '../spec.js';
import { type RequestValidators, violations } from '../validation.js';
import { EngineRefusal, invalidRequest } from './errors.js';

export interface EngineRequest {
  /** Path parameters as the router decoded them. */
  pathParams: Readonly<Record<string, string>>;
  /** The query string without its `?`. */
  query?: string;
  /** The request body as text, when one was sent. */
  body?: string;
  contentType?: string;
}

export interface CheckedRequest {
  params: JsonObject;
  body: unknown;
}

export function checkRequest(
  validators: RequestValidators,
  operation: Operation,
  request: EngineRequest,
): CheckedRequest {
  const checks = validators.for(operation);
  const params: JsonObject = { ...queryParams(operation, request.query ?? ''), ...request.pathParams };
  if (checks.params && !checks.params(params)) throw invalidRequest('Parameters', violations(checks.params.errors));
  const body = parseBody(operation, request);
  if (body !== undefined && checks.body && !checks.body(body)) {
    throw invalidRequest('Request body', violations(checks.body.errors));
  }
  return { params, body };
}

function queryParams(operation: Operation, query: string): JsonObject {
  const search = new URLSearchParams(query);
  const params: JsonObject = {};
  for (const parameter of operation.parameters) {
    if (parameter.in !== 'query') continue;
    const name: string = parameter.name;
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
    if (operation.requestBody?.required) throw new EngineRefusal(400, 'A JSON request body is required');
    return undefined;
  }
  const mediaType = request.contentType?.split(';', 1)[0]?.trim().toLowerCase();
  if (mediaType !== 'application/json') {
    throw new EngineRefusal(400, `Content-Type must be application/json, not ${request.contentType ?? 'absent'}`);
  }
  try {
    return JSON.parse(request.body);
  } catch (error) {
    throw new EngineRefusal(400, `The body is not valid JSON: ${(error as Error).message}`, {
      body: ['is not valid JSON'],
    });
  }
}
