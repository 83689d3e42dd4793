// What the live loop says of a failed tool (dev/tools.mjs): the problems with their file and line, not
// the tool's output. The fixture is what a failed `turbo run generate` printed after a broken save.
import { readFileSync } from 'node:fs';
import { describe, expect, test } from 'vitest';
// @ts-expect-error: a plain-JS script without type declarations
import { duration, toolProblems } from '../dev/tools.mjs';

describe('toolProblems', () => {
  test("a failed turbo run of Redocly's bundle: each problem's file, line and message, nothing of turbo or npm", () => {
    const output = readFileSync(new URL('fixtures/turbo-generate-failed.txt', import.meta.url), 'utf8');
    expect(output.split('\n').length).toBeGreaterThan(60);
    expect(toolProblems(output)).toEqual([
      'management/paths/api@recipes.yaml:145:1  Failed to parse: deficient indentation in "/home/author/platform-api/spec/management/paths/api@recipes.yaml" (145:1)',
      `management/openapi.yaml:385:5  Can't resolve $ref: deficient indentation in "/home/author/platform-api/spec/management/paths/api@recipes.yaml" (145:1)`,
    ]);
  });

  test("TypeScript's errors, through turbo's task prefix", () => {
    const output = [
      '@platform-api/client:build: > tsc -p tsconfig.build.json',
      "@platform-api/client:build: src/events.ts(12,7): error TS2322: Type 'string' is not assignable to type 'number'.",
      '@platform-api/client:build: npm error Lifecycle script `build` failed with error:',
      ' ERROR  run failed: command  exited (2)',
    ].join('\n');
    expect(toolProblems(output)).toEqual([
      "src/events.ts:12:7  error TS2322: Type 'string' is not assignable to type 'number'.",
    ]);
  });

  test('without a file and line, the lines that say error', () => {
    expect(toolProblems('starting\nError: spawn tsx ENOENT\nnpm error code 1\n')).toEqual(['Error: spawn tsx ENOENT']);
  });
});

test('duration: milliseconds under a second, else seconds with one decimal', () => {
  expect([duration(212.4), duration(999), duration(3449), duration(12_000)]).toEqual([
    '212 ms',
    '999 ms',
    '3.4 s',
    '12.0 s',
  ]);
});
