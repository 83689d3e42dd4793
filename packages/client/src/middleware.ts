import type { Middleware } from 'openapi-fetch';
import type { TokenProvider } from './auth.js';
import { type RetryPolicy, retryAfterMs } from './retry.js';

export interface ResilienceOptions {
  auth: TokenProvider;
  retry: RetryPolicy;
  /**
   * Whether a request may be sent again after a 5xx or a network error, which do not say whether
   * the server acted on it. True for reads (consume, GET); never for publish, which could store a
   * message twice.
   */
  isRetrySafe: (method: string, schemaPath: string) => boolean;
}

/** What came back from one attempt. */
type Outcome = { response: Response; error?: never } | { error: unknown; response?: never };

/** What to do after an outcome: nothing more, renew the token and replay, or wait and resend. */
type Step = 'done' | 'renew' | { waitMs: number };

interface Sent {
  /** An unsent copy of the request (body included), cloned before fetch consumed the original. */
  copy: Request;
  token: string;
  retrySafe: boolean;
}

/** Sends a fresh copy of the request with the current token. */
function send(fetch: (request: Request) => Promise<Response>, state: Sent): Promise<Outcome> {
  const replay = state.copy.clone();
  replay.headers.set('Authorization', `Bearer ${state.token}`);
  return fetch(replay).then(
    (response) => ({ response }),
    (error: unknown) => ({ error }),
  );
}

function unwrap(outcome: Outcome): Response {
  if (outcome.response) return outcome.response;
  throw outcome.error;
}

/**
 * openapi-fetch middleware: sets `Authorization: Bearer`, renews the token once and replays the
 * request on a 401, waits for RETRY-AFTER and resends on a 429, and resends retry-safe requests
 * after a 5xx or a network error with backoff. Attempts are bounded by the retry policy and every
 * wait ends when the request's AbortSignal aborts.
 */
export function resilience({ auth, retry, isRetrySafe }: ResilienceOptions): Middleware {
  const sent = new WeakMap<Request, Sent>();

  function nextStep(outcome: Outcome, sentState: Sent, attempt: number, renewed: boolean): Step {
    const { response } = outcome;
    if (response?.status === 401) return auth.renew && !renewed ? 'renew' : 'done';
    if (attempt >= retry.maxAttempts) return 'done';
    if (response?.status === 429) {
      const waitMs = retryAfterMs(response, retry.now) ?? retry.backoffMs(attempt);
      return waitMs <= retry.maxWaitMs ? { waitMs } : 'done';
    }
    const transient = outcome.error !== undefined || (response?.status ?? 0) >= 500;
    return transient && sentState.retrySafe ? { waitMs: retry.backoffMs(attempt) } : 'done';
  }

  async function settle(
    request: Request,
    first: Outcome,
    fetch: (request: Request) => Promise<Response>,
  ): Promise<Response> {
    const state = sent.get(request);
    // Settled once: openapi-fetch passes a response made in onError through onResponse again.
    sent.delete(request);
    if (!state) return unwrap(first);
    let outcome = first;
    let renewed = false;
    for (let attempt = 1; ; ) {
      const step = nextStep(outcome, state, attempt, renewed);
      if (step === 'done') return unwrap(outcome);
      await outcome.response?.body?.cancel();
      if (step === 'renew') {
        state.token = await auth.renew!(state.token);
        renewed = true;
      } else {
        await retry.sleep(step.waitMs, request.signal);
        attempt += 1;
      }
      outcome = await send(fetch, state);
    }
  }

  return {
    async onRequest({ request, schemaPath }) {
      const token = await auth.getToken();
      request.headers.set('Authorization', `Bearer ${token}`);
      sent.set(request, { copy: request.clone(), token, retrySafe: isRetrySafe(request.method, schemaPath) });
      return request;
    },
    onResponse({ request, response, options }) {
      return settle(request, { response }, options.fetch);
    },
    onError({ request, error, options }) {
      // An aborted request is not an error to retry.
      if (request.signal.aborted) return error instanceof Error ? error : new Error(String(error));
      return settle(request, { error }, options.fetch);
    },
  };
}
