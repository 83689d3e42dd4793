// Test files in parallel on one emulator, a workspace each: the fixture test/fixtures/parallel-files (the
// test kit's global setup, four files in four processes at once, which publish, consume, reset, arm a
// fault and move the clock in their own workspaces and meet twice so that their changes overlap) run by
// vitest as a user's suite, and every one of its files passed.
import { readdirSync, readFileSync } from 'node:fs';
import { basename, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { expect, it } from 'vitest';
import { runFixtureSuite } from './support/fixture-suite.js';
import { tempDir } from './support/temp-dirs.js';

interface JsonReport {
  success: boolean;
  testResults: { name: string; status: string; assertionResults: { title: string; status: string }[] }[];
}

it('runs the files of a suite at once on one emulator, each in its own workspace, and they all pass', async () => {
  const fixture = fileURLToPath(new URL('fixtures/parallel-files', import.meta.url));
  const files = readdirSync(fixture).filter((name) => name.endsWith('.suite.ts'));
  const report = join(tempDir(), 'report.json');
  const { status, output } = await runFixtureSuite('parallel-files', {
    args: ['--reporter=json', `--outputFile=${report}`],
  });
  expect(status, output).toBe(0);
  const { success, testResults } = JSON.parse(readFileSync(report, 'utf8')) as JsonReport;
  expect(success).toBe(true);
  const byFile = testResults.map(({ name, status, assertionResults }) => ({
    file: basename(name),
    status,
    tests: assertionResults.map((test) => test.status),
  }));
  expect(byFile.sort((a, b) => a.file.localeCompare(b.file))).toEqual(
    files.sort().map((file) => ({ file, status: 'passed', tests: ['passed', 'passed'] })),
  );
  expect(files).toHaveLength(4);
});
