// `@platform-api/client/typegen`: TypeScript types and a validator for a topic's messages, from
// the topic's schema as the management API returns it. Used by `platform-api typegen`. The schema
// format and the TypeScript type of each scalar are @platform-api/spec's conventions, which the
// emulator's message check follows too.
import { TOPIC_SCALARS, type TopicScalarType, type TopicSchemaField } from '@platform-api/spec/conventions';

export type { TopicSchemaField };

/** What typegen needs of a topic (the management API's Topic has these fields). */
export interface TopicSource {
  id: number;
  name: string;
  schema: readonly TopicSchemaField[];
}

export interface TypegenOptions {
  /** The name of the message type. Default: the topic name in PascalCase (`order-events` -> `OrderEvents`). */
  typeName?: string | undefined;
}

/** `order-events` -> `OrderEvents`; a name that would not be an identifier gets a `Topic` prefix. */
export function typeNameOf(topic: Pick<TopicSource, 'id' | 'name'>): string {
  const words = topic.name.split(/[^A-Za-z0-9]+/).filter(Boolean);
  const name = words.map((word) => word[0]?.toUpperCase() + word.slice(1)).join('');
  if (!name) return `Topic${topic.id}`;
  return /^[0-9]/.test(name) ? `Topic${name}` : name;
}

/** A string literal as the project's formatter writes it: single quotes unless double quotes need fewer escapes. */
function quote(text: string): string {
  const singles = text.split("'").length - 1;
  const doubles = text.split('"').length - 1;
  const mark = singles > doubles ? '"' : "'";
  const escaped = JSON.stringify(text).slice(1, -1).replaceAll('\\"', '"');
  return mark + (mark === "'" ? escaped.replaceAll("'", "\\'") : escaped.replaceAll('"', '\\"')) + mark;
}

const key = (name: string) => (/^[A-Za-z_$][A-Za-z0-9_$]*$/.test(name) ? name : quote(name));

const NOTES: Record<string, string> = {
  date: 'a full date, YYYY-MM-DD',
  date_time: 'an RFC 3339 date-time',
  integer: 'an integer',
};

/** The TypeScript type of a value of `type` (the field's `properties` describe an object, also as array elements). */
function typeOf(type: string | undefined, field: TopicSchemaField, indent: string): string {
  if (type === 'object') return objectType(field.properties ?? [], indent);
  if (type === 'array') {
    const element = typeOf(field.of, field, indent);
    return field.of === undefined ? 'unknown[]' : `${element}[]`;
  }
  return Object.hasOwn(TOPIC_SCALARS, type ?? '') ? TOPIC_SCALARS[type as TopicScalarType].typescript : 'unknown';
}

function objectType(fields: readonly TopicSchemaField[], indent: string): string {
  if (fields.length === 0) return 'Record<string, unknown>';
  return `{\n${members(fields, `${indent}  `)}${indent}}`;
}

function members(fields: readonly TopicSchemaField[], indent: string): string {
  return fields
    .map((field) => {
      const array = field.type === 'array';
      const note = NOTES[array ? (field.of ?? '') : field.type];
      const doc = note
        ? `${indent}/** ${array ? `Each element is ${note}` : `${note[0]?.toUpperCase()}${note.slice(1)}`}. */\n`
        : '';
      const type = typeOf(field.type, field, indent);
      return field.optional
        ? `${doc}${indent}${key(field.name)}?: ${type} | null;\n`
        : `${doc}${indent}${key(field.name)}: ${type};\n`;
    })
    .join('');
}

/** The schema as a literal, one property per line (the formatter keeps such objects as they are). */
function literal(value: unknown, indent: string): string {
  if (Array.isArray(value)) {
    if (value.length === 0) return '[]';
    return `[\n${value.map((item) => `${indent}  ${literal(item, `${indent}  `)},\n`).join('')}${indent}]`;
  }
  if (typeof value === 'object' && value !== null) {
    const entries = Object.entries(value).filter(([, item]) => item !== undefined);
    return `{\n${entries.map(([name, item]) => `${indent}  ${key(name)}: ${literal(item, `${indent}  `)},\n`).join('')}${indent}}`;
  }
  return typeof value === 'string' ? quote(value) : String(value);
}

