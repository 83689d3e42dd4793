// A part of the state document (engine/state-document.ts): the resource engine's `resources` and `counters`,
// and the sections of the families whose state the domain keeps (topics with their messages, API
// clients and keys). Also the checks those families' sections share. Imports nothing of the engine, so
// the families (custom/) and the document (state-document.ts) both use it without an import circle.
import type { ValidateFunction } from 'ajv/dist/2020.js';
import type { Awaitable } from '../awaitable.js';
import type { SchemaChecks } from '../spec/checks.js';
import { violations } from '../spec/validators.js';
import type { JsonObject } from '../store/resource-store.js';
import { isObject } from './schema.js';

/** A refused state document: the message names the entry at fault. */
export class StateError extends Error {}

export interface StateSection {
  /** The document's top-level keys this section owns. */
  readonly keys: readonly string[];
  export(): Awaitable<JsonObject>;
  /**
   * Checks the section's part of a document (its keys; absent ones mean empty) and returns what
   * applies it, so that a document is applied only once every section accepted it.
   */
  prepare(part: JsonObject): Awaitable<() => Awaitable<void>>;
}

/**
 * Holds a record of a state document to one of the management spec's component schemas: `answered`,
 * the answer the record stands for (default the record itself), must match it; StateError names the
 * entry at fault.
 */
export type RecordCheck<T extends object> = (where: string, record: object, answered?: object) => asserts record is T;

export function schemaCheck<T extends object>(checks: SchemaChecks, schemaName: string): RecordCheck<T> {
  let validate: ValidateFunction | undefined;
  return (where, record, answered = record) => {
    validate ??= checks.component('management', `#/components/schemas/${schemaName}`);
    if (validate(answered)) return;
    const problems = violations(validate.errors).map((v) => `${v.pointer} ${v.message}`);
    throw new StateError(`${where}: ${problems.join('; ')}`);
  };
}

/** The entries under a top-level key: a list of objects, empty when absent. */
export function listOf(part: JsonObject, key: string): JsonObject[] {
  const list = part[key] ?? [];
  if (!Array.isArray(list)) throw new StateError(`${key} must be a list`);
  list.forEach((entry, index) => {
    if (!isObject(entry)) throw new StateError(`${key}[${index}] must be an object`);
  });
  return list as JsonObject[];
}

/** Ids as given (positive integers, unique), and the next ones for the entries without. */
export function assignIds(key: string, entries: JsonObject[], taken: Set<number>): number[] {
  const given = new Set(taken);
  entries.forEach((entry, index) => {
    if (entry.id === undefined) return;
    if (!Number.isSafeInteger(entry.id) || (entry.id as number) < 1)
      throw new StateError(`${key}[${index}]: id must be a positive integer`);
    if (given.has(entry.id as number)) throw new StateError(`${key}[${index}]: id ${entry.id} is taken`);
    given.add(entry.id as number);
  });
  let next = Math.max(0, ...given) + 1;
  return entries.map((entry) => (entry.id === undefined ? next++ : (entry.id as number)));
}
