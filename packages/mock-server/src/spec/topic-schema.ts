// A topic's message schema (the platform's format: a list of TopicSchemaField) turned into a JSON
// Schema, compiled once per topic version, so each publish costs one ajv call.
import type { Ajv2020, ErrorObject } from 'ajv/dist/2020.js';

export interface TopicSchemaField {
  name: string;
  type: FieldType;
  optional?: boolean;
  properties?: TopicSchemaField[];
  of?: Exclude<FieldType, 'array'>;
}
type FieldType = 'string' | 'integer' | 'number' | 'boolean' | 'date' | 'date_time' | 'object' | 'array';

type JsonSchema = { type: string | string[]; [keyword: string]: unknown };

export interface SchemaMismatch {
  /** Dotted path of the failing field, e.g. `customer.email` or `items[2].sku`. */
  field: string;
  message: string;
}

/** Returns undefined when the message matches, else the first failing field. */
export type MessageValidator = (message: unknown) => SchemaMismatch | undefined;

export function compileTopicSchema(ajv: Ajv2020, fields: TopicSchemaField[]): MessageValidator {
  const validate = ajv.compile(objectSchema(fields));
  return (message) => (validate(message) ? undefined : mismatch(validate.errors?.[0]));
}

function objectSchema(fields: TopicSchemaField[] = []): JsonSchema {
  return {
    type: 'object',
    properties: Object.fromEntries(fields.map((f) => [f.name, fieldSchema(f)])),
    required: fields.filter((f) => !f.optional).map((f) => f.name),
  };
}

function fieldSchema(field: TopicSchemaField): object {
  const schema = typeSchema(field.type, field);
  // An optional field may be absent or null.
  return field.optional ? { ...schema, type: [schema.type, 'null'] } : schema;
}

function typeSchema(type: FieldType, field: TopicSchemaField): JsonSchema {
  switch (type) {
    case 'date':
      return { type: 'string', format: 'date' };
    case 'date_time':
      return { type: 'string', format: 'date-time' };
    case 'object':
      return objectSchema(field.properties);
    case 'array':
      return { type: 'array', items: field.of ? typeSchema(field.of, field) : {} };
    default:
      return { type };
  }
}

const EXPECTED: Record<string, string> = {
  'date-time': 'an RFC 3339 date-time string',
  date: 'a full-date string (YYYY-MM-DD)',
};

function mismatch(error: ErrorObject | undefined): SchemaMismatch {
  if (!error) return { field: '', message: 'The message does not match the topic schema' };
  const params: { missingProperty?: string; format?: string; type?: string } = error.params;
  const segments = error.instancePath
    .split('/')
    .slice(1)
    .map((s) => s.replace(/~1/g, '/').replace(/~0/g, '~'));
  if (error.keyword === 'required') segments.push(String(params.missingProperty));
  const field = segments.reduce((path, s) => (/^\d+$/.test(s) ? `${path}[${s}]` : path ? `${path}.${s}` : s), '');
  const label = field || 'message';
  if (error.keyword === 'required') return { field, message: `Field '${label}' is required` };
  if (error.keyword === 'format')
    return { field, message: `Field '${label}' must be ${EXPECTED[String(params.format)] ?? params.format}` };
  if (error.keyword === 'type')
    return { field, message: `Field '${label}' must be ${article(firstType(String(params.type)))}` };
  return { field, message: `Field '${label}' ${error.message ?? 'is invalid'}` };
}

/** ajv names a type list ('string,null') for a field that may be null: the first is the one to name. */
function firstType(types: string): string {
  const comma = types.indexOf(',');
  return comma < 0 ? types : types.slice(0, comma);
}

function article(type: string): string {
  return /^[aeiou]/.test(type) ? `an ${type}` : `a ${type}`;
}
