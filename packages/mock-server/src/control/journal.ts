// The request journal: the last N answered requests of the platform's APIs, for tests that check what
// their code sent, listed, filtered, verified and followed live, and the coverage counted from them. The requests are kept off the heap
// (journal-ring.ts) and become entries (journal-entry.ts, their credentials masked) when read.
import { DEFAULT_JOURNAL_SIZE } from '../options.js';
import { IsoTimeFormatter } from '../spec/date-time.js';
import { CoverageTally } from './coverage.js';
import { type JournalEntry, journalEntry } from './journal-entry.js';
import { type JournalFilter, passes } from './journal-filter.js';
import { type AnsweredRequest, JOURNAL_MAX_BYTES, RequestRing } from './journal-ring.js';

export type { JournalEntry } from './journal-entry.js';
export type { JournalFilter } from './journal-filter.js';
export type { AnsweredRequest } from './journal-ring.js';

export class Journal {
  private readonly ring: RequestRing;
  /** Entries built on first read, by slot (one whose id is not the slot's request's is stale). */
  private readonly built = new Map<number, JournalEntry>();
  private readonly listeners = new Set<(entry: JournalEntry) => void>();
  private readonly times = new IsoTimeFormatter();

  constructor(
    readonly size: number = DEFAULT_JOURNAL_SIZE,
    maxBytes = JOURNAL_MAX_BYTES,
    /** Counts each request recorded, for the coverage report; a clear of the journal leaves it. */
    readonly coverage = new CoverageTally(Date.now),
  ) {
    if (!Number.isSafeInteger(size) || size < 0) throw new TypeError(`journalSize must be a whole number, not ${size}`);
    this.ring = new RequestRing(size, maxBytes);
  }

  /** False with size 0: the pipeline then hands nothing over. */
  get enabled(): boolean {
    return this.size > 0;
  }

  record(answered: AnsweredRequest): void {
    this.coverage.count(answered.operationId, answered.status);
    const id = this.ring.write(answered);
    if (this.listeners.size > 0) {
      const entry = this.entryOf(id);
      for (const listener of this.listeners) listener(entry);
    }
  }

  /** The entries that pass the filter, oldest first: the first `limit`, and how many there are. */
  list(filter: JournalFilter, limit: number): { requests: JournalEntry[]; total: number } {
    const requests: JournalEntry[] = [];
    let total = 0;
    for (const entry of this.entries(filter.after)) {
      if (!passes(entry, filter)) continue;
      total++;
      if (requests.length < limit) requests.push(entry);
    }
    return { requests, total };
  }

  get(id: number): JournalEntry | undefined {
    return this.ring.holds(id) ? this.entryOf(id) : undefined;
  }

  /** Every entry kept, oldest first (after the given id). */
  *entries(after = 0): Generator<JournalEntry> {
    const { first, end } = this.ring.idsAfter(after);
    for (let id = first; id < end; id++) yield this.entryOf(id);
  }

  clear(): void {
    this.ring.clear();
    this.built.clear();
  }

  /** Calls `listener` with each entry recorded from now on; returns the unsubscribe. */
  subscribe(listener: (entry: JournalEntry) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  private entryOf(id: number): JournalEntry {
    const slot = (id - 1) % this.size;
    let entry = this.built.get(slot);
    if (entry?.id !== id) {
      entry = journalEntry(id, this.ring.kept(id), this.times);
      this.built.set(slot, entry);
    }
    return entry;
  }
}
