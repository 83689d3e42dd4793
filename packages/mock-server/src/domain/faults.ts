// Fault injection for client tests: make the next calls of an operation fail with a chosen status,
// or make chosen positions of the next batch publishes fail; and the error each injected fault
// becomes, in the shape the operation's spec declares for that status.
import {
  EMITTED_ERROR_CODES,
  type EmulatorError,
  type ErrorCode,
  INTERNAL_ERROR_CODES,
  InjectedFault,
  InternalFault,
  OAuthError,
  PayloadTooLarge,
} from '../errors.js';
import type { Operation } from '../spec/bundles.js';
import type { Limits } from './limits.js';

export interface FaultSpec {
  status: number;
  /** details.code of the error body; defaults to the usual code of the status. */
  code?: string;
  /** Seconds for RETRY-AFTER of a 429 (default 1). */
  retryAfter?: number;
}

/**
 * A fault to arm: what the next requests to an operation are answered, and how many of them. The one
 * spelling of `server.faults.failNext`, the test kit's `faults.failNext` and `POST /_emulator/faults`
 * (`{operation, status, code, retry_after, times}`).
 */
export interface Fault extends FaultSpec {
  /** How many of the next requests fail (default 1). */
  times?: number;
}

export interface BatchFault {
  positions: ReadonlySet<number>;
  /** true: the positions get no entry at all in message_ids; false: a `failure` entry. */
  omit: boolean;
}

interface Queued<T> {
  value: T;
  times: number;
}

/** Checks that a fault can be answered in the shapes the operation's spec declares. */
export type FaultCheck = (operationId: string, fault: FaultSpec) => string | undefined;

export class Faults {
  private readonly byOperation = new Map<string, Queued<FaultSpec>[]>();
  private readonly batches: Queued<BatchFault>[] = [];

  constructor(private readonly check: FaultCheck = () => undefined) {}

  /** The next `times` calls of the operation fail as described (queued after earlier faults). */
  failNext(operationId: string, fault: Fault): void;
  /** @deprecated Give `times` in the fault: `failNext(operation, { status, times })`. */
  failNext(operationId: string, fault: FaultSpec, options: { times?: number }): void;
  failNext(operationId: string, fault: Fault, options: { times?: number } = {}): void {
    const { times = options.times, ...answer } = fault;
    const problem = this.check(operationId, answer);
    if (problem) throw new TypeError(problem);
    const queue = this.byOperation.get(operationId) ?? [];
    queue.push({ value: answer, times: positiveTimes(times) });
    this.byOperation.set(operationId, queue);
  }

  /** The next `times` batch publishes fail at these 0-based positions. */
  failBatchPositions(positions: number[], options: { times?: number; omit?: boolean } = {}): void {
    if (!positions.every((p) => Number.isInteger(p) && p >= 0)) {
      throw new TypeError('Batch fault positions must be non-negative integers');
    }
    this.batches.push({
      value: { positions: new Set(positions), omit: options.omit ?? false },
      times: positiveTimes(options.times),
    });
  }

  /** The faults not yet used up, in the order they will be served, with the uses each has left. */
  pending(): {
    operations: { operationId: string; fault: FaultSpec; times: number }[];
    batches: { fault: BatchFault; times: number }[];
  } {
    return {
      operations: [...this.byOperation].flatMap(([operationId, queue]) =>
        queue.map(({ value, times }) => ({ operationId, fault: { ...value }, times })),
      ),
      batches: this.batches.map(({ value, times }) => ({ fault: value, times })),
    };
  }

  clear(): void {
    this.byOperation.clear();
    this.batches.length = 0;
  }

  /** Consumes one use of the first fault queued for the operation. */
  takeFault(operationId: string): FaultSpec | undefined {
    const queue = this.byOperation.get(operationId);
    return queue && take(queue);
  }

  takeBatchFault(): BatchFault | undefined {
    return take(this.batches);
  }
}

function take<T>(queue: Queued<T>[]): T | undefined {
  const first = queue[0];
  if (!first) return undefined;
  if (--first.times === 0) queue.shift();
  return first.value;
}

function positiveTimes(times = 1): number {
  if (!Number.isInteger(times) || times < 1) throw new TypeError('times must be a positive integer');
  return times;
}

const DEFAULT_CODES: Record<number, ErrorCode> = {
  400: 'INVALID_REQUEST',
  401: 'INVALID_TOKEN',
  403: 'FORBIDDEN',
  404: 'TOPIC_NOT_FOUND',
  429: 'RATE_LIMITED',
};

/** Why the fault cannot be answered as the operation's spec requires, or undefined when it can. */
export function faultProblem(operation: Operation | undefined, fault: FaultSpec): string | undefined {
  if (!operation) return 'Unknown operation: use an operationId of the specs';
  if (fault.retryAfter !== undefined && !(Number.isSafeInteger(fault.retryAfter) && fault.retryAfter >= 0)) {
    return `retryAfter must be a whole number of seconds, not ${JSON.stringify(fault.retryAfter)}`;
  }
  if (!operation.responses[String(fault.status)] || fault.status < 400) {
    return `${operation.operationId} declares no ${fault.status} error response`;
  }
  if (operation.api !== 'event-streams' || fault.code === undefined) return undefined;
  const allowed: readonly string[] = fault.status === 500 ? INTERNAL_ERROR_CODES : EMITTED_ERROR_CODES;
  return allowed.includes(fault.code) ? undefined : `code must be one of ${allowed.join(', ')}`;
}

export function faultError(operation: Operation, fault: FaultSpec, limits: Limits): EmulatorError {
  const message = `Injected fault (${fault.status})`;
  // The token endpoint's refusals are OAuth errors; its 500 is a failure (`server_error`), as anywhere else.
  if (operation.api === 'auth' && fault.status !== 500) {
    return fault.status === 401
      ? new OAuthError('invalid_client', message, true)
      : new OAuthError('invalid_request', message);
  }
  if (fault.status === 500) {
    return new InternalFault(INTERNAL_ERROR_CODES.find((c) => c === fault.code) ?? 'INTERNAL_SERVER_ERROR', message);
  }
  if (fault.status === 413) return new PayloadTooLarge(limits.maxMessageBytes, limits.maxMessageBytes + 1, message);
  const code = EMITTED_ERROR_CODES.find((c) => c === fault.code) ?? DEFAULT_CODES[fault.status] ?? 'INVALID_REQUEST';
  return new InjectedFault(fault.status, code, fault.status === 429 ? (fault.retryAfter ?? 1) : undefined);
}
