// The bench's redis-server (Debian's, installed by scripts/install-redis.sh): on a free port, its files
// in the bench's temporary directory, durable as the README advises (append-only file, fsync always);
// or three of them as a Redis Cluster of three masters (made by redis-cli).
import { execFile, execFileSync } from 'node:child_process';
import { mkdirSync } from 'node:fs';
import { createConnection } from 'node:net';
import { join } from 'node:path';
import { setTimeout as delay } from 'node:timers/promises';
import { promisify } from 'node:util';
import { cpuMicros } from './cpu.mjs';
import { freePort, startProbed } from './processes.mjs';

export async function startRedisServer(dir, extraArgs = []) {
  mkdirSync(dir, { recursive: true });
  const port = await freePort();
  const args = ['--port', String(port), '--bind', '127.0.0.1', '--dir', dir, '--save', ''];
  const child = await startProbed(
    'redis-server',
    [...args, '--appendonly', 'yes', '--appendfsync', 'always', ...extraArgs],
    () => accepts(port),
  );
  return { child, port, url: `redis://127.0.0.1:${port}` };
}

/** Three masters, each with its cluster bus on a free port; ready once every one says the cluster is ok. */
export async function startRedisCluster(dir) {
  const nodes = [];
  for (let i = 0; i < 3; i++) {
    const bus = ['--cluster-enabled', 'yes', '--cluster-config-file', 'nodes.conf'];
    nodes.push(await startRedisServer(join(dir, `node${i}`), [...bus, '--cluster-port', String(await freePort())]));
  }
  const addresses = nodes.map(({ port }) => `127.0.0.1:${port}`);
  const cli = (args) => execFileSync('redis-cli', args, { encoding: 'utf8' });
  cli(['--cluster', 'create', ...addresses, '--cluster-replicas', '0', '--cluster-yes']);
  for (const { port } of nodes) {
    while (!cli(['-p', String(port), 'cluster', 'info']).includes('cluster_state:ok')) await delay(50);
  }
  return { nodes, url: `redis+cluster://${addresses.join(',')}` };
}

/**
 * Redis alone under the publish load's shape, no emulator: `clients` connections, each sending a SET
 * of `bytes` and waiting for its answer (redis-benchmark, Debian's redis-tools), `requests` in all.
 * With the append-only file synced at every write, the most writes a second that any client with that
 * many requests in flight can have acknowledged by this Redis, and what each costs Redis at the least.
 */
export async function redisAlone(redis, { clients, requests, bytes }) {
  const before = cpuMicros(redis.child.pid);
  const args = ['-h', '127.0.0.1', '-p', String(redis.port), '-c', String(clients), '-n', String(requests)];
  const { stdout } = await promisify(execFile)('redis-benchmark', [...args, '-t', 'set', '-d', String(bytes), '--csv']);
  const redisMicros = cpuMicros(redis.child.pid) - before;
  // "test","rps","avg_latency_ms","min_latency_ms","p50_latency_ms",...: a header, then a row.
  const [header, row] = stdout
    .trim()
    .split('\n')
    .map((line) => JSON.parse(`[${line}]`));
  const field = (name) => Number(row[header.indexOf(name)]);
  return {
    requestsPerSecond: field('rps'),
    p50Ms: field('p50_latency_ms'),
    p99Ms: field('p99_latency_ms'),
    redisCpuMicrosPerRequest: redisMicros / requests,
  };
}

/** True once something accepts connections on the port. */
function accepts(port) {
  return new Promise((resolve) => {
    const socket = createConnection({ port, host: '127.0.0.1' });
    socket.once('connect', () => {
      socket.destroy();
      resolve(true);
    });
    socket.once('error', () => resolve(false));
  });
}
