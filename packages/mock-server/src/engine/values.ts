// Values made from schemas: what a required field the request did not give gets, and how a request's
// field is converted to the type the resource stores (EXTENSIONS.md, "Create").
import type { OpenApiDocument, SchemaObject } from '../spec/bundles.js';
import type { JsonObject } from '../store/resource-store.js';
import {
  isObject,
  itemsOf,
  numberOf,
  partsOf,
  propertiesOf,
  requiredOf,
  resolve,
  type SchemaNode,
  stringOf,
  typesOf,
} from './schema.js';

export interface ValueContext {
  document: OpenApiDocument;
  /** The clock's time, RFC 3339. */
  now: string;
  uuid(): string;
  /** The request's Host header, for values that name the emulator (an MCP server's URL). */
  host?: string;
}

const MAX_DEPTH = 8;

/**
 * A value valid for the schema: its default, null when nullable, its const, an example, the first
 * enum value, else one made from its type (the minimum, false, "", [] or {} with its required fields).
 */
export function placeholder(context: ValueContext, node: SchemaNode, depth = 0): unknown {
  const schema = resolve(context.document, node);
  if (schema.default !== undefined) return structuredClone(schema.default);
  const types = typesOf(schema);
  if (types.includes('null')) return null;
  if (schema.const !== undefined) return schema.const;
  const example = Array.isArray(schema.examples) ? schema.examples[0] : schema.example;
  if (example !== undefined) return structuredClone(example);
  if (Array.isArray(schema.enum)) return schema.enum[0];
  const allOf = partsOf(schema, 'allOf');
  if (allOf.length > 0) return Object.assign({}, ...allOf.map((part) => placeholder(context, part, depth)));
  const branch = partsOf(schema, 'oneOf')[0] ?? partsOf(schema, 'anyOf')[0];
  if (branch) return placeholder(context, branch, depth);
  return fromType(context, schema, types[0], depth);
}

function fromType(context: ValueContext, schema: SchemaObject, type: string | undefined, depth: number): unknown {
  switch (type) {
    case 'string':
      return stringFor(context, schema);
    case 'integer':
    case 'number': {
      const exclusive = numberOf(schema, 'exclusiveMinimum');
      return numberOf(schema, 'minimum') ?? (exclusive === undefined ? 0 : exclusive + 1);
    }
    case 'boolean':
      return false;
    case 'array': {
      const count = numberOf(schema, 'minItems') ?? 0;
      const items = itemsOf(schema) ?? {};
      return depth >= MAX_DEPTH ? [] : Array.from({ length: count }, () => placeholder(context, items, depth + 1));
    }
    case 'object':
      return complete(context, schema, {}, depth + 1);
    default:
      return null;
  }
}

function stringFor(context: ValueContext, schema: SchemaObject): string {
  switch (schema.format) {
    case 'date-time':
      return context.now;
    case 'date':
      return context.now.slice(0, 10);
    case 'uuid':
      return context.uuid();
    case 'email':
      return 'user@example.com';
    case 'uri':
    case 'url':
      return 'https://example.com/';
    default:
      return patternedString(schema);
  }
}

/** A string of the schema's length that matches its pattern, when a simple one does (`^[0-9]+$`, `^gin-`). */
function patternedString(schema: SchemaObject): string {
  const plain = 'x'.repeat(numberOf(schema, 'minLength') ?? 0);
  const pattern = stringOf(schema, 'pattern');
  if (!pattern) return plain;
  const literal = /^\^([A-Za-z0-9_-]*)/.exec(pattern)?.[1] ?? '';
  const matches = new RegExp(pattern, 'u');
  return [plain, '1', `${literal}1`, `${literal}x`].find((candidate) => matches.test(candidate)) ?? plain;
}

/** The object with each required property it lacks filled in, nested objects and arrays of objects too. */
export function complete(context: ValueContext, node: SchemaNode, value: JsonObject, depth = 0): JsonObject {
  const schema = resolve(context.document, node);
  const allOf = partsOf(schema, 'allOf');
  if (allOf.length > 0) return allOf.reduce((acc, part) => complete(context, part, acc, depth), value);
  // Built in the schema's property order, so answers read like the spec's examples.
  const result: JsonObject = {};
  const required = requiredOf(schema);
  for (const [name, property] of Object.entries(propertiesOf(schema))) {
    if (value[name] !== undefined) result[name] = completeNested(context, property, value[name], depth + 1);
    else if (required.includes(name) && depth < MAX_DEPTH) result[name] = placeholder(context, property, depth);
  }
  for (const [name, field] of Object.entries(value)) if (!(name in result)) result[name] = field;
  return result;
}

