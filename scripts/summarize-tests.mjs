#!/usr/bin/env node
// Reads a test log on stdin (turbo output with each package's vitest summary) and prints one
// plain closing line, "tests: N passed, N failed, N skipped", so a CI reader sees the totals.
// With --no-skips it exits 1 when any test was skipped: a suite skips only when a tool it needs
// (redis-server, chromium, podman) or an input beside the repository (../shared) is missing, and CI
// installs and has all of them, so a skip there is a test that did not run.
import { text } from 'node:stream/consumers';
import { stripVTControlCharacters } from 'node:util';

const log = stripVTControlCharacters(await text(process.stdin));
const totals = { passed: 0, failed: 0, skipped: 0 };
for (const [, counts] of log.matchAll(/^\S*\s+Tests\s+(.+)$/gm)) {
  for (const [, n, kind] of counts.matchAll(/(\d+) (passed|failed|skipped)/g)) totals[kind] += Number(n);
}
console.log(`tests: ${totals.passed} passed, ${totals.failed} failed, ${totals.skipped} skipped`);
if (process.argv.includes('--no-skips') && totals.skipped > 0) {
  const reasons = new Set([...log.matchAll(/skipped: ([^\n)]+)/g)].map(([, reason]) => reason.trim()));
  console.log(
    `${totals.skipped} tests skipped, which CI does not allow:${[...reasons].map((r) => `\n- ${r}`).join('')}`,
  );
  process.exitCode = 1;
}
