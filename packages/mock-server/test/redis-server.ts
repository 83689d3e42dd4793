// Debian's redis-server for the tests, on a free port with its files in a temporary directory, durable
// as the README advises (append-only file, fsync at every write). Installed by scripts/install-redis.sh;
// where it is missing, the tests that need it are skipped and say why.
import { type ChildProcess, spawn, spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll } from 'vitest';

const found = spawnSync('sh', ['-c', 'command -v redis-server'], { encoding: 'utf8' }).stdout.trim();

/** Why the Redis tests are skipped here; undefined when redis-server is installed. */
export const NO_REDIS = found
  ? undefined
  : "redis-server is not installed (sh scripts/install-redis.sh installs Debian's package)";

export interface RedisServer {
  url: string;
  port: number;
  /** Stops it (SIGTERM) and waits for it to exit; `start` brings it back on the same port and files. */
  stop(): Promise<void>;
  /** Kills it (SIGKILL), as a crash of Redis or of its machine would. */
  kill(): Promise<void>;
  /** Pauses it (SIGSTOP): its connections stay open and nothing is answered, until `resume` (SIGCONT). */
  pause(): void;
  resume(): void;
  start(): Promise<void>;
}

const running = new Set<ChildProcess>();
const dirs: string[] = [];
afterAll(() => {
  for (const child of running) child.kill('SIGKILL');
  running.clear();
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

/** A new redis-server, stopped after the test file (or before, by the test). */
export async function startRedis(): Promise<RedisServer> {
  const port = await freePort();
  // The directory outlives a stop, for a restart on the same files; removed after the test file.
  const dir = mkdtempSync(join(tmpdir(), 'platform-api-mock-redis-'));
  dirs.push(dir);
  let child: ChildProcess | undefined;
  const exited = (process: ChildProcess) =>
    new Promise<void>((resolve) => {
      if (process.exitCode !== null || process.signalCode !== null) resolve();
      else process.once('exit', () => resolve());
    });
  const end = async (signal: NodeJS.Signals) => {
    if (!child) return;
    const stopping = child;
    child = undefined;
    stopping.kill(signal);
    await exited(stopping);
    running.delete(stopping);
  };
  const server: RedisServer = {
    url: `redis://127.0.0.1:${port}`,
    port,
    stop: () => end('SIGTERM'),
    kill: () => end('SIGKILL'),
    pause: () => child?.kill('SIGSTOP'),
    resume: () => child?.kill('SIGCONT'),
    async start() {
      const args = ['--port', String(port), '--bind', '127.0.0.1', '--dir', dir, '--save', ''];
      const started = spawn(found, [...args, '--appendonly', 'yes', '--appendfsync', 'always']);
      running.add(started);
      child = started;
      await new Promise<void>((resolve, reject) => {
        let output = '';
        started.stdout.on('data', (chunk) => {
          output += chunk;
          if (output.includes('Ready to accept connections')) resolve();
        });
        started.once('exit', (code) =>
          reject(new Error(`redis-server exited (${code}) before it was ready:\n${output}`)),
        );
      });
    },
  };
  await server.start();
  return server;
}

let shared: Promise<RedisServer> | undefined;
afterAll(async () => {
  const server = await shared;
  shared = undefined;
  await server?.stop();
});

/** One redis-server for the test file, started at the first call; tests keep apart by prefix. */
export function sharedRedis(): Promise<RedisServer> {
  shared ??= startRedis();
  return shared;
}

/** A key prefix no other test uses: the state it names starts empty. */
export const uniquePrefix = () => `test-${randomBytes(6).toString('hex')}:`;

async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  await new Promise((resolve) => server.close(resolve));
  return port;
}
