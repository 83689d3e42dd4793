import { type ChildProcess, spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { defined } from './defined.js';
import { assertConforms, toAnswer } from './helpers.js';

const CLI = fileURLToPath(new URL('../src/cli.ts', import.meta.url));

function runCli(args: string[]): { child: ChildProcess; output: () => string; exited: Promise<number | null> } {
  const child = spawn(process.execPath, ['--import', 'tsx', CLI, ...args], {
    cwd: fileURLToPath(new URL('..', import.meta.url)),
  });
  let output = '';
  child.stdout.on('data', (chunk) => (output += chunk));
  child.stderr.on('data', (chunk) => (output += chunk));
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
  return { child, output: () => output, exited };
}

describe('platform-api-mock CLI', () => {
  it('--help lists every flag', async () => {
    const cli = runCli(['--help']);
    expect(await cli.exited).toBe(0);
    for (const flag of [
      '--host',
      '--port',
      '--client-id',
      '--client-secret',
      '--max-batch-size',
      '--max-message-bytes',
      '--max-batch-messages',
      '--rate-limit',
      '--token-ttl',
      '--log-level',
      '--mode',
      '--seed',
    ]) {
      expect(cli.output()).toContain(flag);
    }
  }, 20_000);

  it('explains a bad flag value or an unknown flag, and exits 1', async () => {
    for (const [args, message] of [
      [['--port', 'abc'], "argument 'abc' is invalid. Expected a port number"],
      [['--max-batch-size', '0'], "argument '0' is invalid. Expected a positive integer"],
      [['--log-level', 'loud'], 'Allowed choices are silent, error, warn, info, debug'],
      [['--colour'], "unknown option '--colour'"],
    ] as const) {
      const cli = runCli([...args]);
      expect(await cli.exited).toBe(1);
      expect(cli.output()).toContain(message);
    }
  }, 30_000);

  it('--log-level debug logs each request with the status it was answered with', async () => {
    const cli = runCli(['--port', '0', '--log-level', 'debug']);
    try {
      await expect.poll(() => cli.output(), { timeout: 15_000 }).toContain('Try it:');
      const url = defined(/listening on (http:\/\/\S+)/.exec(cli.output())?.[1], 'URL in the banner');
      await (await fetch(`${url}/oauth2/token`, { method: 'POST', body: 'grant_type=client_credentials' })).text();
      await (await fetch(`${url}/nowhere`)).text();
      const requestLines = () =>
        cli
          .output()
          .split('\n')
          .filter((line) => line.includes('"msg":"request"'))
          .map((line) => JSON.parse(line) as { method: string; url: string; status: number });
      await expect.poll(() => requestLines().length, { timeout: 5_000 }).toBe(2);
      expect(requestLines()).toMatchObject([
        { method: 'POST', url: '/oauth2/token', status: 400 },
        { method: 'GET', url: '/nowhere', status: 404 },
      ]);
    } finally {
      cli.child.kill('SIGKILL');
    }
  }, 30_000);

  it('prints its URL, credentials and a curl example, serves them, and shuts down on SIGTERM', async () => {
    const cli = runCli([
      '--port',
      '0',
      '--client-id',
      'ci-client',
      '--client-secret',
      'ci-secret',
      '--log-level',
      'warn',
    ]);
    try {
      await expect.poll(() => cli.output(), { timeout: 15_000 }).toContain('Try it:');
      const url = defined(/listening on (http:\/\/\S+)/.exec(cli.output())?.[1], 'URL in the banner');
      expect(cli.output()).toContain(
        `curl -s -u 'ci-client:ci-secret' -d grant_type=client_credentials ${url}/oauth2/token`,
      );
      const answer = await fetch(`${url}/oauth2/token`, {
        method: 'POST',
        headers: {
          authorization: `Basic ${Buffer.from('ci-client:ci-secret').toString('base64')}`,
          'content-type': 'application/x-www-form-urlencoded',
        },
        body: 'grant_type=client_credentials',
      });
      const token = await toAnswer(answer);
      assertConforms('request_access_token', token);
      expect(token.status).toBe(200);
      cli.child.kill('SIGTERM');
      expect(await cli.exited).toBe(0);
      await expect(fetch(`${url}/oauth2/token`)).rejects.toThrow();
    } finally {
      cli.child.kill('SIGKILL');
    }
  }, 30_000);
});
