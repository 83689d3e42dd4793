// The bundles an emulator serves, parsed, and the checks compiled from them: shared by every emulator
// of the process made from the same files, so a suite that starts an emulator per test parses and
// compiles them once (BENCHMARKS.md, item 10). The documents are frozen once shared: no emulator can
// change what another reads. A bundle rewritten (the dev loop's save) makes a new entry,
// and only the newest few are kept.
import { statSync } from 'node:fs';
import {
  deref,
  loadEmulatorSpec,
  loadSpecs,
  type OpenApiDocument,
  type Operation,
  type SchemaObject,
  SPEC_NAMES,
  type Specs,
  specFilePath,
} from './bundles.js';
import { SchemaChecks } from './checks.js';
import { RequestValidators } from './validators.js';

export interface SharedSpecs {
  specs: Specs;
  /** The platform's operations by id: every tenant's faults name theirs so. */
  operationsById: ReadonlyMap<string, Operation>;
  /** Not coercing: request bodies and stored items. */
  valueChecks: SchemaChecks;
  /** The platform's request checks, with the batch publish body's `maxItems` set to the configured limit. */
  requestValidators(maxBatchMessages: number): RequestValidators;
  /** The emulator's own API (/_emulator/*): its document, operations and request checks. */
  emulator: { document: OpenApiDocument; operations: Operation<'emulator'>[]; validators: RequestValidators };
}

/** A test run's bundles and the dev loop's last save or two. */
const KEPT = 3;
const entries = new Map<string, SharedSpecs>();

export function sharedSpecs(specDir?: string): SharedSpecs {
  const key = SPEC_NAMES.map((api) => {
    const file = specFilePath(api, specDir);
    const { ino, size, mtimeMs } = statSync(file);
    return `${file} ${ino} ${size} ${mtimeMs}`;
  }).join('\n');
  const entry = entries.get(key);
  if (entry) {
    // Frozen once a second emulator shares them: a lone emulator (the command line's) does not pay for it.
    deepFreeze(entry.specs);
    deepFreeze(entry.emulator.document);
    return entry;
  }
  const loaded = load(specDir);
  entries.set(key, loaded);
  for (const oldest of entries.keys()) if (entries.size > KEPT) entries.delete(oldest);
  return loaded;
}

function load(specDir: string | undefined): SharedSpecs {
  const specs = loadSpecs(specDir);
  const emulatorSpec = loadEmulatorSpec(specDir);
  const valueChecks = new SchemaChecks(specs.documents, 'values');
  const paramChecks = new SchemaChecks(specs.documents, 'params');
  const byBatchLimit = new Map<number, RequestValidators>();
  const emulatorDocuments = { emulator: emulatorSpec.document };
  return {
    specs,
    operationsById: new Map(specs.operations.map((op) => [op.operationId, op])),
    valueChecks,
    requestValidators(maxBatchMessages) {
      let validators = byBatchLimit.get(maxBatchMessages);
      if (!validators) {
        validators = new RequestValidators(paramChecks, valueChecks, (operationId, schema) =>
          operationId === 'publish_messages_batch' ? withBatchLimit(specs, schema, maxBatchMessages) : schema,
        );
        byBatchLimit.set(maxBatchMessages, validators);
      }
      return validators;
    },
    emulator: {
      ...emulatorSpec,
      validators: new RequestValidators(
        new SchemaChecks(emulatorDocuments, 'params'),
        new SchemaChecks(emulatorDocuments, 'values'),
      ),
    },
  };
}

function withBatchLimit(specs: Specs, schema: SchemaObject, maxItems: number): SchemaObject {
  const document = specs.documents['event-streams'];
  const resolved = deref(document, schema);
  const payloads = resolved.properties?.payloads;
  if (!payloads) throw new Error('The batch publish body of the event-streams spec has no payloads');
  return { ...resolved, properties: { ...resolved.properties, payloads: { ...deref(document, payloads), maxItems } } };
}

function deepFreeze(value: unknown): void {
  if (typeof value === 'object' && value !== null && !Object.isFrozen(value)) {
    Object.freeze(value);
    for (const child of Object.values(value)) deepFreeze(child);
  }
}
