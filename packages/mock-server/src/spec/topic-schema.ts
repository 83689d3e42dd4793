// A topic's message schema (the platform's format: a list of TopicSchemaField), compiled once per
// topic version into a tree of closures that accepts or refuses a message; a refused message is then
// walked in the schema's order to name its first failing field.
//
// Not through ajv: ajv writes each schema as JavaScript source and compiles it with `new Function`,
// and V8 keeps large compiled sources in its compilation cache for good (300 updates of a topic to one
// 14 KB schema kept 85 MB; endless distinct schemas grow it without bound), and its code generation
// ran out of stack on a schema nested 1,000 levels deep. Closures go with the last topic that uses
// them and compile in microseconds. They cost a publish a little more than ajv's code did (BENCHMARKS.md).
//
// The format's types and what each scalar value is are @platform-api/spec/conventions', which the
// client's typegen follows too; the compiling and the messages are the emulator's.
import {
  type TopicFieldType as FieldType,
  MAX_FIELD_DEPTH,
  TOPIC_SCALARS,
  type TopicSchemaField,
} from '@platform-api/spec/conventions';
import { InvalidRequest } from '../errors.js';

export { MAX_FIELD_DEPTH, type TopicSchemaField };

export interface SchemaMismatch {
  /** Dotted path of the failing field, e.g. `customer.email` or `items[2].sku`. */
  field: string;
  message: string;
}

/** Returns undefined when the message matches, else the first failing field. */
export type MessageValidator = (message: unknown) => SchemaMismatch | undefined;

/** InvalidRequest (naming the field) for a schema nested deeper than MAX_FIELD_DEPTH. */
export function compileTopicSchema(fields: TopicSchemaField[]): MessageValidator {
  const accepts = objectCheck(fields, '/schema', 1);
  return (message) => (accepts(message) ? undefined : describe(objectFailure(fields, message)));
}

type Check = (value: unknown) => boolean;

const isObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

/**
 * Visits the message's own keys: a field named `__proto__` or `constructor` is never found on
 * Object.prototype, so a required one is missing when the message lacks it.
 */
function objectCheck(fields: TopicSchemaField[] | undefined, pointer: string, depth: number): Check {
  if (depth > MAX_FIELD_DEPTH) {
    throw new InvalidRequest('INVALID_REQUEST', `Topic schema fields nest at most ${MAX_FIELD_DEPTH} levels deep`, {
      errors: [{ pointer, message: `nests fields deeper than ${MAX_FIELD_DEPTH} levels` }],
    });
  }
  // A name listed twice keeps its last definition, as in the JSON Schema object it stands for.
  const checks = new Map(
    (fields ?? []).map((field, index) => {
      const check = typeCheck(field, field.type, `${pointer}/${index}/properties`, depth);
      return [field.name, { check, field }];
    }),
  );
  const requiredCount = [...checks.values()].filter(({ field }) => !field.optional).length;
  return (value) => {
    if (!isObject(value)) return false;
    let requiredSeen = 0;
    for (const key in value) {
      const entry = checks.get(key);
      if (entry === undefined) continue;
      const { check, field } = entry;
      if (!field.optional) requiredSeen++;
      const property = value[key];
      if (!(property === null && field.optional) && !check(property)) return false;
    }
    return requiredSeen === requiredCount;
  };
}

function typeCheck(field: TopicSchemaField, type: FieldType, pointer: string, depth: number): Check {
  if (type === 'object') return objectCheck(field.properties, pointer, depth + 1);
  if (type !== 'array') return TOPIC_SCALARS[type].accepts;
  // Without `of`, the elements may be anything.
  const element = field.of && typeCheck(field, field.of, pointer, depth);
  return (value) => Array.isArray(value) && (!element || value.every(element));
}

/** Why a value failed: the path to it and what was expected there. */
interface Failure {
  path: (string | number)[];
  expected: FieldType | 'presence';
}

const fail = (expected: Failure['expected']): Failure => ({ path: [], expected });

/** The failure of a part of a value, placed under that part's name or index. */
function within(segment: string | number, failure: Failure | undefined): Failure | undefined {
  failure?.path.unshift(segment);
  return failure;
}

/** The first failure in the order a JSON Schema validator reports: the type, each required field, each field present. */
function objectFailure(fields: TopicSchemaField[] | undefined, value: unknown): Failure | undefined {
  if (!isObject(value)) return fail('object');
  const known = [...new Map((fields ?? []).map((field) => [field.name, field])).values()];
  const missing = known.find((field) => !field.optional && !Object.hasOwn(value, field.name));
  if (missing) return within(missing.name, fail('presence'));
  for (const field of known) {
    const property = Object.hasOwn(value, field.name) ? value[field.name] : undefined;
    if (property === undefined || (property === null && field.optional)) continue;
    const failure = within(field.name, typeFailure(field, field.type, property));
    if (failure) return failure;
  }
  return undefined;
}

function typeFailure(field: TopicSchemaField, type: FieldType, value: unknown): Failure | undefined {
  if (type === 'object') return objectFailure(field.properties, value);
  if (type === 'array') return arrayFailure(field, value);
  if (TOPIC_SCALARS[type].accepts(value)) return undefined;
  // A date that is not a string fails as not a string; a string, as not a date.
  return fail((type === 'date' || type === 'date_time') && typeof value !== 'string' ? 'string' : type);
}

function arrayFailure(field: TopicSchemaField, value: unknown): Failure | undefined {
  if (!Array.isArray(value)) return fail('array');
  const { of } = field;
  if (!of) return undefined;
  for (const [index, element] of value.entries()) {
    const failure = within(index, typeFailure(field, of, element));
    if (failure) return failure;
  }
  return undefined;
}

const EXPECTED: Readonly<Record<Failure['expected'], string>> = {
  presence: 'is required',
  string: 'must be a string',
  integer: 'must be an integer',
  number: 'must be a number',
  boolean: 'must be a boolean',
  object: 'must be an object',
  array: 'must be an array',
  date: 'must be a full-date string (YYYY-MM-DD)',
  date_time: 'must be an RFC 3339 date-time string',
};

/** Called for a refused message only: the walk finds the failure the closures found. */
function describe(failure: Failure | undefined): SchemaMismatch {
  const { path, expected } = failure ?? fail('object');
  const field = path.reduce<string>(
    (dotted, segment) =>
      typeof segment === 'number' ? `${dotted}[${segment}]` : dotted ? `${dotted}.${segment}` : segment,
    '',
  );
  return { field, message: `Field '${field || 'message'}' ${EXPECTED[expected]}` };
}
