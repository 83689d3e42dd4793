import { execFileSync } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { generateTopicTypes, type TopicSchemaField, typeNameOf } from '../src/typegen.js';

const schema: TopicSchemaField[] = [
  { name: 'order_id', type: 'string' },
  { name: 'total', type: 'number' },
  { name: 'quantity', type: 'integer', optional: true },
  { name: 'ship-on', type: 'date', optional: true },
  { name: "customer's", type: 'object', properties: [{ name: 'email', type: 'string' }] },
  { name: 'address', type: 'object', optional: true, properties: [{ name: 'city', type: 'string' }] },
  { name: 'placed_at', type: 'date_time' },
  {
    name: 'lines',
    type: 'array',
    of: 'object',
    properties: [
      { name: 'sku', type: 'string' },
      { name: 'n', type: 'integer' },
    ],
  },
  { name: 'tags', type: 'array', of: 'string', optional: true },
  { name: 'anything', type: 'array' },
  { name: 'flags', type: 'object' },
  { name: 'vip', type: 'boolean', optional: true },
];
const code = generateTopicTypes({ id: 12, name: 'order events', schema });
const repository = fileURLToPath(new URL('../../../', import.meta.url));

let dir: string;
let generated: { validateOrderEvents: (value: unknown) => string[]; orderEventsTopicId: number };
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'typegen-'));
  await writeFile(join(dir, 'order-events.ts'), code);
  generated = await import(join(dir, 'order-events.ts'));
});
afterAll(() => rm(dir, { recursive: true, force: true }));

const valid = {
  order_id: 'ORD-1',
  total: 10.5,
  "customer's": { email: 'a@example.com' },
  placed_at: '2026-11-22T10:00:00Z',
  lines: [{ sku: 'S-1', n: 2 }],
  anything: [1, 'two'],
  flags: {},
};

describe('generateTopicTypes', () => {
  it('writes the message type from the schema', () => {
    expect(code).toContain(`export interface OrderEvents {
  order_id: string;
  total: number;
  /** An integer. */
  quantity?: number | null;
  /** A full date, YYYY-MM-DD. */
  'ship-on'?: string | null;
  "customer's": {
    email: string;
  };
  address?: {
    city: string;
  } | null;
  /** An RFC 3339 date-time. */
  placed_at: string;
  lines: {
    sku: string;
    /** An integer. */
    n: number;
  }[];
  tags?: string[] | null;
  anything: unknown[];
  flags: Record<string, unknown>;
  vip?: boolean | null;
}`);
    expect(generated.orderEventsTopicId).toBe(12);
  });

  it('writes a validator that accepts what the schema allows', () => {
    expect(generated.validateOrderEvents(valid)).toEqual([]);
    expect(generated.validateOrderEvents({ ...valid, quantity: null, tags: ['a'], 'ship-on': '2026-11-22' })).toEqual(
      [],
    );
    expect(generated.validateOrderEvents({ ...valid, extra: 'kept by the platform' })).toEqual([]);
  });

  it('writes a validator that names each field that does not match', () => {
    expect(
      generated.validateOrderEvents({
        ...valid,
        total: '10.50',
        quantity: 1.5,
        'ship-on': '22/11/2026',
        "customer's": { email: 7 },
        placed_at: 'yesterday',
        lines: [{ sku: 'S-1', n: 2 }, { n: 'x' }],
        tags: 'a',
        vip: 'yes',
        order_id: undefined,
      }),
    ).toEqual([
      'order_id: required',
      'total: expected a number',
      'quantity: expected an integer',
      'ship-on: expected a date (YYYY-MM-DD)',
      "customer's.email: expected a string",
      'placed_at: expected an RFC 3339 date-time',
      'lines[1].sku: required',
      'lines[1].n: expected an integer',
      'tags: expected an array',
      'vip: expected a boolean',
    ]);
    expect(generated.validateOrderEvents([])).toEqual(['message: expected an object']);
  });

  it('is deterministic, and ignores fields of the answer that are not part of the schema format', () => {
    const noisy = schema.map((field) => ({ ...field, description: 'extra', id: 4 }));
    expect(generateTopicTypes({ id: 12, name: 'order events', schema: noisy })).toBe(code);
  });

  it('is formatted and linted as the project formats its code (Biome finds nothing)', async () => {
    // A file in the package, so that Biome applies the project's settings to it.
    const path = fileURLToPath(new URL(`../examples/generated/typegen-${process.pid}.ts`, import.meta.url));
    await writeFile(path, code);
    try {
      const biome = join(repository, 'node_modules/.bin/biome');
      const run = () => execFileSync(biome, ['check', '--error-on-warnings', path], { cwd: repository, stdio: 'pipe' });
      expect(run).not.toThrow();
    } finally {
      await rm(path);
    }
  });
});

describe('typeNameOf', () => {
  it('makes a PascalCase identifier of the topic name', () => {
    expect(typeNameOf({ id: 3, name: 'order-events' })).toBe('OrderEvents');
    expect(typeNameOf({ id: 3, name: 'orders v2' })).toBe('OrdersV2');
    expect(typeNameOf({ id: 3, name: '2024 orders' })).toBe('Topic2024Orders');
    expect(typeNameOf({ id: 3, name: '---' })).toBe('Topic3');
  });

  it('refuses a type name that is not an identifier', () => {
    expect(() => generateTopicTypes({ id: 1, name: 'x', schema }, { typeName: 'Order Events' })).toThrow(
      'Order Events is not a TypeScript identifier',
    );
  });
});
