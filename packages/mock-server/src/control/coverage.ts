// API coverage: which operations of each platform API the answered requests called, and with which
// statuses they were answered, against what the specs declare. The journal counts every request it
// records here (two map lookups); GET /_emulator/coverage builds the report from the counts and the
// loaded operations. Counted apart from the journal's entries, which a test's reset clears: the
// coverage is a whole test run's.
import type { components } from '@platform-api/spec/types/emulator';
import type { ApiName, Operation } from '../spec/bundles.js';

export type CoverageReport = components['schemas']['CoverageReport'];
type ApiCoverage = CoverageReport['apis'][number];
type OperationCoverage = ApiCoverage['operation_list'][number];

const APIS: readonly ApiName[] = ['event-streams', 'auth', 'management'];

export class CoverageTally {
  /** Answers by operationId, then status. */
  private readonly answers = new Map<string, Map<number, number>>();
  private requests = 0;
  private unrouted = 0;
  private since: number;

  constructor(private readonly now: () => number) {
    this.since = now();
  }

  /** One answered request: its operation (undefined when no operation answers its path and method) and status. */
  count(operationId: string | undefined, status: number): void {
    this.requests++;
    if (operationId === undefined) {
      this.unrouted++;
      return;
    }
    let statuses = this.answers.get(operationId);
    if (!statuses) {
      statuses = new Map();
      this.answers.set(operationId, statuses);
    }
    statuses.set(status, (statuses.get(status) ?? 0) + 1);
  }

  /** Forgets what was counted: the coverage starts again now. */
  clear(): void {
    this.answers.clear();
    this.requests = 0;
    this.unrouted = 0;
    this.since = this.now();
  }

  report(operations: readonly Operation[]): CoverageReport {
    return {
      since: new Date(this.since).toISOString(),
      requests: this.requests,
      unrouted: this.unrouted,
      apis: APIS.map((api) => this.apiCoverage(api, operations)),
    };
  }

  private apiCoverage(api: ApiName, operations: readonly Operation[]): ApiCoverage {
    const list = operations.filter((operation) => operation.api === api).map((operation) => this.of(operation));
    const answered = list.flatMap((operation) => operation.answered);
    return {
      api,
      operations: list.length,
      called: list.filter((operation) => operation.calls > 0).length,
      statuses: list.reduce((sum, operation) => sum + operation.documented.length, 0),
      statuses_answered: answered.filter((answer) => answer.documented).length,
      undeclared: answered.filter((answer) => !answer.documented).length,
      operation_list: list,
      never_called: list.filter((operation) => operation.calls === 0).map((operation) => operation.operation),
    };
  }

  private of(operation: Operation): OperationCoverage {
    // The specs declare statuses one by one (no `4XX` or `default`).
    const documented = Object.keys(operation.responses)
      .map(Number)
      .sort((a, b) => a - b);
    const counts = [...(this.answers.get(operation.operationId) ?? [])].sort(([a], [b]) => a - b);
    return {
      operation: operation.operationId,
      method: operation.method.toUpperCase(),
      path: operation.path,
      calls: counts.reduce((sum, [, count]) => sum + count, 0),
      documented,
      answered: counts.map(([status, count]) => ({ status, count, documented: documented.includes(status) })),
    };
  }
}
