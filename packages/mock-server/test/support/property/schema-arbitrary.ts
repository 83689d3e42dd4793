// Values for a JSON Schema of the bundled specs, as fast-check arbitraries: what the property suite
// sends as parameters and bodies. Meant to be valid for the keywords the specs' request schemas use
// (types, enum, const, formats, lengths, bounds, required and optional properties, dependentRequired,
// unique items, allOf, oneOf, anyOf); `not` is left to chance, which only adds refused requests.
import fc from 'fast-check';
import { deref, type OpenApiDocument, type SchemaObject } from '../../../src/spec/bundles.js';

const UINT32_MAX = 4294967295;
/** Strings and arrays stay short: sizes past the limits are the mutations' job. */
const MAX_GENERATED_LENGTH = 24;
const MAX_GENERATED_ITEMS = 4;
/** Below this depth a recursive schema (TopicSchemaField) gets its required properties only. */
const MAX_DEPTH = 6;

export function schemaArbitrary(document: OpenApiDocument, node: unknown, depth = 0): fc.Arbitrary<unknown> {
  const schema = resolved(document, node);
  if ('const' in schema) return fc.constant(schema.const);
  if (Array.isArray(schema.enum)) return fc.constantFrom(...schema.enum);
  const branches = (schema.oneOf ?? schema.anyOf) as unknown[] | undefined;
  if (branches) {
    const { oneOf: _oneOf, anyOf: _anyOf, ...base } = schema;
    return fc.oneof(
      ...branches.map((branch) => schemaArbitrary(document, { ...base, ...resolved(document, branch) }, depth)),
    );
  }
  const types = Array.isArray(schema.type) ? (schema.type as string[]) : [schema.type as string | undefined];
  return fc.oneof(...types.map((type) => typedArbitrary(document, schema, type, depth)));
}

/** The schema with its `$ref` followed and its `allOf` parts merged into it. */
function resolved(document: OpenApiDocument, node: unknown): SchemaObject {
  const schema = deref<SchemaObject>(document, (node ?? {}) as SchemaObject);
  const parts = schema.allOf as unknown[] | undefined;
  if (!parts) return schema;
  const { allOf: _allOf, ...own } = schema;
  return Object.assign({}, ...parts.map((part) => resolved(document, part)), own);
}

function typedArbitrary(
  document: OpenApiDocument,
  schema: SchemaObject,
  type: string | undefined,
  depth: number,
): fc.Arbitrary<unknown> {
  switch (type) {
    case 'object':
      return objectArbitrary(document, schema, depth + 1);
    case 'array':
      return arrayArbitrary(document, schema, depth + 1);
    case 'string':
      return stringArbitrary(schema);
    case 'integer':
      return fc.integer(bounds(schema, -1000, 1000));
    case 'number':
      return fc.double({ ...bounds(schema, -1e6, 1e6), noNaN: true });
    case 'boolean':
      return fc.boolean();
    case 'null':
      return fc.constant(null);
    default:
      return fc.jsonValue({ maxDepth: 2 });
  }
}

function bounds(schema: SchemaObject, low: number, high: number): { min: number; max: number } {
  const unsigned = schema.format === 'uint32' || schema.format === 'uint64';
  const min = typeof schema.minimum === 'number' ? schema.minimum : unsigned ? 0 : low;
  const max = typeof schema.maximum === 'number' ? Math.min(schema.maximum, UINT32_MAX) : Math.max(min, high);
  return { min, max };
}

