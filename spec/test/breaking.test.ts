// The breaking-change gate: a break since the last release fails with a report naming it, unless
// info.version raises its major; an unchanged spec passes.
import { execFile } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, test } from 'vitest';

const script = fileURLToPath(new URL('../scripts/check-breaking.mjs', import.meta.url));
const released = readFileSync(new URL('../dist/event-streams.yaml', import.meta.url), 'utf8');
const work = mkdtempSync(join(tmpdir(), 'breaking-'));
afterAll(() => rmSync(work, { recursive: true, force: true }));

function check(current: string, ...flags: string[]): Promise<{ code: number; output: string }> {
  const dir = mkdtempSync(join(work, 'case-'));
  mkdirSync(join(dir, 'released'));
  mkdirSync(join(dir, 'current'));
  writeFileSync(join(dir, 'released', 'event-streams.yaml'), released);
  writeFileSync(join(dir, 'current', 'event-streams.yaml'), current);
  return new Promise((resolve) => {
    execFile(
      process.execPath,
      [
        script,
        '--api',
        'event-streams',
        '--released',
        join(dir, 'released'),
        '--current',
        join(dir, 'current'),
        ...flags,
      ],
      (error, stdout, stderr) => resolve({ code: error ? (error.code as number) : 0, output: stdout + stderr }),
    );
  });
}

// Renaming a required response property breaks every client that reads it.
const renamed = released.replace(/^( +)has_more:/gm, '$1more_available:');

describe('check-breaking', { timeout: 180_000 }, () => {
  test('an unchanged spec passes', async () => {
    const { code, output } = await check(released);
    expect(output).toContain('event-streams: no breaking change since the last release.');
    expect(code).toBe(0);
  });

  test('a removed response property fails and is named', async () => {
    expect(renamed).not.toEqual(released);
    const { code, output } = await check(renamed);
    expect(code).toBe(1);
    expect(output).toMatch(/POST \/api\/v1\/topics\/\{topic_id\}\/consume: .*has_more/);
    expect(output).toContain('raise the major of info.version');
  });

  test('the same break passes with a major version bump, without a diff; --list names it', async () => {
    const bumped = renamed.replace(/^ {2}version: 1\.7\.1$/m, '  version: 2.0.0');
    const { code, output } = await check(bumped);
    expect(output).toBe(
      'event-streams: breaking changes since release 1.7.1 are accepted with the major version bump 1 -> 2 (--list names them).\n',
    );
    expect(code).toBe(0);
    const listed = await check(bumped, '--list');
    expect(listed.output).toMatch(
      /^event-streams: 1 breaking change\(s\) since release 1\.7\.1, accepted with the major version bump 1 -> 2:\n/,
    );
    expect(listed.output).toMatch(/POST \/api\/v1\/topics\/\{topic_id\}\/consume: .*has_more/);
    expect(listed.code).toBe(0);
  });
});
