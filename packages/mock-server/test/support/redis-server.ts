// Debian's redis-server for the tests, on free ports with its files in a temporary directory, durable
// as the README advises (append-only file, fsync at every write): one server, or a Redis Cluster of
// three masters. Installed by scripts/install-redis.sh; where it is missing (or too old for a cluster),
// the tests that need it are skipped and say why.
import { type ChildProcess, execFile, spawn, spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as delay } from 'node:timers/promises';
import { promisify } from 'node:util';
import { defined } from './defined.js';

const which = (command: string) => spawnSync('sh', ['-c', `command -v ${command}`], { encoding: 'utf8' }).stdout.trim();
const found = which('redis-server');
const cli = which('redis-cli');

/** Why the Redis tests are skipped here; undefined when redis-server is installed. */
export const NO_REDIS = found
  ? undefined
  : "redis-server is not installed (sh scripts/install-redis.sh installs Debian's package)";

const major = Number(/v=(\d+)/.exec(found ? spawnSync(found, ['--version'], { encoding: 'utf8' }).stdout : '')?.[1]);

/** Why the Redis Cluster tests are skipped here; undefined when a local cluster can be started. */
export const NO_REDIS_CLUSTER =
  NO_REDIS ??
  (!cli
    ? "redis-cli is not installed (sh scripts/install-redis.sh installs Debian's redis-server, which brings it)"
    : major < 7
      ? `redis-server ${major} is too old for the emulator on a cluster (sharded channels need 7.0)`
      : undefined);

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

/** Stops the test file's shared servers, then kills any other it left, and removes their files (test/support/setup.ts, after each file). */
export async function stopRedisServers(): Promise<void> {
  const servers = [...shared.values()];
  shared.clear();
  for (const server of servers) await (await server).stop();
  for (const child of running) child.kill('SIGKILL');
  running.clear();
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
}

/** A new redis-server, stopped after the test file (or before, by the test). */
export async function startRedis(): Promise<RedisServer> {
  return startNode(await freePort(), []);
}

/**
 * A new Redis Cluster of three masters (no replicas), each on its own ports, stopped after the test
 * file. Stopping, killing, pausing or starting it does so to every node; it is back once the cluster
 * says it is ok again.
 */
export async function startRedisCluster(): Promise<RedisServer> {
  const nodes: RedisServer[] = [];
  for (let i = 0; i < 3; i++) {
    // The bus, on which the nodes talk to each other, on a free port too (by default port + 10000).
    const bus = ['--cluster-enabled', 'yes', '--cluster-config-file', 'nodes.conf', '--cluster-port'];
    nodes.push(await startNode(await freePort(), [...bus, String(await freePort())]));
  }
  const addresses = nodes.map((node) => `127.0.0.1:${node.port}`);
  await run(cli, ['--cluster', 'create', ...addresses, '--cluster-replicas', '0', '--cluster-yes']);
  await clusterOk(nodes);
  const each = async (action: (node: RedisServer) => Promise<void> | void) => {
    await Promise.all(nodes.map(action));
  };
  return {
    url: `redis+cluster://${addresses.join(',')}`,
    port: defined(nodes[0]).port,
    stop: () => each((node) => node.stop()),
    kill: () => each((node) => node.kill()),
    pause: () => void each((node) => node.pause()),
    resume: () => void each((node) => node.resume()),
    async start() {
      await each((node) => node.start());
      await clusterOk(nodes);
    },
  };
}

const run = promisify(execFile);
const CLUSTER_OK_WITHIN_MS = 60_000;

/** Waits until every node says the cluster is ok (every slot served): a cluster forms in a moment. */
async function clusterOk(nodes: RedisServer[]): Promise<void> {
  const deadline = Date.now() + CLUSTER_OK_WITHIN_MS;
  for (const { port } of nodes) {
    for (;;) {
      const { stdout } = await run(cli, ['-p', String(port), 'cluster', 'info']);
      if (stdout.includes('cluster_state:ok')) break;
      if (Date.now() > deadline)
        throw new Error(`the Redis Cluster is not ok within ${CLUSTER_OK_WITHIN_MS} ms:\n${stdout}`);
      await delay(50);
    }
  }
}

async function startNode(port: number, extraArgs: string[]): Promise<RedisServer> {
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
      const started = spawn(found, [...args, '--appendonly', 'yes', '--appendfsync', 'always', ...extraArgs]);
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

const shared = new Map<() => Promise<RedisServer>, Promise<RedisServer>>();

/** One redis-server for the test file, started at the first call; tests keep apart by prefix. */
export const sharedRedis = () => once(startRedis);

/** One Redis Cluster for the test file, started at the first call; tests keep apart by prefix. */
export const sharedRedisCluster = () => once(startRedisCluster);

function once(starter: () => Promise<RedisServer>): Promise<RedisServer> {
  let server = shared.get(starter);
  if (!server) {
    server = starter();
    shared.set(starter, server);
  }
  return server;
}

/** The ways to run Redis in the tests: the suites that share state run on each. */
export const REDIS_KINDS = [
  { name: 'one Redis', skipped: NO_REDIS, start: startRedis, shared: sharedRedis },
  {
    name: 'a Redis Cluster of three masters',
    skipped: NO_REDIS_CLUSTER,
    start: startRedisCluster,
    shared: sharedRedisCluster,
  },
];

/** A key prefix no other test uses: the state it names starts empty. */
export const uniquePrefix = () => `test-${randomBytes(6).toString('hex')}:`;

async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  await new Promise((resolve) => server.close(resolve));
  return port;
}
