// The API coverage of a test run, from GET /_emulator/coverage: a short table for the terminal, the
// report as JSON and as JUnit XML for CI, and thresholds that fail the run. The test kit's global
// teardown and `platform-api-mock coverage` both report through here.
import { mkdir, writeFile } from 'node:fs/promises';
import { dirname } from 'node:path';
import type { components } from '@platform-api/spec/types/emulator';

export type CoverageReport = components['schemas']['CoverageReport'];
export type ApiCoverage = CoverageReport['apis'][number];
export type CoverageApi = ApiCoverage['api'];

export interface CoverageOptions {
  /** The APIs reported and held to the thresholds; default those the run called at least once. */
  apis?: CoverageApi[];
  /** Fail when fewer than this percentage of the reported APIs' operations were called. */
  minOperations?: number;
  /** Fail when fewer than this percentage of their documented statuses were answered. */
  minStatuses?: number;
  /** Write the report, with its summary, as JSON to this file. */
  json?: string;
  /** Write it as JUnit XML to this file: an operation never called is skipped, one with an undeclared answer fails. */
  junit?: string;
  /** Where the table goes; default console.log. */
  print?: (table: string) => void;
}

/** The reported APIs' totals and the thresholds they were held to. */
export interface CoverageSummary {
  apis: CoverageApi[];
  operations: number;
  called: number;
  /** Percentage of the operations called, 0 to 100, one decimal. */
  operationsPercent: number;
  statuses: number;
  statusesAnswered: number;
  statusesPercent: number;
  undeclared: number;
  /** One sentence per threshold not met; empty when the run passes. */
  failures: string[];
}

/** A coverage threshold was not met: the message names each one and the figures. */
export class CoverageThresholdError extends Error {
  override readonly name = 'CoverageThresholdError';

  constructor(readonly summary: CoverageSummary) {
    super(`API coverage below its threshold: ${summary.failures.join('; ')}`);
  }
}

/** At most this many never-called operations are named per API in the table (the JSON has them all). */
const NAMED_IN_TABLE = 8;

/** Prints the table, writes the files asked for, and rejects with a CoverageThresholdError under a threshold. */
export async function reportCoverage(report: CoverageReport, options: CoverageOptions = {}): Promise<CoverageSummary> {
  const summary = summarize(report, options);
  (options.print ?? console.log)(coverageTable(report, summary));
  const reported = { ...report, apis: selected(report, summary.apis), summary };
  if (options.json) await writeOut(options.json, `${JSON.stringify(reported, null, 2)}\n`);
  if (options.junit) await writeOut(options.junit, coverageJunit(report, summary));
  if (summary.failures.length > 0) throw new CoverageThresholdError(summary);
  return summary;
}

export function summarize(report: CoverageReport, options: CoverageOptions = {}): CoverageSummary {
  const apis = options.apis ?? report.apis.filter((api) => api.called > 0).map((api) => api.api);
  const chosen = selected(report, apis);
  const sum = (of: (api: ApiCoverage) => number) => chosen.reduce((total, api) => total + of(api), 0);
  const operations = sum((api) => api.operations);
  const called = sum((api) => api.called);
  const statuses = sum((api) => api.statuses);
  const statusesAnswered = sum((api) => api.statuses_answered);
  const operationsPercent = percent(called, operations);
  const statusesPercent = percent(statusesAnswered, statuses);
  const failures: string[] = [];
  if (options.minOperations !== undefined && operationsPercent < options.minOperations) {
    failures.push(
      `${operationsPercent}% of the operations called (${called}/${operations}), below ${options.minOperations}%`,
    );
  }
  if (options.minStatuses !== undefined && statusesPercent < options.minStatuses) {
    failures.push(
      `${statusesPercent}% of the documented statuses answered (${statusesAnswered}/${statuses}), below ${options.minStatuses}%`,
    );
  }
  const undeclared = sum((api) => api.undeclared);
  return {
    apis,
    operations,
    called,
    operationsPercent,
    statuses,
    statusesAnswered,
    statusesPercent,
    undeclared,
    failures,
  };
}

