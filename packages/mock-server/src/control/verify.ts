// POST /_emulator/requests/verify: counts the journal entries that match, waiting for enough of them
// when asked, and explains a failure with the entries that came closest and what differed in each.
import type { components } from '@platform-api/spec/types/emulator';
import type { Journal, JournalEntry } from './journal.js';
import { pathMatches } from './journal-filter.js';

type Verification = components['schemas']['Verification'];
type RequestMatch = components['schemas']['RequestMatch'];
export type VerificationFailure = components['schemas']['VerificationFailure'];

export type Outcome =
  | { holds: true; result: components['schemas']['VerificationResult'] }
  | { holds: false; failure: VerificationFailure };

const NEAR_MISSES = 3;

/** Settles once `count.min` entries match or `wait_ms` has passed (at once with 0), or when `gone` fires. */
export function verify(journal: Journal, verification: Verification, gone: AbortSignal): Promise<Outcome> {
  const match = verification.match ?? {};
  const min = verification.count?.min ?? 1;
  const max = verification.count?.max;
  const waitMs = verification.wait_ms ?? 0;
  const matching = () => [...journal.entries()].filter((entry) => differences(entry, match).length === 0);
  const outcome = (): Outcome => {
    const requests = matching();
    const matched = requests.length;
    if (matched >= min && (max === undefined || matched <= max)) return { holds: true, result: { matched, requests } };
    return { holds: false, failure: failure(journal, match, min, max, requests) };
  };
  if (waitMs === 0 || matching().length >= min) return Promise.resolve(outcome());
  return new Promise((resolve) => {
    let matched = matching().length;
    const finish = () => {
      unsubscribe();
      clearTimeout(timer);
      gone.removeEventListener('abort', finish);
      resolve(outcome());
    };
    const unsubscribe = journal.subscribe((entry) => {
      if (differences(entry, match).length === 0 && ++matched >= min) finish();
    });
    const timer = setTimeout(finish, waitMs);
    gone.addEventListener('abort', finish);
  });
}

function failure(
  journal: Journal,
  match: RequestMatch,
  min: number,
  max: number | undefined,
  requests: JournalEntry[],
): VerificationFailure {
  const matched = requests.length;
  const wanted = max === undefined ? `at least ${min}` : min === max ? `exactly ${min}` : `${min} to ${max}`;
  const noun = min === 1 && (max === undefined || max === 1) ? 'request' : 'requests';
  const found = matched === 1 ? '1 request matches' : `${matched} requests match`;
  const message = `Expected ${wanted} ${noun} matching ${JSON.stringify(match)}; ${found}`;
  // Near misses explain a shortfall; with too many matches, the matches are the explanation.
  if (matched > (max ?? Number.POSITIVE_INFINITY)) return { message, matched, requests, near_misses: [] };
  const near = [...journal.entries()]
    .map((request) => ({ request, differences: differences(request, match) }))
    .filter((miss) => miss.differences.length > 0)
    // The fewest differences first; among equals, the latest request.
    .sort((a, b) => a.differences.length - b.differences.length || b.request.id - a.request.id)
    .slice(0, NEAR_MISSES);
  return { message, matched, requests, near_misses: near };
}

/** What differs between the entry and the match, one line each; none when it matches. */
export function differences(entry: JournalEntry, match: RequestMatch): string[] {
  const found: string[] = [];
  const compare = (name: string, actual: unknown, want: unknown) => {
    if (want !== undefined && actual !== want) found.push(`${name}: ${shown(actual)}, want ${shown(want)}`);
  };
  compare('operation', entry.operation, match.operation);
  compare('method', entry.method, match.method?.toUpperCase());
  if (match.path !== undefined && !pathMatches(entry.path, match.path)) {
    found.push(`path: ${shown(entry.path)}, want ${shown(match.path)}`);
  }
  compare('status', entry.response.status, match.status);
  compare('client_id', entry.client_id, match.client_id);
  for (const [name, want] of Object.entries(match.query ?? {})) {
    const actual = entry.query[name];
    compare(`query.${name}`, Array.isArray(actual) ? actual.join(',') : actual, want);
  }
  if (match.body !== undefined) subsetDifferences('body', entry.request.body, match.body, found);
  return found;
}

/** Each member of `want` is in `actual` with an equal value, recursively; arrays item by item. */
function subsetDifferences(at: string, actual: unknown, want: unknown, found: string[]): void {
  if (Array.isArray(want)) {
    if (!Array.isArray(actual) || actual.length !== want.length) {
      found.push(`${at}: ${shown(actual)}, want ${shown(want)}`);
      return;
    }
    for (const [index, item] of want.entries()) subsetDifferences(`${at}[${index}]`, actual[index], item, found);
    return;
  }
  if (typeof want === 'object' && want !== null) {
    if (typeof actual !== 'object' || actual === null || Array.isArray(actual)) {
      found.push(`${at}: ${shown(actual)}, want ${shown(want)}`);
      return;
    }
    for (const [name, member] of Object.entries(want)) {
      const has = Object.hasOwn(actual, name);
      if (!has) found.push(`${at}.${name}: absent, want ${shown(member)}`);
      else subsetDifferences(`${at}.${name}`, (actual as Record<string, unknown>)[name], member, found);
    }
    return;
  }
  if (actual !== want) found.push(`${at}: ${shown(actual)}, want ${shown(want)}`);
}

/** A string in single quotes, anything else as JSON; absent for undefined. */
function shown(value: unknown): string {
  if (value === undefined) return 'absent';
  return typeof value === 'string' ? `'${value}'` : JSON.stringify(value);
}
