// The resource types hand-written code may name (src/generated/resource-types.ts, which tsc holds it to)
// are the types the engine reads from the bundled spec.
import { expect, it } from 'vitest';
import { createResourceEngine } from '../../src/engine/engine.js';
import { RESOURCE_TYPES } from '../../src/generated/resource-types.js';
import { specs } from '../helpers.js';

it('RESOURCE_TYPES names exactly the types the engine reads from the spec', () => {
  const read = [...createResourceEngine(specs).types.keys()].sort();
  expect(Object.keys(RESOURCE_TYPES)).toEqual(read);
});
