// Runs one of test/fixtures' suites with vitest in a child process, as a user's `vitest run` would: its
// own config, the test kit's global setup and an emulator of its own on a free port.
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';

const vitest = fileURLToPath(new URL('../../../../node_modules/vitest/vitest.mjs', import.meta.url));

/** Its exit status and what it printed (stdout and stderr interleaved, without colours). */
export async function runFixtureSuite(
  name: string,
  { args = [], env = {} }: { args?: string[]; env?: Record<string, string> } = {},
): Promise<{ status: number | null; output: string }> {
  const root = fileURLToPath(new URL(`../fixtures/${name}`, import.meta.url));
  const child = spawn(process.execPath, [vitest, 'run', '--root', root, ...args], {
    env: { ...process.env, ...env, NO_COLOR: '1', FORCE_COLOR: '0' },
  });
  let output = '';
  child.stdout.on('data', (chunk) => (output += chunk));
  child.stderr.on('data', (chunk) => (output += chunk));
  const status = await new Promise<number | null>((resolve) => child.on('exit', resolve));
  return { status, output };
}
