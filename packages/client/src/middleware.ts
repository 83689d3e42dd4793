import type { Middleware } from 'openapi-fetch';
import { ConnectionError, type RequestLabel, TimeoutError } from './errors.js';
import type { Logger } from './log.js';
import type { RequestOptions, TokenProvider } from './options.js';
import { type RetryPolicy, retryAfterMs, withOverrides } from './retry.js';

export interface ResilienceOptions {
  auth: TokenProvider;
  retry: RetryPolicy;
  /** Per attempt, until the response headers arrive; 0 (or not finite) for none. */
  timeoutMs: number;
  logger?: Logger | undefined;
  /**
   * Whether a request may be sent again after a 5xx, a network error or a timeout, which do not say
   * whether the server acted on it. True for reads (consume, GET); never for publish, which could
   * store a message twice.
   */
  isRetrySafe: (method: string, schemaPath: string) => boolean;
}

/** What came back from one attempt. */
type Outcome = { response: Response; error?: never } | { error: unknown; response?: never };

/** What to do after an outcome: nothing more, renew the token and replay, or wait and resend. */
type Step = 'done' | 'renew' | { waitMs: number; reason: string };

/** One request across its attempts. */
interface Sent {
  label: RequestLabel;
  /** An unsent copy of the request (body included), cloned before fetch consumed the original. */
  copy: Request;
  /** The caller's signal: aborting it ends the request, unlike a timeout. */
  signal: AbortSignal;
  /**
   * The request openapi-fetch made, held while it is being answered: its signal follows the caller's
   * only while it is reachable (undici drops the link when the Request is collected, nodejs/undici#4068).
   */
  origin: Request;
  token: string;
  retrySafe: boolean;
  retry: RetryPolicy;
  timeoutMs: number;
  attempt: number;
  started: number;
  timer?: ReturnType<typeof setTimeout>;
  timedOut: boolean;
}

/**
 * openapi-fetch middleware: sets `Authorization: Bearer`, bounds each attempt by `timeoutMs`,
 * renews the token once and replays the request on a 401, waits for RETRY-AFTER and resends on a
 * 429, and resends retry-safe requests after a 5xx, a network error or a timeout with jittered
 * backoff. Attempts are bounded by the retry policy; every wait ends when the caller's AbortSignal
 * aborts. A request left without an answer fails with ConnectionError (TimeoutError for a timeout).
 * A request's own `timeoutMs` and `retry` (extra init fields, see RequestOptions) replace the client's.
 */
export function resilience({ auth, retry, timeoutMs, logger, isRetrySafe }: ResilienceOptions): Middleware {
  const sent = new WeakMap<Request, Sent>();

  /** A fresh copy of the request with the current token and, when timed, its own deadline. */
  function attempt(state: Sent): Request {
    state.timedOut = false;
    state.started = state.retry.now();
    let request = state.copy.clone();
    if (state.timeoutMs > 0 && Number.isFinite(state.timeoutMs)) {
      const deadline = new AbortController();
      request = new Request(request, { signal: AbortSignal.any([state.signal, deadline.signal]) });
      state.timer = setTimeout(() => {
        state.timedOut = true;
        deadline.abort();
      }, state.timeoutMs);
    }
    request.headers.set('Authorization', `Bearer ${state.token}`);
    return request;
  }

  /** The answer has come (or no answer will): the deadline no longer applies, and the attempt is logged. */
  function finish(state: Sent, outcome: Outcome): void {
    clearTimeout(state.timer);
    logger?.({
      type: 'request',
      ...state.label,
      attempt: state.attempt,
      ...(outcome.response ? { status: outcome.response.status } : { error: state.timedOut ? 'timeout' : 'network' }),
      durationMs: state.retry.now() - state.started,
    });
  }

  function send(fetch: (request: Request) => Promise<Response>, state: Sent): Promise<Outcome> {
    return fetch(attempt(state)).then(
      (response) => ({ response }),
      (error: unknown) => ({ error }),
    );
  }

  /** The final outcome as the caller sees it: the response, or a typed error for no answer. */
  function unwrap(state: Sent, outcome: Outcome): Response {
    if (outcome.response) return outcome.response;
    if (state.signal.aborted) throw outcome.error;
    if (state.timedOut) throw new TimeoutError(state.label, state.timeoutMs);
    throw new ConnectionError(state.label, outcome.error);
  }

  function nextStep(state: Sent, outcome: Outcome, renewed: boolean): Step {
    const { response } = outcome;
    if (response?.status === 401) return auth.renew && !renewed ? 'renew' : 'done';
    if (state.attempt >= state.retry.maxAttempts || state.signal.aborted) return 'done';
    if (response?.status === 429) {
      const waitMs = retryAfterMs(response, state.retry.now) ?? state.retry.backoffMs(state.attempt);
      return waitMs <= state.retry.maxWaitMs ? { waitMs, reason: '429' } : 'done';
    }
    if (!state.retrySafe || (response && response.status < 500)) return 'done';
    const reason = response ? String(response.status) : state.timedOut ? 'timeout' : 'network';
    return { waitMs: state.retry.backoffMs(state.attempt), reason };
  }

  async function settle(state: Sent, first: Outcome, fetch: (request: Request) => Promise<Response>) {
    let outcome = first;
    let renewed = false;
    for (;;) {
      finish(state, outcome);
      const step = nextStep(state, outcome, renewed);
      if (step === 'done') return unwrap(state, outcome);
      if (step === 'renew') {
        if (!auth.renew) return unwrap(state, outcome); // nextStep answers 'renew' only when it exists
        await outcome.response?.body?.cancel();
        logger?.({ type: 'retry', ...state.label, attempt: state.attempt, waitMs: 0, reason: '401' });
        state.token = await auth.renew(state.token);
        renewed = true;
      } else {
        await outcome.response?.body?.cancel();
        state.attempt += 1;
        logger?.({ type: 'retry', ...state.label, attempt: state.attempt, waitMs: step.waitMs, reason: step.reason });
        await state.retry.sleep(step.waitMs, state.signal);
      }
      outcome = await send(fetch, state);
    }
  }

  /** The request's state, taken once: openapi-fetch passes a response made in onError through onResponse again. */
  function take(request: Request): Sent | undefined {
    const state = sent.get(request);
    sent.delete(request);
    return state;
  }

  return {
    async onRequest({ request, schemaPath }) {
      const own = request as Request & RequestOptions;
      const state: Sent = {
        label: { method: request.method, path: schemaPath },
        copy: request.clone(),
        signal: request.signal,
        origin: request,
        token: await auth.getToken(),
        retrySafe: isRetrySafe(request.method, schemaPath),
        retry: withOverrides(retry, own.retry),
        timeoutMs: own.timeoutMs ?? timeoutMs,
        attempt: 1,
        started: 0,
        timedOut: false,
      };
      const first = attempt(state);
      sent.set(first, state);
      return first;
    },
    onResponse({ request, response, options }) {
      const state = take(request);
      return state ? settle(state, { response }, options.fetch) : undefined;
    },
    async onError({ request, error, options }) {
      const state = take(request);
      if (!state) return undefined;
      try {
        return await settle(state, { error }, options.fetch);
      } catch (failure) {
        return failure instanceof Error ? failure : new Error(String(failure));
      }
    },
  };
}
