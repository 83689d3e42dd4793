// Request validators compiled with ajv from the operations' parameter and request-body schemas.
import { createRequire } from 'node:module';
import { Ajv2020, type ErrorObject, type ValidateFunction } from 'ajv/dist/2020.js';
import { InvalidRequest, type Violation } from '../errors.js';
import type { ApiName, Operation, SchemaObject, Specs } from './bundles.js';
import { isDateTime } from './date-time.js';

const require = createRequire(import.meta.url);
// ajv-formats is CommonJS with a `default` property; createRequire sidesteps the interop typing.
const addFormats = require('ajv-formats') as (ajv: Ajv2020) => Ajv2020;

const UINT32_MAX = 4294967295;

/** An ajv instance that knows the specs' components and the OpenAPI integer formats. */
export function createAjv(specs: Specs, options: { coerceTypes?: boolean } = {}): Ajv2020 {
  // Schemas come from the linted specs, so they are not checked against the meta-schema (faster start).
  const ajv = new Ajv2020({ strict: false, allErrors: true, validateSchema: false, meta: false, ...options });
  addFormats(ajv);
  ajv.addFormat('date-time', { type: 'string', validate: isDateTime });
  ajv.addFormat('uint32', {
    type: 'number',
    validate: (n: number) => Number.isInteger(n) && n >= 0 && n <= UINT32_MAX,
  });
  ajv.addFormat('uint64', { type: 'number', validate: (n: number) => Number.isInteger(n) && n >= 0 });
  ajv.addFormat('int32', { type: 'number', validate: (n: number) => Number.isInteger(n) });
  ajv.addFormat('int64', { type: 'number', validate: (n: number) => Number.isInteger(n) });
  ajv.addFormat('password', true);
  for (const [api, document] of Object.entries(specs.documents)) {
    ajv.addSchema({ $id: schemaBase(api as ApiName), components: document.components ?? {} });
  }
  return ajv;
}

const schemaBase = (api: ApiName) => `urn:platform-api:${api}`;

/** Rewrites the document-local `#/components/...` references so ajv resolves them in `api`'s document. */
export function anchorRefs(api: ApiName, schema: unknown): unknown {
  if (Array.isArray(schema)) return schema.map((item) => anchorRefs(api, item));
  if (schema === null || typeof schema !== 'object') return schema;
  return Object.fromEntries(
    Object.entries(schema).map(([key, value]) => [
      key,
      key === '$ref' && typeof value === 'string' && value.startsWith('#/')
        ? schemaBase(api) + value
        : anchorRefs(api, value),
    ]),
  );
}

interface OperationValidators {
  /** Path and query parameters, coerced from strings in place. */
  params?: ValidateFunction;
  /** The query parameters that are arrays: each repeats the parameter (OpenAPI's default, form style exploded). */
  listParams: readonly string[];
  /** The JSON request body, when the operation takes one. */
  body?: ValidateFunction;
}

/** Checks requests against their operation's schemas; compiles each operation's validators on first use. */
export class RequestValidators {
  private readonly cache = new Map<string, OperationValidators>();

  constructor(
    private readonly paramsAjv: Ajv2020,
    private readonly bodyAjv: Ajv2020,
    /** Adjusts a body schema copy before compiling, e.g. to apply a configured limit. */
    private readonly adjustBodySchema: (operationId: string, schema: SchemaObject) => SchemaObject = (_, s) => s,
  ) {}

  /**
   * Path and query parameters, coerced to their schema types and frozen (requests to the same target
   * share them); InvalidRequest when they do not match.
   */
  checkParams(
    operation: Operation,
    pathParams: Readonly<Record<string, string>>,
    query: string,
  ): Readonly<Record<string, unknown>> {
    const { params: validate, listParams } = this.for(operation);
    const params: Record<string, unknown> = query
      ? { ...queryParams(query, listParams), ...pathParams }
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

  /** InvalidRequest unless the parsed body matches the operation's request-body schema. */
  checkBody(operation: Operation, value: unknown): void {
    const validate = this.for(operation).body;
    if (validate && !validate(value)) {
      const list = violations(validate.errors);
      throw new InvalidRequest('INVALID_REQUEST', describeViolations('Request body', list), { errors: list });
    }
  }

  private for(operation: Operation): OperationValidators {
    let validators = this.cache.get(operation.operationId);
    if (!validators) {
      validators = this.compile(operation);
      this.cache.set(operation.operationId, validators);
    }
    return validators;
  }

  private compile(operation: Operation): OperationValidators {
    const params = operation.parameters.filter((p) => p.in === 'path' || p.in === 'query');
    const bodySchema = jsonBodySchema(operation);
    return {
      listParams: params
        .filter((p) => p.in === 'query' && [p.schema?.type].flat().includes('array'))
        .map((p) => p.name),
      params:
        params.length === 0
          ? undefined
          : this.paramsAjv.compile({
              type: 'object',
              properties: Object.fromEntries(params.map((p) => [p.name, anchorRefs(operation.api, p.schema ?? {})])),
              required: params.filter((p) => p.required).map((p) => p.name),
            }),
      body: bodySchema
        ? this.bodyAjv.compile(
            anchorRefs(operation.api, this.adjustBodySchema(operation.operationId, bodySchema)) as object,
          )
        : undefined,
    };
  }
}

/** The query's parameters: the last value of each, and every value of a list. */
function queryParams(query: string, listParams: readonly string[]): Record<string, unknown> {
  const search = new URLSearchParams(query);
  const params: Record<string, unknown> = Object.fromEntries(search);
  for (const name of listParams) if (search.has(name)) params[name] = search.getAll(name);
  return params;
}

/** The schema of the operation's JSON request body (any `application/json` media type). */
function jsonBodySchema(operation: Operation): SchemaObject | undefined {
  const content = operation.requestBody?.content ?? {};
  const entry = Object.entries(content).find(([mediaType]) => mediaType.startsWith('application/json'));
  return entry?.[1].schema;
}

/** ajv's errors as JSON pointers into the validated value, with a short message each. */
function violations(errors: ErrorObject[] | null | undefined): Violation[] {
  return (errors ?? []).map((error) => {
    const params = error.params as Record<string, string>;
    if (error.keyword === 'required') {
      return { pointer: `${error.instancePath}/${params.missingProperty}`, message: 'is required' };
    }
    if (error.keyword === 'additionalProperties') {
      return { pointer: `${error.instancePath}/${params.additionalProperty}`, message: 'is not allowed' };
    }
    return { pointer: error.instancePath || '/', message: error.message ?? 'is invalid' };
  });
}

function describeViolations(what: string, list: Violation[]): string {
  return `${what} is invalid: ${list.map((v) => `${v.pointer} ${v.message}`).join('; ')}`;
}
