// The store engines the conformance suites run against: each opens a fresh store, closed after the test.
import { afterEach } from 'vitest';
import { MemoryStore } from '../../src/store/memory.js';
import type { MessageStore } from '../../src/store/message-store.js';
import { MemoryResourceStore, type ResourceStore } from '../../src/store/resource-store.js';
import { DataDir } from '../../src/store/sqlite/data-dir.js';
import { SqliteMessageStore } from '../../src/store/sqlite/messages.js';
import { SqliteResourceStore } from '../../src/store/sqlite/resources.js';
import { tempDir } from '../temp-dirs.js';

/** A store whose every method answers at once, as both engines' do: the suites read answers directly. */
export type Synchronous<Store> = {
  [Method in keyof Store]: Store[Method] extends (...args: infer Args) => infer Result
    ? (...args: Args) => Awaited<Result>
    : Store[Method];
};

const open: DataDir[] = [];
afterEach(async () => {
  for (const dataDir of open.splice(0)) await dataDir.close();
});

/** A data dir closed after the current test; `dir` reopens one (after closing the last). */
export async function openDataDir(dir = tempDir()): Promise<DataDir> {
  const dataDir = await DataDir.open(dir, 'relaxed');
  open.push(dataDir);
  return dataDir;
}

export async function closeDataDir(dataDir: DataDir): Promise<void> {
  open.splice(open.indexOf(dataDir), 1);
  await dataDir.close();
}

export interface Engine<Store> {
  name: string;
  open(clock?: () => number): Promise<Synchronous<Store>>;
}

export const messageStoreEngines: Engine<MessageStore>[] = [
  { name: 'MemoryStore', open: async (clock) => new MemoryStore(clock) },
  { name: 'SqliteMessageStore', open: async (clock) => new SqliteMessageStore(await openDataDir(), clock) },
];

export const resourceStoreEngines: Engine<ResourceStore>[] = [
  { name: 'MemoryResourceStore', open: async () => new MemoryResourceStore() },
  { name: 'SqliteResourceStore', open: async () => new SqliteResourceStore(await openDataDir()) },
];