/** A line per API, then the operations never called and the answers the spec does not declare. */
export function coverageTable(report: CoverageReport, summary: CoverageSummary): string {
  const apis = selected(report, summary.apis);
  const rows = [
    ['API', 'Operations called', 'Statuses answered', 'Undeclared'],
    ...apis.map((api) => [
      api.api,
      fraction(api.called, api.operations),
      fraction(api.statuses_answered, api.statuses),
      String(api.undeclared),
    ]),
    [
      'all',
      fraction(summary.called, summary.operations),
      fraction(summary.statusesAnswered, summary.statuses),
      String(summary.undeclared),
    ],
  ];
  const widths = rows[0]?.map((_, column) => Math.max(...rows.map((row) => (row[column] ?? '').length))) ?? [];
  const lines = [
    `API coverage of ${report.requests} requests since ${report.since}${report.unrouted > 0 ? ` (${report.unrouted} to no operation)` : ''}`,
    ...rows.map((row) =>
      row
        .map((cell, column) => cell.padEnd(widths[column] ?? 0))
        .join('  ')
        .trimEnd(),
    ),
  ];
  if (apis.length === 0) lines.push('No operation of the platform APIs was called.');
  for (const api of apis) {
    if (api.never_called.length === 0) continue;
    const named = api.never_called.slice(0, NAMED_IN_TABLE).join(', ');
    const more = api.never_called.length - NAMED_IN_TABLE;
    lines.push(`Never called (${api.api}): ${named}${more > 0 ? `, and ${more} more` : ''}`);
  }
  for (const { api, operation, status, count } of undeclaredAnswers(apis)) {
    lines.push(
      `Undeclared answer (${api}): ${operation} answered ${status} ${count} times; its spec declares no ${status}`,
    );
  }
  for (const failure of summary.failures) lines.push(`FAIL: ${failure}`);
  return lines.join('\n');
}

/** JUnit XML: a suite per API, a case per operation (skipped when never called, failed on an undeclared answer), and the thresholds. */
export function coverageJunit(report: CoverageReport, summary: CoverageSummary): string {
  const suites = selected(report, summary.apis).map((api) => {
    const cases = api.operation_list.map((operation) => {
      const name = `${operation.operation} ${operation.method} ${operation.path}`;
      const undeclared = operation.answered.filter((answer) => !answer.documented).map((answer) => answer.status);
      const unanswered = operation.documented.filter((status) => !operation.answered.some((a) => a.status === status));
      const answered = operation.answered.map((answer) => `${answer.status} x${answer.count}`).join(', ');
      const body =
        operation.calls === 0
          ? '<skipped message="never called"/>'
          : `${undeclared.length > 0 ? `<failure message="${xml(`answered ${undeclared.join(', ')}, which the spec does not declare`)}"/>` : ''}<system-out>${xml(`answered ${answered}; documented, not answered: ${unanswered.join(', ') || 'none'}`)}</system-out>`;
      return `    <testcase classname="${xml(api.api)}" name="${xml(name)}">${body}</testcase>`;
    });
    const failures = api.operation_list.filter((operation) => operation.answered.some((answer) => !answer.documented));
    return `  <testsuite name="${xml(api.api)}" tests="${api.operations}" failures="${failures.length}" skipped="${api.never_called.length}">\n${cases.join('\n')}\n  </testsuite>`;
  });
  const thresholds = summary.failures.map(
    (failure) =>
      `    <testcase classname="thresholds" name="${xml(failure)}"><failure message="${xml(failure)}"/></testcase>`,
  );
  suites.push(
    `  <testsuite name="thresholds" tests="${thresholds.length}" failures="${thresholds.length}" skipped="0">\n${thresholds.join('\n')}\n  </testsuite>`,
  );
  return `<?xml version="1.0" encoding="UTF-8"?>\n<testsuites name="API coverage">\n${suites.join('\n')}\n</testsuites>\n`;
}

function selected(report: CoverageReport, apis: readonly CoverageApi[]): ApiCoverage[] {
  return report.apis.filter((api) => apis.includes(api.api));
}

function undeclaredAnswers(apis: ApiCoverage[]) {
  return apis.flatMap((api) =>
    api.operation_list.flatMap((operation) =>
      operation.answered
        .filter((answer) => !answer.documented)
        .map((answer) => ({ api: api.api, operation: operation.operation, ...answer })),
    ),
  );
}

function percent(part: number, whole: number): number {
  return whole === 0 ? 0 : Math.floor((part / whole) * 1000) / 10;
}

function fraction(part: number, whole: number): string {
  return `${part}/${whole} (${percent(part, whole)}%)`;
}

function xml(text: string): string {
  return text.replace(/[<>&"]/g, (char) => `&#${char.charCodeAt(0)};`);
}

async function writeOut(file: string, text: string): Promise<void> {
  await mkdir(dirname(file), { recursive: true });
  await writeFile(file, text);
}
