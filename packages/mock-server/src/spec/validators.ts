// Request validators from the operations' parameter and request-body schemas (spec/checks.ts compiles them).
import type { ErrorObject, ValidateFunction } from 'ajv/dist/2020.js';
import { InvalidRequest, type Violation } from '../errors.js';
import type { Operation, SchemaObject, SpecName } from './bundles.js';
import { anchorRefs, type SchemaChecks } from './checks.js';

interface OperationValidators {
  /** Path and query parameters, coerced from strings in place. */
  params?: ValidateFunction;
  /** The operation's query parameters, each with how the query string carries it. */
  queryParams: readonly QueryParam[];
  /** The parameters whose values are integers or numbers (or lists of them), checked as text before ajv coerces them. */
  numericParams: readonly NumericParam[];
  /** The JSON request body's schema, when the operation takes one; compiled on the first body checked. */
  bodySchema?: SchemaObject;
  body?: ValidateFunction;
}

/** Checks requests against their operation's schemas; compiles each operation's validators on first use. */
export class RequestValidators {
  private readonly cache = new Map<string, OperationValidators>();

  constructor(
    /** Coercing: parameters arrive as text. */
    readonly paramChecks: SchemaChecks,
    readonly bodyChecks: SchemaChecks,
    /** Adjusts a body schema copy before compiling, e.g. to apply a configured limit. */
    private readonly adjustBodySchema: (operationId: string, schema: SchemaObject) => SchemaObject = (_, s) => s,
  ) {}

  /**
   * Path and query parameters, read by their style (a `deepObject` as an object, an array from its
   * repeated or comma-separated values), coerced to their schema types and frozen (requests to the
   * same target share them); InvalidRequest when they do not match.
   */
  checkParams(
    operation: Operation<SpecName>,
    pathParams: Readonly<Record<string, string>>,
    query: string,
  ): Readonly<Record<string, unknown>> {
    const { params: validate, numericParams, queryParams } = this.for(operation);
    const params: Record<string, unknown> = query
      ? { ...readQuery(query, queryParams), ...pathParams }
      : { ...pathParams };
    const topicId = params.topic_id;
    let list = numericViolations(numericParams, params);
    if (list.length === 0 && validate && !validate(params)) list = violations(validate.errors);
    if (list.length > 0) {
      if (list.some((v) => v.pointer.startsWith('/topic_id'))) {
        throw new InvalidRequest('INVALID_TOPIC_ID', `topic_id must be an unsigned 32-bit integer, not '${topicId}'`);
      }
      throw new InvalidRequest('INVALID_REQUEST', describeViolations('Parameters', list), { errors: list });
    }
    return Object.freeze(params);
  }

  /** InvalidRequest unless the parsed body matches the operation's request-body schema. */
  checkBody(operation: Operation<SpecName>, value: unknown): void {
    const validators = this.for(operation);
    if (!validators.bodySchema) return;
    validators.body ??= this.bodyChecks.compile(operation.api, this.anchoredBody(operation, validators.bodySchema));
    const validate = validators.body;
    if (!validate(value)) {
      const list = violations(validate.errors);
      throw new InvalidRequest('INVALID_REQUEST', describeViolations('Request body', list), { errors: list });
    }
  }

  private for(operation: Operation<SpecName>): OperationValidators {
    let validators = this.cache.get(operation.operationId);
    if (!validators) {
      validators = this.compile(operation);
      this.cache.set(operation.operationId, validators);
    }
    return validators;
  }

  /** The schema its parameter check is compiled from: its path and query parameters as one object. */
  paramsSchema(operation: Operation<SpecName>): object | undefined {
    const params = operation.parameters.filter((p) => p.in === 'path' || p.in === 'query');
    if (params.length === 0) return undefined;
    return {
      type: 'object',
      properties: Object.fromEntries(params.map((p) => [p.name, anchorRefs(operation.api, p.schema ?? {})])),
      required: params.filter((p) => p.required).map((p) => p.name),
    };
  }

  /** The schema its body check is compiled from: its JSON body's, adjusted. */
  bodySchema(operation: Operation<SpecName>): object | undefined {
    const schema = jsonBodySchema(operation);
    return schema && this.anchoredBody(operation, schema);
  }

  private anchoredBody(operation: Operation<SpecName>, schema: SchemaObject): object {
    return anchorRefs(operation.api, this.adjustBodySchema(operation.operationId, schema)) as object;
  }

  private compile(operation: Operation<SpecName>): OperationValidators {
    const params = operation.parameters.filter((p) => p.in === 'path' || p.in === 'query');
    const paramsSchema = this.paramsSchema(operation);
    return {
      queryParams: params.flatMap((p): QueryParam[] => {
        if (p.in !== 'query') return [];
        if (p.style === 'deepObject') return [{ name: p.name, style: 'object' }];
        if (![p.schema?.type].flat().includes('array')) return [{ name: p.name, style: 'value' }];
        return [{ name: p.name, style: p.explode === false ? 'commas' : 'repeated' }];
      }),
      numericParams: params.flatMap((p) => {
        const list = [p.schema?.type].flat().includes('array');
        const kind = numericKind(list ? (p.schema?.items as SchemaObject | undefined) : p.schema);
        return kind ? [{ name: p.name, kind, list }] : [];
      }),
      params: paramsSchema && this.paramChecks.compile(operation.api, paramsSchema),
      bodySchema: jsonBodySchema(operation),
    };
  }
}

