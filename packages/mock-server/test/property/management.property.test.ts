// Every management operation (the resource engine's 214 and the hand-written 24) under generated
// requests: path ids that name items created from the spec's examples or none, query parameters from
// their schemas, and bodies from the spec's examples or its schemas, half of them mutated (types, sizes,
// nesting, bytes, encodings, headers, odd ids, credentials). Whatever the state, every answer is one the
// operation declares, with a body valid against its schema: never a 5xx or a hang (but the 501 of an
// operation the spec says the emulator cannot carry out), and an id that is no id is never answered 2xx. `npm run fuzz` runs it with FUZZ_RUNS too (a quarter of them).
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { MockServer } from '../../src/index.js';
import type { Operation } from '../../src/spec/bundles.js';
import {
  assertConforms,
  call,
  exampleBody,
  exampleParameter,
  type OperationId,
  specs,
  start,
  token,
} from '../support/helpers.js';
import { type Draw, mutate, type Planned, queryString } from '../support/property/requests.js';
import { propertyRuns, propertyTimeout } from '../support/property/runs.js';
import { schemaArbitrary } from '../support/property/schema-arbitrary.js';
import { send } from '../support/property/send.js';

const NOW = Date.parse('2026-11-23T09:00:00Z');
const RUNS = 12;
const FUZZ_SHARE = 0.25;
const document = specs.documents.management;
const MANAGEMENT = specs.operations.filter((op) => op.api === 'management');
const CREATES = MANAGEMENT.filter((op) => op.method === 'post' && !op.path.endsWith('}'));

describe('every management operation, under generated requests', () => {
  it(
    'answers as its spec declares, never a 5xx, and never 2xx for an id that is no id',
    async () => {
      await fc.assert(
        fc.asyncProperty(fc.gen(), async (g) => {
          const draw: Draw = (arbitrary) => g(() => arbitrary);
          const server = await start({ clock: () => NOW });
          const admin = await token(server);
          await createFromExamples(server, admin);
          const steps = draw(fc.integer({ min: 10, max: 40 }));
          for (let step = 0; step < steps; step++) {
            const planned = plan(draw, draw(fc.constantFrom(...MANAGEMENT)), admin);
            if (draw(fc.boolean())) mutate(draw, planned);
            const answer = await send(server, planned);
            const context = `${planned.method} ${planned.url} ${planned.bytes ? Buffer.from(planned.bytes).toString('utf8').slice(0, 300) : ''} -> ${answer.status} ${JSON.stringify(answer.body)?.slice(0, 300)}`;
            if (!isDeclaredRefusal(planned.operationId, answer.status))
              expect(answer.status, context).toBeLessThan(500);
            assertConforms(planned.operationId as OperationId, answer);
            if (planned.oddId) expect(answer.status, context).toBeGreaterThanOrEqual(300);
          }
          await server.close();
        }),
        propertyRuns(RUNS, FUZZ_SHARE),
      );
    },
    propertyTimeout(RUNS, 4000, FUZZ_SHARE),
  );
});

const BY_ID = new Map(MANAGEMENT.map((op) => [op.operationId, op]));

/** A 501 the operation's spec declares: the emulator refuses what it cannot carry out (NotEmulated), never fakes it. */
function isDeclaredRefusal(operationId: string, status: number): boolean {
  return status === 501 && BY_ID.get(operationId)?.responses['501'] !== undefined;
}

/** Items to act on: each create operation's example request, twice (the second finds the first's references). */
async function createFromExamples(server: MockServer, admin: string): Promise<void> {
  for (let round = 0; round < 2; round++) {
    for (const op of CREATES) {
      const params = Object.fromEntries(pathParameters(op).map((p) => [p.name, exampleParameter(p)]));
      await call(server, op.operationId as OperationId, { token: admin, params, body: exampleBody(op) ?? {} });
    }
  }
}

function plan(draw: Draw, operation: Operation, admin: string): Planned {
  const pathParams = Object.fromEntries(
    pathParameters(operation).map((p) => [p.name, draw(fc.constantFrom(exampleParameter(p), '1', '2', '999999'))]),
  );
  const path = operation.path.replace(/\{([^}]+)\}/g, (_, name: string) => encodeURIComponent(pathParams[name] ?? ''));
  const query = queryString(draw, operation);
  const planned: Planned = {
    operationId: operation.operationId,
    operation,
    method: operation.method.toUpperCase(),
    pathParams,
    url: query ? `${path}?${query}` : path,
    headers: { authorization: `Bearer ${admin}` },
    bytes: undefined,
    body: undefined,
    bearer: admin,
    mutated: false,
  };
  const schema = operation.requestBody?.content?.['application/json']?.schema;
  if (schema) {
    const example = exampleBody(operation);
    const generated = schemaArbitrary(document, schema);
    const body = draw(example === undefined ? generated : fc.oneof(fc.constant(example), generated));
    planned.body = body;
    planned.bytes = Buffer.from(JSON.stringify(body) ?? '');
    planned.headers['content-type'] = 'application/json';
  }
  return planned;
}

const pathParameters = (op: Operation) => op.parameters.filter((p) => p.in === 'path');