/** Only the fields of the platform's schema format, in a fixed order, so the output does not depend on the answer's extras. */
function normalized(fields: readonly TopicSchemaField[]): TopicSchemaField[] {
  return fields.map(({ name, type, optional, of, properties }) => ({
    name,
    type,
    ...(optional !== undefined && { optional }),
    ...(of !== undefined && { of }),
    ...(properties !== undefined && { properties: normalized(properties) }),
  }));
}

// The validator every generated file carries, so that it needs no import.
const VALIDATOR = `interface Field {
  name: string;
  type: string;
  optional?: boolean;
  of?: string;
  properties?: readonly Field[];
}

const DATE = /^\\d{4}-[01]\\d-[0-3]\\d$/;
const DATE_TIME = /^\\d{4}-[01]\\d-[0-3]\\d[t\\s][0-2]\\d:[0-5]\\d:[0-6]\\d(?:\\.\\d+)?(?:z|[+-]\\d\\d(?::?\\d\\d)?)$/i;

function problemsOfFields(fields: readonly Field[], value: unknown, at: string): string[] {
  if (typeof value !== 'object' || value === null || Array.isArray(value))
    return [\`\${at || 'message'}: expected an object\`];
  const record = value as Record<string, unknown>;
  return fields.flatMap((field) => {
    const path = at ? \`\${at}.\${field.name}\` : field.name;
    const item = record[field.name];
    if (item === undefined || item === null) return field.optional ? [] : [\`\${path}: required\`];
    return problemsOfValue(field.type, field, item, path);
  });
}

function problemsOfValue(type: string, field: Field, value: unknown, path: string): string[] {
  const expected = (what: string, ok: boolean) => (ok ? [] : [\`\${path}: expected \${what}\`]);
  switch (type) {
    case 'object':
      return problemsOfFields(field.properties ?? [], value, path);
    case 'array': {
      if (!Array.isArray(value)) return expected('an array', false);
      const of = field.of;
      return of ? value.flatMap((item, index) => problemsOfValue(of, field, item, \`\${path}[\${index}]\`)) : [];
    }
    case 'integer':
      return expected('an integer', Number.isInteger(value));
    case 'date':
      return expected('a date (YYYY-MM-DD)', typeof value === 'string' && DATE.test(value));
    case 'date_time':
      return expected('an RFC 3339 date-time', typeof value === 'string' && DATE_TIME.test(value));
    default:
      return expected(\`a \${type}\`, typeof value === type);
  }
}
`;

/**
 * The TypeScript module for the messages of `topic`: the message type, the topic id, the schema,
 * and `validate<Type>(value)`, which lists a value's problems against the schema (empty when it
 * matches; the platform's own check stays the authority). The output is deterministic, formatted
 * as the project's formatter (Biome) writes it, so `--check` can compare it with a committed file.
 */
export function generateTopicTypes(topic: TopicSource, options: TypegenOptions = {}): string {
  const typeName = options.typeName ?? typeNameOf(topic);
  if (!/^[A-Za-z_$][A-Za-z0-9_$]*$/.test(typeName)) throw new TypeError(`${typeName} is not a TypeScript identifier`);
  const camel = typeName[0]?.toLowerCase() + typeName.slice(1);
  const schema = normalized(topic.schema);
  const about = `topic ${topic.id} (${topic.name.replaceAll('*/', '*\\/').replaceAll(/\s+/g, ' ')})`;
  const body =
    schema.length > 0
      ? `interface ${typeName} ${objectType(schema, '')}`
      : `type ${typeName} = Record<string, unknown>;`;
  return `// Generated by \`platform-api typegen --topic ${topic.id}\` from the schema of ${about}.
// Do not edit: run it again after the topic's schema changes; \`--check\` tells whether this file is current.

/** A message of ${about}. */
export ${body}

export const ${camel}TopicId = ${topic.id};

/** The schema of ${about}, as the management API returned it. */
export const ${camel}Schema: readonly Field[] = ${literal(schema, '')};

/** The problems of \`value\` as a message of ${about}: none when it matches the schema. */
export function validate${typeName}(value: unknown): string[] {
  return problemsOfFields(${camel}Schema, value, '');
}

${VALIDATOR}`;
}
