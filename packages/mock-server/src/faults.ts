// Fault injection for client tests: make the next calls of an operation fail with a chosen status,
// or make chosen positions of the next batch publishes fail.

export interface FaultSpec {
  status: number;
  /** details.code of the error body; defaults to the usual code of the status. */
  code?: string;
  /** Seconds for RETRY-AFTER of a 429 (default 1). */
  retryAfter?: number;
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
  failNext(operationId: string, fault: FaultSpec, options: { times?: number } = {}): void {
    const problem = this.check(operationId, fault);
    if (problem) throw new TypeError(problem);
    const queue = this.byOperation.get(operationId) ?? [];
    queue.push({ value: { ...fault }, times: positiveTimes(options.times) });
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
