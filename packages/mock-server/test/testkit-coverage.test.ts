// The API coverage of a test run as the test kit reports it: a user's suite with known gaps
// (test/fixtures/coverage-suite: publishes and consumes, resets before each test, never batch-publishes)
// run by vitest with the test kit's global setup and a coverage threshold it does not reach; then the
// table, the JSON and the JUnit of a report, the thresholds and an undeclared answer.
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  type CoverageReport,
  CoverageThresholdError,
  coverageJunit,
  reportCoverage,
  summarize,
} from '../src/testkit/index.js';
import { runFixtureSuite } from './support/fixture-suite.js';

describe('the API coverage of a test run', () => {
  const out = mkdtempSync(join(tmpdir(), 'coverage-'));
  afterAll(() => rmSync(out, { recursive: true, force: true }));
  let status: number | null = null;
  let output = '';
  // The suite runs once; the tests below read what it printed and wrote.
  beforeAll(async () => {
    ({ status, output } = await runFixtureSuite('coverage-suite', { env: { COVERAGE_OUT: out } }));
  }, 150_000);
  const report = (): CoverageReport & { summary: unknown } =>
    JSON.parse(readFileSync(join(out, 'api-coverage.json'), 'utf8'));

  it('fails the run under its threshold, after its tests pass, with a table of what was called', () => {
    expect(output).toMatch(/Tests +2 passed/);
    expect(status, output).toBe(1);
    // Seven requests: in each test a token and a topic, then two publishes, then a consume; the resets
    // between the tests left the counts.
    expect(output).toMatch(/^API coverage of 7 requests since \S+$/m);
    expect(output).toMatch(/^API +Operations called +Statuses answered +Undeclared$/m);
    expect(output).toMatch(/^event-streams +2\/3 \(66\.6%\) +3\/23 \(13%\) +0$/m);
    expect(output).toMatch(/^auth +1\/1 \(100%\) +1\/4 \(25%\) +0$/m);
    expect(output).toMatch(/^all +3\/4 \(75%\) +4\/27 \(14\.8%\) +0$/m);
    expect(output).toContain('Never called (event-streams): publish_messages_batch\n');
    expect(output).toContain('FAIL: 75% of the operations called (3/4), below 80%\n');
    expect(output).toContain('CoverageThresholdError: API coverage below its threshold');
  });

  it('writes the report of the APIs it names as JSON, with the summary', () => {
    const written = report();
    expect(written.apis.map((api) => api.api)).toEqual(['event-streams', 'auth']);
    expect(written.apis[0]?.never_called).toEqual(['publish_messages_batch']);
    expect(written.apis[0]?.operation_list.find((o) => o.operation === 'publish_message')?.answered).toEqual([
      { status: 201, count: 1, documented: true },
      { status: 400, count: 1, documented: true },
    ]);
    expect(written.summary).toEqual({
      apis: ['event-streams', 'auth'],
      operations: 4,
      called: 3,
      operationsPercent: 75,
      statuses: 27,
      statusesAnswered: 4,
      statusesPercent: 14.8,
      undeclared: 0,
      failures: ['75% of the operations called (3/4), below 80%'],
    });
  });

  it('writes JUnit: an operation never called is skipped, the threshold not met fails', () => {
    const junit = readFileSync(join(out, 'api-coverage.xml'), 'utf8');
    expect(junit).toMatch(/^<\?xml version="1.0" encoding="UTF-8"\?>\n<testsuites name="API coverage">/);
    expect(junit).toContain('<testsuite name="event-streams" tests="3" failures="0" skipped="1">');
    expect(junit).toContain(
      '<testcase classname="event-streams" name="publish_messages_batch POST /api/v1/batch/topics/{topic_id}/publish"><skipped message="never called"/></testcase>',
    );
    expect(junit).toContain(
      '<system-out>answered 201 x1, 400 x1; documented, not answered: 401, 403, 404, 413, 429, 500</system-out>',
    );
    expect(junit).toContain('<failure message="75% of the operations called (3/4), below 80%"/>');
  });

  it('passes at its threshold, and holds the documented statuses to theirs', async () => {
    const printed: string[] = [];
    const print = (table: string) => printed.push(table);
    const summary = await reportCoverage(report(), { apis: ['event-streams', 'auth'], minOperations: 75, print });
    expect(summary.failures).toEqual([]);
    expect(printed.join('\n')).not.toContain('FAIL');
    const statuses = reportCoverage(report(), { minStatuses: 20, print });
    await expect(statuses).rejects.toBeInstanceOf(CoverageThresholdError);
    await expect(statuses).rejects.toThrow('14.8% of the documented statuses answered (4/27), below 20%');
    // Without `apis`, the APIs the run called: the management API too (its topic).
    expect(summarize(report()).apis).toEqual(['event-streams', 'auth']);
  });

  it('names an answer the spec does not declare in the table and fails its operation in JUnit', async () => {
    const withUndeclared = report();
    const consume = withUndeclared.apis[0]?.operation_list.find((o) => o.operation === 'consume_messages');
    consume?.answered.push({ status: 418, count: 2, documented: false });
    (withUndeclared.apis[0] as { undeclared: number }).undeclared = 1;
    const printed: string[] = [];
    const summary = await reportCoverage(withUndeclared, { print: (table) => printed.push(table) });
    expect(summary.undeclared).toBe(1);
    expect(printed.join('\n')).toContain(
      'Undeclared answer (event-streams): consume_messages answered 418 2 times; its spec declares no 418',
    );
    expect(coverageJunit(withUndeclared, summary)).toContain(
      '<failure message="answered 418, which the spec does not declare"/>',
    );
  });
});
