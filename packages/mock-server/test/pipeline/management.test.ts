// The management operations' endpoints leave the resource engine unmade until an operation is called:
// the engine is made on first use (lazyResourceEngine), and a start that made it would lose fast-start.
import { describe, expect, it } from 'vitest';
import { createResourceEngine, lazyResourceEngine } from '../../src/engine/engine.js';
import { PrismBackend } from '../../src/http/prism.js';
import { createLogger } from '../../src/logger.js';
import { managementEndpoints } from '../../src/pipeline/management.js';
import { SchemaChecks } from '../../src/spec/checks.js';
import { RequestValidators } from '../../src/spec/validators.js';
import { specs } from '../support/helpers.js';

const validators = new RequestValidators(
  new SchemaChecks(specs.documents, 'params'),
  new SchemaChecks(specs.documents, 'values'),
);

function endpointsCountingEngines(prismMode: boolean) {
  let made = 0;
  const engine = lazyResourceEngine(() => {
    made++;
    return createResourceEngine(specs);
  });
  const prism = new PrismBackend('unused.json', createLogger('silent'));
  const endpoints = managementEndpoints(specs.operations, { engine, prism, prismMode }, validators);
  return { endpoints, made: () => made };
}

describe('the management endpoints', () => {
  for (const prismMode of [false, true]) {
    it(`are made without the engine, which the first look at one makes (${prismMode ? '--mode prism' : 'engine'})`, () => {
      const { endpoints, made } = endpointsCountingEngines(prismMode);
      expect(endpoints.map((endpoint) => endpoint.operationId)).toEqual(
        specs.operations.filter((op) => op.api === 'management').map((op) => op.operationId),
      );
      expect(made()).toBe(0);
      const topics = endpoints.find((endpoint) => endpoint.operationId === 'create_topic');
      // The topics family's, in either mode: its right and its checks before the body.
      expect(topics?.scope).toBe('topics:manage');
      expect(topics?.precheck).toBeTypeOf('function');
      expect(made()).toBe(1);
    });
  }
});
