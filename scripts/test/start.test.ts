// The emulator started from the repository root as the README says: `npm start -- FLAGS` (after a
// build, which turbo replays from its cache here) and `npx platform-api-mock FLAGS`, both with the
// flags reaching the emulator; and the spec author's live loop, `npm run dev -- FLAGS`, which says
// what it does in one line per step.
import { type ChildProcess, spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { dirname } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, expect, test } from 'vitest';

const repo = fileURLToPath(new URL('../..', import.meta.url));
const started: ChildProcess[] = [];
// Each command runs in its own process group (npm, sh, node): the whole group is stopped.
afterEach(() => {
  for (const child of started.splice(0)) {
    if (child.exitCode === null && child.pid !== undefined) process.kill(-child.pid, 'SIGKILL');
  }
});

function run(command: string, args: string[]) {
  // Without TURBO_FORCE (npm run test:loaded sets it): npm start's build finds what npm test built, and
  // does not write the specs and packages again while the other suites read them.
  const { TURBO_FORCE: _forced, ...env } = process.env;
  const child = spawn(command, args, { cwd: repo, detached: true, env: { ...env, FORCE_COLOR: '0' } });
  started.push(child);
  let output = '';
  child.stdout?.on('data', (chunk) => (output += chunk));
  child.stderr?.on('data', (chunk) => (output += chunk));
  return () => output;
}

const flags = ['--port', '0', '--client-id', 'dev', '--client-secret', 'dev secret', '--log-level', 'silent'];

/** The bootstrap API key is the one given on the command line, so the printed curl session works as is. */
async function expectStartedWithFlags(output: () => string): Promise<void> {
  await expect.poll(output, { timeout: 240_000, interval: 200 }).toContain('Try it:');
  expect(output()).toMatch(/Client ID {7}dev\n {2}Client secret {3}dev secret\n/);
  const url = /listening on (http:\/\/\S+)/.exec(output())?.[1];
  const answer = await fetch(`${url}/oauth2/token`, {
    method: 'POST',
    headers: { authorization: `Basic ${Buffer.from('dev:dev secret').toString('base64')}` },
    body: new URLSearchParams({ grant_type: 'client_credentials' }),
  });
  expect(answer.status).toBe(200);
}

test('npm start -- FLAGS says it is building, then passes the flags to the emulator', {
  timeout: 300_000,
}, async () => {
  const output = run('npm', ['start', '--', ...flags]);
  await expectStartedWithFlags(output);
  expect(output()).toContain('npm start: building');
  expect(output()).toMatch(/Tasks: +\d+ successful/);
  // This package's dependencies were built just before this test, in the same turbo run: one built
  // again means a suite changed its inputs meanwhile, and that build rewrote a package other suites
  // were reading. (Words after `--` in that run are part of every task's hash: run this file alone
  // without them, with npm test's filters or none.)
  const rebuilt = output().match(/^@platform-api\/(spec|client|mock-server):build: cache miss.*$/gm);
  expect(rebuilt ?? [], 'built again by npm start').toEqual([]);
});

test('npx platform-api-mock FLAGS runs the workspace emulator, never asking the registry', {
  timeout: 60_000,
}, async () => {
  await expectStartedWithFlags(run('npx', ['--no-install', 'platform-api-mock', ...flags]));
});

test('npm run dev -- FLAGS prints one line per step with its time, the banner, and no tool output', {
  timeout: 300_000,
}, async () => {
  const output = run('npm', ['run', '--silent', 'dev', '--', '--port', '0', '--log-level', 'info']);
  await expect.poll(output, { timeout: 240_000, interval: 200 }).toContain('Live loop: watching spec');
  const lines = output().split('\n');
  expect(lines[0]).toMatch(/^✓ build the emulator and the web console: \d+(\.\d)? (ms|s)/);
  const steps = lines.filter((line) => /^[✓✗] /.test(line));
  expect(steps.map((line) => line.replace(/: .*/, ''))).toEqual([
    '✓ build the emulator and the web console',
    '✓ bundle and lint event-streams, auth, management, emulator',
    '✓ write the docs pages event-streams.html, auth.html, management.html, emulator.html, index.html',
    '✓ start the emulator',
  ]);
  for (const step of steps) expect(step).toMatch(/: \d+(\.\d)? (ms|s)\b/);
  // Neither turbo's nor npm's output, and the emulator's log lines each on a line of their own.
  expect(output()).not.toMatch(/turbo|Tasks:|Cached:|npm (error|warn)|NaN/);
  const logLines = lines.filter((line) => line.includes('{"level":'));
  expect(logLines.length).toBeGreaterThan(0);
  for (const line of logLines) expect(line).toMatch(/^\{"level":\d+.*\}$/);
  expect(lines).toContainEqual(expect.stringMatching(/^Platform API emulator listening on http:\/\/127\.0\.0\.1:\d+$/));
  // Stopped, it removes its temporary data dir.
  const dataDir = /^ {2}Storage +(\S+) \(durability relaxed\)$/m.exec(output())?.[1] ?? '';
  expect(dataDir).toMatch(/platform-api-dev-\w+\/data$/);
  const pid = started.at(-1)?.pid;
  if (pid !== undefined) process.kill(-pid, 'SIGTERM');
  await expect.poll(() => existsSync(dirname(dataDir)), { timeout: 60_000, interval: 200 }).toBe(false);
});