interface NumericParam {
  name: string;
  kind: 'integer' | 'number';
  list: boolean;
}

function numericKind(schema: SchemaObject | undefined): NumericParam['kind'] | undefined {
  const types = [schema?.type].flat();
  if (types.includes('integer')) return 'integer';
  return types.includes('number') ? 'number' : undefined;
}

/** A decimal integer, and a JSON number: the text an integer or number parameter may have. */
const INTEGER_TEXT = /^-?\d+$/;
const NUMBER_TEXT = /^-?\d+(\.\d+)?([eE][+-]?\d+)?$/;

/**
 * ajv's coercion reads a parameter as JavaScript's Number() does: `0x2`, ` 2`, `2.0`, `2e0` are the
 * id 2, `1e400` is Infinity, `9007199254740993` is 9007199254740992. Such values are refused here, so
 * a request never names another resource than it wrote.
 */
function numericViolations(numeric: readonly NumericParam[], params: Record<string, unknown>): Violation[] {
  const list: Violation[] = [];
  for (const { name, kind, list: isList } of numeric) {
    const value = params[name];
    const values = Array.isArray(value) ? value : [value];
    values.forEach((text, index) => {
      if (typeof text !== 'string') return;
      const pointer = isList ? `/${name}/${index}` : `/${name}`;
      if (kind === 'integer' && !INTEGER_TEXT.test(text)) list.push({ pointer, message: 'must be a decimal integer' });
      else if (kind === 'integer' && !Number.isSafeInteger(Number(text))) {
        list.push({ pointer, message: `must be an integer of at most ${Number.MAX_SAFE_INTEGER} in magnitude` });
      } else if (kind === 'number' && !(NUMBER_TEXT.test(text) && Number.isFinite(Number(text)))) {
        list.push({ pointer, message: 'must be a decimal number' });
      }
    });
  }
  return list;
}

/** A query parameter of an operation, and how the query string carries it (OpenAPI's `style` and `explode`). */
interface QueryParam {
  name: string;
  /**
   * `value`: one value (the first, when it is repeated); `repeated`: an array as `a=1&a=2` (form style,
   * exploded: OpenAPI's default); `commas`: an array as `a=1,2` (`explode: false`); `object`: a
   * `deepObject`, `by[code]=DE`.
   */
  style: 'value' | 'repeated' | 'commas' | 'object';
}

/** The operation's parameters in the query, by their style; others in it are ignored. */
function readQuery(query: string, queryParams: readonly QueryParam[]): Record<string, unknown> {
  const search = new URLSearchParams(query);
  const params: Record<string, unknown> = {};
  for (const { name, style } of queryParams) {
    if (style === 'object') {
      const members = [...search].filter(([key]) => key.startsWith(`${name}[`) && key.endsWith(']'));
      if (members.length > 0)
        params[name] = Object.fromEntries(members.map(([key, value]) => [key.slice(name.length + 1, -1), value]));
      continue;
    }
    // Left out, its schema's `required` decides.
    if (!search.has(name)) continue;
    const values = search.getAll(name);
    if (style === 'value') params[name] = values[0];
    else params[name] = style === 'commas' ? values.flatMap((value) => value.split(',')) : values;
  }
  return params;
}

/** The schema of the operation's JSON request body (any `application/json` media type). */
function jsonBodySchema(operation: Operation<SpecName>): SchemaObject | undefined {
  const content = operation.requestBody?.content ?? {};
  const entry = Object.entries(content).find(([mediaType]) => mediaType.startsWith('application/json'));
  return entry?.[1].schema;
}

/** ajv's errors as JSON pointers into the validated value, with a short message each. */
export function violations(errors: ErrorObject[] | null | undefined): Violation[] {
  return ofTheFormTaken(errors ?? []).map((error) => {
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

/**
 * Of a failed `anyOf` or `oneOf` (a recipe sent inside `recipe` or flat), the errors of the form the value
 * took: a branch that fails only at the union's own level (a property it requires is missing) is left out
 * when some error lies deeper, inside the value, where another form was followed; the union's own error
 * ("must match a schema in anyOf") is left out whenever its branches say more.
 */
function ofTheFormTaken(errors: ErrorObject[]): ErrorObject[] {
  let kept = errors;
  for (const union of errors.filter((error) => error.keyword === 'anyOf' || error.keyword === 'oneOf')) {
    const at = union.instancePath;
    const inside = kept.filter(
      (error) => error !== union && (error.instancePath === at || error.instancePath.startsWith(`${at}/`)),
    );
    if (inside.length === 0) continue;
    const deeper = inside.some((error) => error.instancePath !== at);
    const prefix = `${union.schemaPath}/`;
    const branches = new Map<string, ErrorObject[]>();
    for (const error of inside.filter((each) => each.schemaPath.startsWith(prefix))) {
      const branch = error.schemaPath.slice(prefix.length).split('/')[0] ?? '';
      branches.set(branch, [...(branches.get(branch) ?? []), error]);
    }
    const shallow = [...branches.values()].filter((list) => list.every((error) => error.instancePath === at));
    const dropped = new Set([union, ...(deeper ? shallow.flat() : [])]);
    kept = kept.filter((error) => !dropped.has(error));
  }
  return kept;
}

function describeViolations(what: string, list: Violation[]): string {
  return `${what} is invalid: ${list.map((v) => `${v.pointer} ${v.message}`).join('; ')}`;
}