function stringArbitrary(schema: SchemaObject): fc.Arbitrary<string> {
  if (schema.format === 'date-time') {
    const instants = fc.date({ min: new Date('2000-01-01'), max: new Date('2100-01-01'), noInvalidDate: true });
    return fc.oneof(
      instants.map((d) => d.toISOString()),
      fc.constantFrom('2026-12-31T23:59:60Z', '2026-11-22T10:00:00+05'),
    );
  }
  if (schema.format === 'date') return fc.constantFrom('2026-11-22', '2024-02-29');
  if (schema.format === 'email') return fc.emailAddress();
  if (schema.format === 'uri') return fc.webUrl();
  const minLength = typeof schema.minLength === 'number' ? schema.minLength : 0;
  const maxLength = typeof schema.maxLength === 'number' ? schema.maxLength : MAX_GENERATED_LENGTH;
  return fc.string({ minLength, maxLength: Math.min(maxLength, Math.max(minLength, MAX_GENERATED_LENGTH)) });
}

function arrayArbitrary(document: OpenApiDocument, schema: SchemaObject, depth: number): fc.Arbitrary<unknown[]> {
  const minLength = typeof schema.minItems === 'number' ? schema.minItems : 0;
  if (depth > MAX_DEPTH && minLength === 0) return fc.constant([]);
  const items = schemaArbitrary(document, schema.items ?? {}, depth);
  const limit = typeof schema.maxItems === 'number' ? schema.maxItems : MAX_GENERATED_ITEMS;
  const maxLength = Math.min(limit, Math.max(minLength, MAX_GENERATED_ITEMS));
  return schema.uniqueItems
    ? fc.uniqueArray(items, { minLength, maxLength, selector: (item) => JSON.stringify(item) })
    : fc.array(items, { minLength, maxLength });
}

function objectArbitrary(
  document: OpenApiDocument,
  schema: SchemaObject,
  depth: number,
): fc.Arbitrary<Record<string, unknown>> {
  const minProperties = typeof schema.minProperties === 'number' ? schema.minProperties : 0;
  const all = Object.entries(schema.properties ?? {});
  // Deep down only what is needed: the required properties, and as many more as minProperties asks
  // (taken from additionalProperties when it is a schema, which a recursive filter's are not).
  const needed = (schema.required as string[] | undefined) ?? [];
  const deep = depth > MAX_DEPTH;
  const extra = deep && isSchema(schema.additionalProperties) ? [] : all.map(([name]) => name);
  const required = deep
    ? [...needed, ...extra.filter((name) => !needed.includes(name)).slice(0, minProperties - needed.length)]
    : needed;
  const properties = all.filter(([name]) => !deep || required.includes(name));
  const shape = Object.fromEntries(
    properties.map(([name, property]) => [name, schemaArbitrary(document, property, depth)]),
  );
  // Required names the schema types nowhere (a `not` or a branch's) get any JSON.
  for (const name of required) shape[name] ??= fc.jsonValue({ maxDepth: 1 });
  const dependents = (schema.dependentRequired ?? {}) as Record<string, string[]>;
  // A map (no properties of its own, a schema for the others): keys from propertyNames.
  if (properties.length === 0 && isSchema(schema.additionalProperties)) {
    const keys = stringArbitrary(resolved(document, schema.propertyNames ?? {}));
    const values = schemaArbitrary(document, schema.additionalProperties, depth);
    return fc.dictionary(keys, values, {
      minKeys: minProperties,
      maxKeys: Math.max(minProperties, MAX_GENERATED_ITEMS),
      noNullPrototype: true,
    });
  }
  return fc
    .record(shape, { requiredKeys: required.filter((name) => name in shape) })
    .map((value) => withDependents(value, dependents))
    .filter((value) => Object.keys(value).length >= minProperties);
}

const isSchema = (value: unknown): value is SchemaObject =>
  value !== null && typeof value === 'object' && !Array.isArray(value);

/** A property whose dependents are missing is left out, so dependentRequired holds. */
function withDependents(value: Record<string, unknown>, dependents: Record<string, string[]>): Record<string, unknown> {
  const kept = { ...value };
  for (const [name, needs] of Object.entries(dependents)) {
    if (name in kept && needs.some((need) => !(need in kept))) delete kept[name];
  }
  return kept;
}