function completeNested(context: ValueContext, node: SchemaNode, value: unknown, depth: number): unknown {
  const schema = resolve(context.document, node);
  const items = itemsOf(schema);
  if (depth >= MAX_DEPTH) return value;
  if (Array.isArray(value) && items) return value.map((item) => completeNested(context, items, item, depth + 1));
  if (isObject(value) && (schema.properties || schema.allOf)) return complete(context, schema, value, depth);
  return value;
}

/**
 * A request's value as the stored field's type: the platform takes some ids as strings and stores
 * integers (and the other way round), and keeps some lists as JSON text (or takes them as JSON text).
 * Anything else stays as sent.
 */
export function coerce(context: ValueContext, node: SchemaNode, value: unknown): unknown {
  const types = typesOf(resolve(context.document, node));
  if (value === null || types.length === 0) return value;
  if (typeof value === 'string') {
    if (
      (types.includes('integer') || types.includes('number')) &&
      !types.includes('string') &&
      /^-?\d+(\.\d+)?$/.test(value)
    )
      return Number(value);
    if ((types.includes('array') || types.includes('object')) && !types.includes('string')) return parseJsonText(value);
  }
  if (Array.isArray(value) && types.includes('array')) {
    const items = itemsOf(resolve(context.document, node));
    return items ? value.map((item) => coerce(context, items, item)) : value;
  }
  if (!types.includes('string')) return value;
  if (typeof value === 'number' && !types.includes('number') && !types.includes('integer')) return String(value);
  if (typeof value === 'object' && !types.includes('array') && !types.includes('object')) return JSON.stringify(value);
  return value;
}

/** A path into a request body: property names, and ITEM for each element of an array. */
const ITEM = '[]';

/**
 * Where a request body's schema takes an ID as a number or its decimal digits (a schema typed both
 * `integer` and `string`, as IdInput is): the paths whose values numericIds reads as numbers.
 */
export function idPaths(document: OpenApiDocument, node: SchemaNode, path: string[] = [], depth = 0): string[][] {
  const schema = resolve(document, node);
  const types = typesOf(schema);
  if (types.includes('integer') && types.includes('string')) return [path];
  if (depth >= MAX_DEPTH) return [];
  const items = itemsOf(schema);
  const parts = [...partsOf(schema, 'allOf'), ...partsOf(schema, 'anyOf'), ...partsOf(schema, 'oneOf')];
  return [
    ...(items ? idPaths(document, items, [...path, ITEM], depth + 1) : []),
    ...parts.flatMap((part) => idPaths(document, part, path, depth + 1)),
    ...Object.entries(propertiesOf(schema)).flatMap(([name, property]) =>
      idPaths(document, property, [...path, name], depth + 1),
    ),
  ];
}

/**
 * The body with the IDs at these paths as numbers where they were sent as decimal strings (`"50"`),
 * so that every handler reads an ID one way; the body was checked against its schema, so a string
 * there holds decimal digits.
 */
export function numericIds(body: unknown, paths: string[][]): unknown {
  return paths.reduce((value, path) => numericAt(value, path), body);
}

function numericAt(value: unknown, path: string[]): unknown {
  const [step, ...rest] = path;
  if (step === undefined) return typeof value === 'string' && /^\d+$/.test(value) ? Number(value) : value;
  if (step === ITEM) return Array.isArray(value) ? value.map((item) => numericAt(item, rest)) : value;
  if (!isObject(value) || value[step] === undefined) return value;
  return { ...value, [step]: numericAt(value[step], rest) };
}

function parseJsonText(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}

/** A version 4 UUID from `random` (a float in [0, 1), like Math.random), so a seeded random repeats. */
export function uuidFrom(random: () => number): string {
  const hex = (count: number) => Array.from({ length: count }, () => Math.floor(random() * 16).toString(16)).join('');
  const variant = '89ab'.charAt(Math.floor(random() * 4));
  return `${hex(8)}-${hex(4)}-4${hex(3)}-${variant}${hex(3)}-${hex(12)}`;
}
