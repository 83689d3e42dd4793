// Messages for a topic schema, as fast-check arbitraries: matching ones (publishes that succeed) or
// loose ones (each field may be missing, null, of another type or badly formatted).
import fc from 'fast-check';
import type { TopicSchemaField } from '../../../src/spec/topic-schema.js';

export type Fit = 'matching' | 'loose';

export function messageOf(fields: TopicSchemaField[], fit: Fit): fc.Arbitrary<Record<string, unknown>> {
  const entries = fields.map((field) => {
    const entry = fieldValue(field, field.type, fit).map((value) => [field.name, value] as const);
    return fit === 'matching' && !field.optional ? entry : fc.option(entry);
  });
  const extra = fc.dictionary(fc.string({ maxLength: 3 }), fc.jsonValue({ maxDepth: 1 }), { maxKeys: 2 });
  // Through JSON, as a publish receives it: `__proto__` becomes an own property.
  return fc.tuple(extra, fc.tuple(...entries)).map(([unknown, known]) => {
    const own = known.filter((entry) => entry !== null);
    return JSON.parse(JSON.stringify({ ...unknown, ...Object.fromEntries(own) }));
  });
}

function fieldValue(field: TopicSchemaField, type: TopicSchemaField['type'], fit: Fit): fc.Arbitrary<unknown> {
  const matching: Record<TopicSchemaField['type'], () => fc.Arbitrary<unknown>> = {
    string: () => fc.string(),
    integer: () => fc.integer(),
    number: () => fc.double({ noNaN: true, noDefaultInfinity: true }),
    boolean: () => fc.boolean(),
    date: () => fc.constantFrom('2026-11-22', '2024-02-29', ...(fit === 'loose' ? ['2023-02-29', '22/11/2026'] : [])),
    date_time: () =>
      fc.constantFrom(
        '2026-11-22T12:00:00Z',
        '2026-12-31T23:59:60Z',
        ...(fit === 'loose' ? ['2026-11-22T12:00:00', 'now'] : []),
      ),
    object: () => messageOf(field.properties ?? [], fit),
    array: () =>
      fc.array(field.of ? fieldValue(field, field.of, fit) : fc.jsonValue({ maxDepth: 1 }), { maxLength: 3 }),
  };
  if (fit === 'matching') return matching[type]();
  return fc.oneof(
    { arbitrary: matching[type](), weight: 6 },
    { arbitrary: fc.constant(null), weight: 1 },
    { arbitrary: fc.jsonValue({ maxDepth: 1 }), weight: 1 },
  );
}
