// The emulator's state as one versioned document (JSON or YAML), for seeds committed next to tests:
//
//   format: platform-api-emulator-state
//   version: 1
//   resources: { <type>: [ <item>, ... ] }   # a sub-collection item names its parent in `$parent`
//   counters: { <type>: <last integer id given out> }   # optional
//
// Each part of the emulator that keeps state contributes a section (its top-level keys, sections.ts):
// the resource engine's store is below; the families whose state the domain keeps (topics with their
// messages, API clients and keys) have theirs in their family files (custom/topics.ts,
// custom/api-clients.ts), and the engine hands them out (stateSections).
import { randomUUID } from 'node:crypto';
import type { Awaitable } from '../awaitable.js';
import type { JsonObject, StoredItem, StoreSnapshot } from '../store/resource-store.js';
import type { ResourceEngine } from './engine.js';
import { isObject } from './schema.js';
import { StateError, type StateSection } from './sections.js';
import { countedId } from './vocabulary.js';

export { StateError, type StateSection } from './sections.js';

export const STATE_FORMAT = 'platform-api-emulator-state';
export const STATE_VERSION = 1;

export type StateDocument = JsonObject;

/** The state as one document: exported, loaded (replacing all of it), or reset to a fresh emulator's. */
export class StateAsDocument {
  private made: StateSection[] | undefined;

  constructor(
    /** Made on first use: the engine's sections need the engine, which may be made on first use too. */
    private readonly makeSections: () => StateSection[],
    /** What else a reset restores beyond the document's state (the bootstrap key, faults, journal, clock). */
    private readonly restoreRest: () => Awaitable<void> = () => undefined,
  ) {}

  private get sections(): StateSection[] {
    this.made ??= this.makeSections();
    return this.made;
  }

  async export(): Promise<StateDocument> {
    const parts = await Promise.all(this.sections.map((section) => section.export()));
    return Object.assign({ format: STATE_FORMAT, version: STATE_VERSION }, ...parts);
  }

  /** Replaces the whole state with the document's; nothing changes when it is refused (StateError). */
  async load(document: unknown): Promise<void> {
    if (!isObject(document)) throw new StateError('The state document must be an object');
    if (document.format !== undefined && document.format !== STATE_FORMAT)
      throw new StateError(`format must be '${STATE_FORMAT}'`);
    if (document.version !== STATE_VERSION) throw new StateError(`version must be ${STATE_VERSION}`);
    const known = new Set(['format', 'version', ...this.sections.flatMap((section) => section.keys)]);
    const unknown = Object.keys(document).filter((key) => !known.has(key));
    if (unknown.length > 0) throw new StateError(`Unknown keys ${unknown.join(', ')}`);
    const apply = [];
    for (const section of this.sections) {
      const part = Object.fromEntries(section.keys.map((key) => [key, document[key]]));
      apply.push(await section.prepare(part));
    }
    for (const step of apply) await step();
  }

  /** A fresh emulator: an empty state, and the rest as at start. */
  async reset(): Promise<void> {
    await this.load({ version: STATE_VERSION });
    await this.restoreRest();
  }
}

// The YAML parser is imported when a document is read or written (it costs more at start-up than the
// resource engine itself).

/** A state document from JSON or YAML text (JSON is YAML, so one parser reads both). */
export async function parseState(text: string): Promise<unknown> {
  const { parse } = await import('yaml');
  try {
    return parse(text);
  } catch (error) {
    throw new StateError(`The state document is neither JSON nor YAML: ${(error as Error).message}`);
  }
}

export async function stringifyState(document: StateDocument, format: 'json' | 'yaml'): Promise<string> {
  if (format === 'json') return `${JSON.stringify(document, null, 2)}\n`;
  const { stringify } = await import('yaml');
  return stringify(document);
}

/** Every section of the engine's state: its store's, then its families' (in the order of their keys). */
export function stateSections(engine: ResourceEngine): StateSection[] {
  return [resourceSection(engine), ...engine.familySections()];
}

