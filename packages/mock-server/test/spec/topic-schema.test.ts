import { createRequire } from 'node:module';
import { isDateTime } from '@platform-api/spec/conventions';
import { Ajv2020, type ErrorObject } from 'ajv/dist/2020.js';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { InvalidRequest } from '../../src/errors.js';
import { compileTopicSchema, MAX_FIELD_DEPTH, type TopicSchemaField } from '../../src/spec/topic-schema.js';
import { propertyRuns, propertyTimeout } from '../support/property/runs.js';
import { messageOf } from '../support/property/topic-messages.js';

// The reference: the JSON Schema a topic schema stands for, checked by ajv on own properties only,
// and ajv's first error named as the emulator names a failing field.
const addFormats = createRequire(import.meta.url)('ajv-formats') as (ajv: Ajv2020) => Ajv2020;
// strictNumbers: Infinity (what JSON.parse makes of 1e400) is no number, as in the emulator's request validators.
const ajv = addFormats(new Ajv2020({ strict: false, strictNumbers: true, allErrors: true, ownProperties: true }));
ajv.addFormat('date-time', { type: 'string', validate: isDateTime });

type JsonSchema = { type: string | string[]; [keyword: string]: unknown };

function objectSchema(fields: TopicSchemaField[] = []): JsonSchema {
  return {
    type: 'object',
    properties: Object.fromEntries(fields.map((f) => [f.name, fieldSchema(f)])),
    required: fields.filter((f) => !f.optional).map((f) => f.name),
  };
}

function fieldSchema(field: TopicSchemaField): JsonSchema {
  const schema = typeSchema(field.type, field);
  return field.optional ? { ...schema, type: [schema.type as string, 'null'] } : schema;
}

function typeSchema(type: TopicSchemaField['type'], field: TopicSchemaField): JsonSchema {
  if (type === 'date') return { type: 'string', format: 'date' };
  if (type === 'date_time') return { type: 'string', format: 'date-time' };
  if (type === 'object') return objectSchema(field.properties);
  if (type === 'array') return { type: 'array', items: field.of ? typeSchema(field.of, field) : {} };
  return { type };
}

const EXPECTED: Record<string, string> = {
  'date-time': 'must be an RFC 3339 date-time string',
  date: 'must be a full-date string (YYYY-MM-DD)',
};

function referenceMismatch(error: ErrorObject) {
  const segments = error.instancePath.split('/').slice(1);
  if (error.keyword === 'required') segments.push(String(error.params.missingProperty));
  const field = segments.reduce((path, s) => (/^\d+$/.test(s) ? `${path}[${s}]` : path ? `${path}.${s}` : s), '');
  const label = field || 'message';
  if (error.keyword === 'required') return { field, message: `Field '${label}' is required` };
  if (error.keyword === 'format') return { field, message: `Field '${label}' ${EXPECTED[error.params.format]}` };
  const type = String(error.params.type).split(',')[0] ?? '';
  return { field, message: `Field '${label}' must be ${/^[aeiou]/.test(type) ? 'an' : 'a'} ${type}` };
}

// Names include those of Object.prototype; not `__proto__`, whose schema ajv ignores on purpose (tested
// below), nor all digits, which ajv's paths cannot tell from indexes.
const names = fc.constantFrom('id', 'name', 'sku', 'lines', 'constructor', 'toString', 'hasOwnProperty', 'a.b', 'é');
const leafTypes = ['string', 'integer', 'number', 'boolean', 'date', 'date_time'] as const;

const schemas = fc.letrec<{ fields: TopicSchemaField[]; field: TopicSchemaField }>((tie) => ({
  fields: fc.uniqueArray(tie('field'), { selector: (field) => field.name, maxLength: 4 }),
  field: fc.oneof(
    { depthSize: 'small' },
    fc.record({ name: names, type: fc.constantFrom(...leafTypes), optional: fc.boolean() }),
    fc.record({ name: names, type: fc.constant('object' as const), optional: fc.boolean(), properties: tie('fields') }),
    fc.record(
      {
        name: names,
        type: fc.constant('array' as const),
        optional: fc.boolean(),
        of: fc.constantFrom(...leafTypes, 'object' as const),
        properties: tie('fields'),
      },
      { requiredKeys: ['name', 'type', 'optional'] },
    ),
  ),
})).fields;

describe('compileTopicSchema', () => {
  it(
    'accepts and names failures exactly as the JSON Schema it stands for, checked by ajv',
    () => {
      fc.assert(
        fc.property(
          schemas.chain((fields) => fc.tuple(fc.constant(fields), messageOf(fields, 'loose'))),
          ([fields, message]) => {
            const reference = ajv.compile(objectSchema(fields));
            const expected = reference(message)
              ? undefined
              : referenceMismatch((reference.errors ?? [])[0] as ErrorObject);
            expect(compileTopicSchema(fields)(message)).toEqual(expected);
          },
        ),
        propertyRuns(300),
      );
    },
    propertyTimeout(300, 20),
  );

  it('refuses Infinity, what JSON.parse makes of a number past the range of a double, as ajv does', () => {
    for (const type of ['number', 'integer'] as const) {
      const fields: TopicSchemaField[] = [{ name: 'n', type, optional: true }];
      const reference = ajv.compile(objectSchema(fields));
      for (const message of [JSON.parse('{"n":1e400}'), JSON.parse('{"n":-1e400}')]) {
        expect(reference(message)).toBe(false);
        expect(compileTopicSchema(fields)(message)).toEqual(
          referenceMismatch((reference.errors ?? [])[0] as ErrorObject),
        );
      }
    }
  });

  it('finds a required field named after a property of Object.prototype only in the message itself', () => {
    const validate = compileTopicSchema([
      { name: '__proto__', type: 'string' },
      { name: 'constructor', type: 'string', optional: true },
    ]);
    expect(validate({})).toEqual({ field: '__proto__', message: "Field '__proto__' is required" });
    expect(validate(JSON.parse('{"__proto__": "kept"}'))).toBeUndefined();
    expect(validate(JSON.parse('{"__proto__": 1}'))).toEqual({
      field: '__proto__',
      message: "Field '__proto__' must be a string",
    });
  });

  it(`refuses fields nested more than ${MAX_FIELD_DEPTH} levels deep, naming where`, () => {
    const nested = (levels: number): TopicSchemaField => {
      let field: TopicSchemaField = { name: 'leaf', type: 'string' };
      for (let level = 1; level < levels; level++) field = { name: 'f', type: 'object', properties: [field] };
      return field;
    };
    expect(() => compileTopicSchema([nested(MAX_FIELD_DEPTH)])).not.toThrow();
    for (const levels of [MAX_FIELD_DEPTH + 1, 1000]) {
      const refused = (() => {
        try {
          compileTopicSchema([nested(levels)]);
        } catch (error) {
          return error;
        }
      })();
      expect(refused).toBeInstanceOf(InvalidRequest);
      expect((refused as InvalidRequest).details.errors?.[0]?.pointer).toBe(
        `/schema${'/0/properties'.repeat(MAX_FIELD_DEPTH)}`,
      );
    }
  });
});
