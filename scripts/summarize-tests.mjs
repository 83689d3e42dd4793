#!/usr/bin/env node
// Reads a test log on stdin (turbo output with each package's vitest summary) and prints one
// plain closing line, "tests: N passed, N failed, N skipped", so a CI reader sees the totals.
import { text } from 'node:stream/consumers';
import { stripVTControlCharacters } from 'node:util';

const log = stripVTControlCharacters(await text(process.stdin));
const totals = { passed: 0, failed: 0, skipped: 0 };
for (const [, counts] of log.matchAll(/^\S*\s+Tests\s+(.+)$/gm)) {
  for (const [, n, kind] of counts.matchAll(/(\d+) (passed|failed|skipped)/g)) totals[kind] += Number(n);
}
console.log(`tests: ${totals.passed} passed, ${totals.failed} failed, ${totals.skipped} skipped`);