/** The resource engine's section: `resources` and `counters` (the types its store holds). */
function resourceSection(engine: ResourceEngine): StateSection {
  return {
    keys: ['resources', 'counters'],
    async export() {
      const { items, counters } = await engine.store.snapshot();
      const resources = Object.fromEntries(
        Object.entries(items)
          .filter(([, list]) => list.length > 0)
          .map(([type, list]) => [
            type,
            list.map(({ parent, value }) => (parent === undefined ? value : { $parent: parent, ...value })),
          ]),
      );
      return { resources, counters };
    },
    prepare(part) {
      const snapshot = snapshotFrom(engine, part.resources ?? {}, part.counters ?? {});
      return () => engine.store.restore(snapshot);
    },
  };
}

function snapshotFrom(engine: ResourceEngine, resources: unknown, counters: unknown): StoreSnapshot {
  if (!isObject(resources)) throw new StateError('resources must map resource types to lists of items');
  if (!isObject(counters)) throw new StateError('counters must map resource types to integers');
  const snapshot: StoreSnapshot = { items: {}, counters: {} };
  for (const [typeName, entries] of Object.entries(resources)) {
    const type = engine.storedTypes.get(typeName);
    if (!type)
      throw new StateError(
        `resources.${typeName}: no such resource type (known: ${[...engine.storedTypes.keys()].join(', ')})`,
      );
    if (!Array.isArray(entries)) throw new StateError(`resources.${typeName} must be a list of items`);
    snapshot.items[typeName] = entries.map((entry, index) => {
      const where = `resources.${typeName}[${index}]`;
      if (!isObject(entry)) throw new StateError(`${where} must be an object`);
      const { $parent: parent, ...fields } = entry;
      if (type.parent && parent === undefined)
        throw new StateError(`${where}: $parent (a ${type.parent.type} id) is required`);
      const given = fields[type.id.field];
      if (given !== undefined && typeof given !== 'string' && typeof given !== 'number')
        throw new StateError(`${where}: ${type.id.field} must be a string or a number`);
      const id = given ?? (type.id.kind === 'uuid' ? randomUUID() : countedId(type, nextCounter(snapshot, typeName)));
      const value = engine.completeItem(typeName, fields, id, parent === undefined ? undefined : String(parent));
      const problems = engine.itemProblems(typeName, value);
      if (problems) throw new StateError(`${where}: ${problems}`);
      // A singleton is kept under its parent's id, or `workspace` for one per workspace, where gets look.
      const key = type.singleton ? String(parent ?? 'workspace') : String(id);
      return { id: key, parent: parent === undefined ? undefined : String(parent), value };
    });
  }
  checkParents(engine, snapshot);
  for (const [typeName, given] of Object.entries(counters)) {
    if (!Number.isSafeInteger(given) || (given as number) < 0)
      throw new StateError(`counters.${typeName} must be a non-negative integer`);
    snapshot.counters[typeName] = Math.max(given as number, snapshot.counters[typeName] ?? 0);
  }
  for (const [typeName, list] of Object.entries(snapshot.items)) {
    if (engine.types.get(typeName)?.id.kind === 'uuid') continue;
    const highest = Math.max(0, ...list.map((item) => integerSuffix(item.id)));
    snapshot.counters[typeName] = Math.max(snapshot.counters[typeName] ?? 0, highest);
  }
  return snapshot;
}

/** Ids left out of a seed are given in order, as creates would give them. */
function nextCounter(snapshot: StoreSnapshot, typeName: string): number {
  const next = (snapshot.counters[typeName] ?? 0) + 1;
  snapshot.counters[typeName] = next;
  return next;
}

function checkParents(engine: ResourceEngine, snapshot: StoreSnapshot): void {
  for (const [typeName, list] of Object.entries(snapshot.items)) {
    const parentType = engine.types.get(typeName)?.parent?.type;
    if (!parentType) continue;
    const parents = new Set((snapshot.items[parentType] ?? []).map((item: StoredItem) => item.id));
    const orphan = list.findIndex((item) => item.parent === undefined || !parents.has(item.parent));
    if (orphan >= 0)
      throw new StateError(`resources.${typeName}[${orphan}]: $parent names no ${parentType} of the document`);
  }
}

/** The counter an id uses: `7` and `gin-7` both count 7; a UUID counts nothing. */
function integerSuffix(id: string): number {
  const digits = /(?:^|-)(\d+)$/.exec(id)?.[1];
  return digits === undefined ? 0 : Number(digits);
}
