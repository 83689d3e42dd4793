/** How the client waits and retries; every field is optional. */
export interface RetryOptions {
  /** Attempts per request, the first one included (429, and 5xx, network errors or timeouts of retry-safe requests). Default 4. */
  maxAttempts?: number | undefined;
  /** A 429 asking to wait longer than this is returned (thrown) instead of waited for. Default 60 000 ms. */
  maxWaitMs?: number | undefined;
  /**
   * Wait before retry number `retry` (1, 2, ...) when the server gave no RETRY-AFTER. Default: full
   * jitter, a random wait up to 250 ms doubling per retry, at most 8 s.
   */
  backoffMs?: ((retry: number) => number) | undefined;
  /** Waits `ms`, rejecting with the signal's reason when it aborts. Injectable for tests. */
  sleep?: ((ms: number, signal?: AbortSignal) => Promise<void>) | undefined;
  /** Current time in ms since the epoch, for RETRY-AFTER dates. Default Date.now. */
  now?: (() => number) | undefined;
  /** A number in [0, 1) for the jitter of the default backoff. Default Math.random. */
  random?: (() => number) | undefined;
}

export type RetryPolicy = Required<RetryOptions>;

/** The ceiling of the default backoff before retry number `retry`: 250 ms doubling, at most 8 s. */
export const backoffCeilingMs = (retry: number): number => Math.min(250 * 2 ** (retry - 1), 8_000);

export function retryPolicy(options: RetryOptions = {}): RetryPolicy {
  const random = options.random ?? Math.random;
  return {
    maxAttempts: 4,
    maxWaitMs: 60_000,
    // Full jitter (a uniform wait between 0 and the ceiling), so that clients refused together do not retry together.
    backoffMs: (retry) => Math.round(backoffCeilingMs(retry) * (1 - random())),
    sleep: abortableSleep,
    now: Date.now,
    ...options,
    random,
  };
}

/** The policy with a request's own overrides, if any. */
export function withOverrides(policy: RetryPolicy, overrides: RetryOptions | undefined): RetryPolicy {
  return overrides ? { ...policy, ...overrides } : policy;
}

function abortableSleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    signal?.throwIfAborted();
    const onAbort = () => {
      clearTimeout(timer);
      reject(signal?.reason);
    };
    const timer = setTimeout(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}

/**
 * The wait a RETRY-AFTER header asks for, in ms: delay-seconds or an HTTP date (RFC 9110 10.2.3).
 * Undefined when absent or unreadable; a date in the past means no wait.
 */
export function retryAfterMs(response: Response, now: () => number = Date.now): number | undefined {
  const value = response.headers.get('retry-after')?.trim();
  if (!value) return undefined;
  if (/^\d+$/.test(value)) return Number(value) * 1000;
  // Every HTTP-date form starts with the day name; Date.parse alone would take "-5" as a year.
  const date = /^(Mon|Tue|Wed|Thu|Fri|Sat|Sun)/.test(value) ? Date.parse(value) : Number.NaN;
  return Number.isNaN(date) ? undefined : Math.max(0, date - now());
}
