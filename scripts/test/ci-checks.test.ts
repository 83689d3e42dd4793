// CI's own checks: the test summary that fails on a skipped test (a missing tool or ../shared, which CI
// has, so a skip there is a suite that did not run), and the commit subjects held to 72 characters.
import { execFileSync, spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, expect, test } from 'vitest';
import { MAX_SUBJECT, subjectProblem } from '../check-commits.mjs';

const summarize = fileURLToPath(new URL('../summarize-tests.mjs', import.meta.url));
const checkCommits = fileURLToPath(new URL('../check-commits.mjs', import.meta.url));
const dirs: string[] = [];
afterAll(() => {
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
});

function summary(log: string, ...args: string[]) {
  const run = spawnSync(process.execPath, [summarize, ...args], { input: log, encoding: 'utf8' });
  return { status: run.status, output: run.stdout };
}

const log = [
  '@platform-api/spec:test:       Tests  55 passed (55)',
  '@platform-api/mock-server:test:       Tests  3 failed | 580 passed | 6 skipped (589)',
  'stderr | test/reference-contract.test.ts',
  "skipped: the platform's public description is missing: /x/platform-api-public-spec.yaml",
].join('\n');

test('the summary adds up every package and, with --no-skips, fails naming why tests skipped', () => {
  expect(summary(log)).toEqual({ status: 0, output: 'tests: 635 passed, 3 failed, 6 skipped\n' });
  const strict = summary(log, '--no-skips');
  expect(strict.status).toBe(1);
  expect(strict.output).toContain(
    "6 tests skipped, which CI does not allow:\n- the platform's public description is missing",
  );
  expect(summary('x:test:   Tests  4 passed (4)', '--no-skips').status).toBe(0);
});

test('a subject over 72 characters is refused, the body is free', () => {
  expect(subjectProblem(`${'a'.repeat(MAX_SUBJECT)}\n\n${'b'.repeat(500)}`)).toBeUndefined();
  expect(subjectProblem('a'.repeat(MAX_SUBJECT + 1))).toContain('73 characters');
  expect(subjectProblem('# a comment git adds\n\n')).toBe('the subject is empty');
});

test('the commit-msg hook refuses a long subject, as CI does', () => {
  const dir = mkdtempSync(join(tmpdir(), 'commit-msg-'));
  dirs.push(dir);
  const file = join(dir, 'COMMIT_EDITMSG');
  writeFileSync(file, `${'x'.repeat(80)}\n`);
  const refused = spawnSync(process.execPath, [checkCommits, '--message', file], { encoding: 'utf8' });
  expect([refused.status, refused.stderr]).toEqual([1, expect.stringContaining('80 characters')]);
  writeFileSync(file, 'Short subject\n\nThe why, and the figures.\n');
  expect(spawnSync(process.execPath, [checkCommits, '--message', file]).status).toBe(0);
});

test("the repository's commits since the rule keep it", () => {
  expect(execFileSync(process.execPath, [checkCommits], { encoding: 'utf8' })).toMatch(/within 72 characters/);
});
