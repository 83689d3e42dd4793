// `npm run check` in a fresh clone: clean when nothing changed, and it catches a spec edited
// without regenerating, naming the stale file and what to run.
import { execFileSync, spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';

const repo = fileURLToPath(new URL('../..', import.meta.url));
const clone = join(mkdtempSync(join(tmpdir(), 'drift-')), 'repo');

beforeAll(() => {
  execFileSync('git', ['clone', '--quiet', '--local', '--shared', repo, clone]);
  symlinkSync(join(repo, 'node_modules'), join(clone, 'node_modules'));
});
afterAll(() => rmSync(join(clone, '..'), { recursive: true, force: true }));

function check() {
  const run = spawnSync('npm', ['run', 'check', '--silent'], {
    cwd: clone,
    encoding: 'utf8',
    env: { ...process.env, FORCE_COLOR: '0' },
  });
  return { code: run.status, output: `${run.stdout}${run.stderr}` };
}

describe('npm run check', { timeout: 120_000 }, () => {
  test('passes on a clean clone', () => {
    const { code, output } = check();
    expect(output).toContain('No drift');
    expect(code).toBe(0);
  });

  test('fails on a spec edited without regenerating, naming the stale bundle and the fix', () => {
    const file = join(clone, 'spec/event-streams/paths/api@v1@topics@{topic_id}@publish.yaml');
    writeFileSync(
      file,
      readFileSync(file, 'utf8').replace('summary: Publish a message', 'summary: Publish one message'),
    );
    execFileSync('git', ['commit', '--quiet', '-am', 'edit the spec only'], { cwd: clone });
    const { code, output } = check();
    expect(code).toBe(1);
    expect(output).toContain('spec/dist/event-streams.yaml');
    expect(output).toContain('+      summary: Publish one message');
    expect(output).toContain('Run `npm run generate`');
  });
});
