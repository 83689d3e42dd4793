// The checks the build compiles (scripts/build-checks.mjs, into dist/checks/) are the ones the emulator
// uses, and they answer exactly as ajv's compiled at first use: for every operation's parameters and
// body and every resource type's schema, the same verdict, the same errors (pointers, keywords,
// messages) and the same coerced parameters, on values generated from the schema and on broken ones.
import { readFileSync } from 'node:fs';
import type { ValidateFunction } from 'ajv/dist/2020.js';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { readResourceTypes } from '../../src/engine/vocabulary.js';
import { resolveLimits } from '../../src/options.js';
import {
  bundleDigest,
  type OpenApiDocument,
  type Operation,
  SPEC_NAMES,
  type SpecName,
} from '../../src/spec/bundles.js';
import { type BuiltIndex, type CheckKind, SchemaChecks } from '../../src/spec/checks.js';
import { sharedSpecs } from '../../src/spec/shared.js';
import { propertyRuns, propertyTimeout } from '../support/property/runs.js';
import { schemaArbitrary } from '../support/property/schema-arbitrary.js';

const RUNS_PER_CHECK = 8;

const bundles = sharedSpecs();
// The emulator's own defaults: the batch publish body's check is built for the default batch limit.
const platform = bundles.requestValidators(resolveLimits(bundles.specs, {}).maxBatchMessages);
const documents: Record<SpecName, OpenApiDocument> = {
  ...bundles.specs.documents,
  emulator: bundles.emulator.document,
};
const operations: Operation<SpecName>[] = [...bundles.specs.operations, ...bundles.emulator.operations];

/** One check: what is compiled (an anchored schema, or a component's pointer), and what values are drawn from. */
interface Check {
  name: string;
  compiled: object | string;
  values: fc.Arbitrary<unknown>;
}

function checksOf(api: SpecName, kind: CheckKind): Check[] {
  const validators = api === 'emulator' ? bundles.emulator.validators : platform;
  const document = documents[api];
  const ops = operations.filter((op) => op.api === api);
  if (kind === 'params') {
    return ops.flatMap((op) => {
      const compiled = validators.paramsSchema(op);
      const params = op.parameters.filter((p) => p.in === 'path' || p.in === 'query');
      const local = { type: 'object', properties: Object.fromEntries(params.map((p) => [p.name, p.schema ?? {}])) };
      return compiled
        ? [{ name: op.operationId, compiled, values: asParameters(schemaArbitrary(document, local)) }]
        : [];
    });
  }
  const bodies = ops.flatMap((op) => {
    const compiled = validators.bodySchema(op);
    const local = Object.entries(op.requestBody?.content ?? {}).find(([type]) => type.startsWith('application/json'));
    return compiled && local
      ? [{ name: op.operationId, compiled, values: schemaArbitrary(document, local[1].schema) }]
      : [];
  });
  const items = api === 'management' ? [...readResourceTypes(document).values()] : [];
  return [
    ...bodies,
    ...items.map((type) => ({
      name: type.ref,
      compiled: type.ref,
      values: schemaArbitrary(document, { $ref: type.ref }),
    })),
  ];
}

/** Parameters as they arrive: text, lists of text, or a deepObject's members as text; sometimes typed. */
function asParameters(values: fc.Arbitrary<unknown>): fc.Arbitrary<unknown> {
  const text = (value: unknown): unknown =>
    Array.isArray(value) ? value.map(String) : typeof value === 'object' && value !== null ? value : String(value);
  return fc
    .tuple(values, fc.boolean())
    .map(([value, asText]) =>
      asText && typeof value === 'object' && value !== null
        ? Object.fromEntries(Object.entries(value).map(([name, member]) => [name, text(member)]))
        : value,
    );
}

/** A value from the schema, or one broken: a member dropped, replaced or added, or any JSON instead. */
function withBroken(values: fc.Arbitrary<unknown>): fc.Arbitrary<unknown> {
  const junk = fc.jsonValue({ maxDepth: 2 });
  return fc.oneof(
    values,
    junk,
    fc
      .tuple(values, junk, fc.string({ maxLength: 6 }), fc.nat(), fc.constantFrom('drop', 'replace', 'add'))
      .map(([value, other, extraName, index, how]) => {
        if (typeof value !== 'object' || value === null || Array.isArray(value)) return other;
        const copy: Record<string, unknown> = { ...value };
        const names = Object.keys(copy);
        const name = names.length > 0 ? (names[index % names.length] as string) : extraName;
        if (how === 'drop') delete copy[name];
        else copy[how === 'add' ? `${extraName}_` : name] = other;
        return copy;
      }),
  );
}

/** What a check made of a value: its verdict, its errors, and the value (coerced in place by a parameter check). */
function outcome(validate: ValidateFunction, value: unknown): unknown {
  const data = structuredClone(value);
  const valid = validate(data);
  return { valid, errors: validate.errors ?? null, data };
}

/** The runs of one check among many: `npm test`'s fixed seed moved by its index, so that each draws other cases. */
function seededApart<T>(runs: fc.Parameters<T>, index: number): fc.Parameters<T> {
  return runs.seed === undefined ? runs : { ...runs, seed: runs.seed + index };
}

function builtIndex(api: SpecName, kind: CheckKind): BuiltIndex {
  const file = new URL(`../../dist/checks/${api}.${kind}.json`, import.meta.url);
  return JSON.parse(readFileSync(file, 'utf8')) as BuiltIndex;
}

describe('the checks compiled by the build', () => {
  for (const api of SPEC_NAMES) {
    for (const kind of ['params', 'values'] as const) {
      const checks = checksOf(api, kind);
      it(
        `are used for every ${kind === 'params' ? 'parameter' : 'body and item'} check of the ${api} spec and answer as ajv's`,
        () => {
          const built = new SchemaChecks(documents, kind);
          // Copies of the documents have no digest: their checks are compiled by ajv, as before the build did it.
          const copies = Object.fromEntries(
            Object.entries(documents).map(([name, document]) => [name, { ...document }]),
          );
          const compiled = new SchemaChecks(copies, kind);
          const index = builtIndex(api, kind);
          expect(index.digest, 'built from the bundle read').toBe(bundleDigest(documents[api]));
          const compile = (source: SchemaChecks, check: Check) =>
            typeof check.compiled === 'string'
              ? source.component(api, check.compiled)
              : source.compile(api, check.compiled);
          for (const [position, check] of checks.entries()) {
            expect(index.checks, `${check.name} is built`).toHaveProperty([built.key(api, check.compiled)]);
            const fromBuild = compile(built, check);
            const fromAjv = compile(compiled, check);
            fc.assert(
              fc.property(withBroken(check.values), (value) => {
                expect(outcome(fromBuild, value), check.name).toEqual(outcome(fromAjv, value));
              }),
              seededApart(propertyRuns(RUNS_PER_CHECK, 0.05), position),
            );
          }
        },
        propertyTimeout(RUNS_PER_CHECK * checks.length, 20, 0.05),
      );
    }
  }
});
