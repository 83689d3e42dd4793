// Every integer path and query parameter of the four bundles states the bound the emulator holds it to
// (each API's description says it: at most 2^53 − 1 in magnitude), so that a tool generating requests
// from a bundle (Schemathesis, the fuzzers) stays within what is accepted. plugins/integer-bounds.js
// writes it at bundle time; the YAML says it once.
import { describe, expect, test } from 'vitest';
import { pagingOf } from '../conventions/pagination.js';
import { boundIntegers } from '../plugins/integer-bounds.js';
import { deref, type Json, loadBundle, operationById, operations } from './support/bundles.js';

const BOUND = Number.MAX_SAFE_INTEGER;
const APIS = ['event-streams', 'auth', 'management', 'emulator'] as const;

/** Each integer schema of a parameter: itself, an array's items, each branch. */
function integerSchemas(doc: Json, node: Json): Json[] {
  const schema = deref(doc, node);
  if (!schema || typeof schema !== 'object') return [];
  const own = [schema.type].flat().includes('integer') ? [schema] : [];
  const branches = ['oneOf', 'anyOf', 'allOf'].flatMap((key) => schema[key] ?? []);
  return [...own, ...[schema.items, ...branches].flatMap((child) => integerSchemas(doc, child))];
}

describe('integer parameters', () => {
  for (const api of APIS) {
    test(`of the ${api} bundle state a bound within 2^53 - 1`, () => {
      const doc = loadBundle(api);
      const unbounded = operations(doc).flatMap(({ method, path, op, pathItem }) =>
        [...(pathItem.parameters ?? []), ...(op.parameters ?? [])]
          .map((parameter: Json) => deref(doc, parameter))
          .filter((parameter: Json) => parameter.in === 'path' || parameter.in === 'query')
          .flatMap((parameter: Json) =>
            integerSchemas(doc, parameter.schema)
              .filter((schema) => {
                const lowest = schema.minimum ?? schema.exclusiveMinimum;
                const highest = schema.maximum ?? schema.exclusiveMaximum;
                return !(lowest >= -BOUND && highest <= BOUND);
              })
              .map(() => `${method} ${path} ${parameter.name}`),
          ),
      );
      expect(unbounded).toEqual([]);
    });
  }

  test('whose bound is only that one document no page size (a client does not ask for 2^53 - 1 items)', () => {
    const doc = loadBundle('management');
    const pagingOfOperation = (operationId: string) => {
      const { op, pathItem } = operationById(doc, operationId);
      const parameters = [...(pathItem.parameters ?? []), ...(op.parameters ?? [])].map((p: Json) => deref(doc, p));
      return pagingOf(parameters);
    };
    const perPage = deref(doc, operationById(doc, 'legacy_list_roles').op.parameters[1]);
    expect([perPage.name, perPage.schema.maximum]).toEqual(['per_page', BOUND]);
    expect(pagingOfOperation('legacy_list_roles')?.maxSize).toBeNull();
    expect(pagingOfOperation('list_folders')?.maxSize).toBe(100);
  });

  test('keep a bound they state, and leave a schema named by $ref (a body may use it) alone', () => {
    const stated = { type: 'integer', minimum: 1, maximum: 100 };
    const open = { type: ['integer', 'null'] };
    const list = { type: 'array', items: { type: 'integer', exclusiveMinimum: 0 } };
    const named = { $ref: '#/components/schemas/Id' };
    for (const schema of [stated, open, list, named]) boundIntegers(schema);
    expect([stated, open, list, named]).toEqual([
      { type: 'integer', minimum: 1, maximum: 100 },
      { type: ['integer', 'null'], minimum: -BOUND, maximum: BOUND },
      { type: 'array', items: { type: 'integer', exclusiveMinimum: 0, maximum: BOUND } },
      { $ref: '#/components/schemas/Id' },
    ]);
  });
});
