// The resource types hand-written code may name (src/generated/resource-types.ts, which tsc holds it to)
// are the types the engine reads from the bundled spec.
import { copyFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { expect, it } from 'vitest';
import { createResourceEngine } from '../../src/engine/engine.js';
import { RESOURCE_TYPES } from '../../src/generated/resource-types.js';
import { startMockServer } from '../../src/index.js';
import { SPEC_NAMES, specFilePath } from '../../src/spec/bundles.js';
import { specs } from '../support/helpers.js';
import { tempDir } from '../support/temp-dirs.js';

it('RESOURCE_TYPES names exactly the types the engine reads from the spec', () => {
  const read = [...createResourceEngine(specs).types.keys()].sort();
  expect(Object.keys(RESOURCE_TYPES)).toEqual(read);
});

it('serves the types the domain keeps (topics, API clients and keys) by their families only, outside its store', () => {
  const engine = createResourceEngine(specs);
  const kept = ['api_client', 'api_key', 'topic'];
  expect([...engine.types.keys()].filter((name) => !engine.storedTypes.has(name)).sort()).toEqual(kept);
  // An annotation that would have the engine's store serve one of them stops the start, naming the operation.
  const management = structuredClone(specs.documents.management);
  const topics = management.paths['/api/event_streams/topics'] as Record<string, Record<string, unknown>>;
  const listTopics = topics.get as Record<string, unknown>;
  listTopics['x-resource'] = { type: 'topic', op: 'list' };
  const edited = { ...specs, documents: { ...specs.documents, management } };
  expect(() => createResourceEngine(edited)).toThrow(
    'operation list_topics: the domain keeps the topics; only their family',
  );
});

it('reads the vocabulary of a spec the build did not see at start: a mistake in it stops the start', async () => {
  // The bundled spec's was read by the build (scripts/build-checks.mjs), so its emulators read it at
  // their first management request; one served from another folder (--spec-dir) is read at once.
  const specDir = tempDir();
  for (const api of SPEC_NAMES) copyFileSync(specFilePath(api), join(specDir, `${api}.json`));
  const management = structuredClone(specs.documents.management);
  const folders = management.paths['/api/folders'] as Record<string, Record<string, unknown>>;
  (folders.get as Record<string, unknown>)['x-resource'] = { type: 'folder', op: 'sort' };
  writeFileSync(join(specDir, 'management.json'), JSON.stringify(management));
  await expect(startMockServer({ specDir })).rejects.toThrow("operation list_folders: unknown op 'sort'");
});
