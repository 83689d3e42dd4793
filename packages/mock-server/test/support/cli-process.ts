// Runs platform-api-mock (from the sources, through tsx) as a child process; a child still running
// after its test is killed.
import { type ChildProcess, spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { expect } from 'vitest';
import { defined } from './defined.js';

const CLI = fileURLToPath(new URL('../../src/cli.ts', import.meta.url));

export interface CliProcess {
  child: ChildProcess;
  /** Standard output and error, interleaved. */
  output(): string;
  /** Standard error alone. */
  errors(): string;
  exited: Promise<number | null>;
}

const running = new Set<ChildProcess>();

/** Kills the emulators a test spawned and left running (test/support/setup.ts, after each test). */
export function killSpawned(): void {
  for (const child of running) child.kill('SIGKILL');
  running.clear();
}

/**
 * `ownedByCaller`: the child outlives each test (for a suite sharing one emulator, started in
 * beforeAll); the caller stops it. `env`: variables added to this process's environment. `nodeFlags`:
 * more flags for node, before the script.
 */
export function runCli(
  args: string[],
  {
    ownedByCaller = false,
    env = {},
    nodeFlags = [],
  }: { ownedByCaller?: boolean; env?: Record<string, string>; nodeFlags?: string[] } = {},
): CliProcess {
  const child = spawn(process.execPath, [...nodeFlags, '--import', 'tsx', CLI, ...args], {
    cwd: fileURLToPath(new URL('../..', import.meta.url)),
    env: { ...process.env, ...env },
  });
  if (!ownedByCaller) running.add(child);
  let output = '';
  let errors = '';
  child.stdout.on('data', (chunk) => (output += chunk));
  child.stderr.on('data', (chunk) => {
    output += chunk;
    errors += chunk;
  });
  const exited = new Promise<number | null>((resolve) =>
    child.on('exit', (code) => {
      running.delete(child);
      resolve(code);
    }),
  );
  return { child, output: () => output, errors: () => errors, exited };
}

/** The URL the emulator printed once it listens. */
export async function listeningUrl(cli: CliProcess): Promise<string> {
  await expect.poll(() => cli.output(), { timeout: 15_000 }).toContain('Try it:');
  return defined(/listening on (http:\/\/\S+)/.exec(cli.output())?.[1], 'URL in the banner');
}

/** The URL of the banner, waited for outside a test (beforeAll); fails after `timeout` ms or when the child exits. */
export async function bannerUrl(cli: CliProcess, timeout = 15_000): Promise<string> {
  const deadline = Date.now() + timeout;
  while (!cli.output().includes('Try it:')) {
    if (cli.child.exitCode !== null) throw new Error(`platform-api-mock exited: ${cli.output()}`);
    if (Date.now() > deadline) throw new Error(`No banner after ${timeout} ms: ${cli.output()}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  return defined(/listening on (http:\/\/\S+)/.exec(cli.output())?.[1], 'URL in the banner');
}

/** A spawned emulator's address and the bootstrap credentials its banner prints. */
export interface SpawnedEmulator {
  url: string;
  clientId: string;
  clientSecret: string;
}

/**
 * platform-api-mock on a free port of 127.0.0.1 with these flags besides, owned by the caller (a suite
 * sharing one, started in beforeAll), once it listens; stopSpawned ends it.
 */
export async function spawnEmulator(args: string[]): Promise<{ cli: CliProcess; emulator: SpawnedEmulator }> {
  const cli = runCli(['--port', '0', '--host', '127.0.0.1', '--log-level', 'warn', ...args], { ownedByCaller: true });
  // A guard against a hang within the suite's 60 s hook guard: a start beside busy suites takes many seconds.
  const url = await bannerUrl(cli, 50_000);
  const credential = (label: string) =>
    defined(new RegExp(`${label}\\s+(\\S+)`).exec(cli.output())?.[1], `${label} in the banner`);
  return { cli, emulator: { url, clientId: credential('Client ID'), clientSecret: credential('Client secret') } };
}

/** Stops a spawned emulator (SIGTERM: it drains) and waits for it to exit. */
export async function stopSpawned(cli: CliProcess | undefined): Promise<void> {
  if (!cli || cli.child.exitCode !== null) return;
  cli.child.kill('SIGTERM');
  await cli.exited;
}
