// The bench's redis-server (Debian's, installed by scripts/install-redis.sh): on a free port, its files
// in the bench's temporary directory, durable as the README advises (append-only file, fsync always).
import { mkdirSync } from 'node:fs';
import { createConnection } from 'node:net';
import { freePort, startProbed } from './processes.mjs';

export async function startRedisServer(dir) {
  mkdirSync(dir, { recursive: true });
  const port = await freePort();
  const args = ['--port', String(port), '--bind', '127.0.0.1', '--dir', dir, '--save', ''];
  const child = await startProbed('redis-server', [...args, '--appendonly', 'yes', '--appendfsync', 'always'], () =>
    accepts(port),
  );
  return { child, url: `redis://127.0.0.1:${port}` };
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
