// The filters of the journal's list (GET /_emulator/requests) and of a verification's match: an
// operation, a method, a path (a prefix when it ends in `*`), a status, a client ID.
import type { operations } from '@platform-api/spec/types/emulator';
import type { JournalEntry } from './journal-entry.js';

/** The filters of `GET /_emulator/requests` (its parameters but the page's `limit`). */
export type JournalFilter = Omit<NonNullable<operations['list_requests']['parameters']['query']>, 'limit'>;

/** Whether the entry passes every filter given. */
export function passes(entry: JournalEntry, filter: JournalFilter): boolean {
  if (filter.operation !== undefined && entry.operation !== filter.operation) return false;
  if (filter.method !== undefined && entry.method !== filter.method.toUpperCase()) return false;
  if (filter.status !== undefined && entry.response.status !== filter.status) return false;
  if (filter.client_id !== undefined && entry.client_id !== filter.client_id) return false;
  return filter.path === undefined || pathMatches(entry.path, filter.path);
}

/** Exact, or a prefix when the pattern ends in `*`. */
export function pathMatches(path: string, pattern: string): boolean {
  return pattern.endsWith('*') ? path.startsWith(pattern.slice(0, -1)) : path === pattern;
}
