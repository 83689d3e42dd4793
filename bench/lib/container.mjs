// The container image (issue 29): its size, `podman run` to the first answered token request through the
// published port, and `podman stop` (SIGTERM, drain, exit) to the container gone; medians of several runs.
// The image is built (or found in the layer cache) by scripts/image.sh first. Without podman: null, and why.
import { execFileSync } from 'node:child_process';
import { freePort, run } from './processes.mjs';

const IMAGE = 'platform-api-mock:dev';
const CLIENT_ID = 'bench';
const CLIENT_SECRET = 'bench-secret';

export async function containerMeasures({ root, runs = 5 }) {
  try {
    execFileSync('podman', ['info'], { stdio: 'ignore' });
  } catch {
    return { skipped: 'podman is not installed or does not work here (sh scripts/install-podman.sh)' };
  }
  const buildBegan = performance.now();
  await run('sh', ['scripts/image.sh'], { cwd: root });
  const rebuildSeconds = (performance.now() - buildBegan) / 1000;
  const { stdout } = await run('podman', ['image', 'inspect', '--format', '{{.Size}}', IMAGE]);
  const sizeBytes = Number(stdout);
  const startMs = [];
  const stopMs = [];
  for (let i = 0; i < runs; i++) {
    const { firstAnswerMs, stopTookMs } = await runOnce();
    startMs.push(firstAnswerMs);
    stopMs.push(stopTookMs);
  }
  return { image: IMAGE, sizeBytes, rebuildSeconds, runs, start: summary(startMs), stop: summary(stopMs) };
}

async function runOnce() {
  const port = await freePort();
  const name = `platform-api-bench-${process.pid}-${port}`;
  const began = performance.now();
  await run('podman', [
    'run',
    '-d',
    '--rm',
    '--name',
    name,
    '-p',
    `127.0.0.1:${port}:4010`,
    IMAGE,
    '--client-id',
    CLIENT_ID,
    '--client-secret',
    CLIENT_SECRET,
    '--log-level',
    'error',
  ]);
  try {
    // Polled every 10 ms: the port is published before the emulator listens.
    for (;;) {
      const status = await tokenRequest(port).catch(() => undefined);
      if (status === 200) break;
      if (status !== undefined) throw new Error(`The token request answered ${status}`);
      if (performance.now() - began > 60_000) throw new Error(`${name}: no answer within 60 s`);
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
    const firstAnswerMs = performance.now() - began;
    const stopBegan = performance.now();
    await run('podman', ['stop', '--time', '10', name]);
    return { firstAnswerMs, stopTookMs: performance.now() - stopBegan };
  } catch (error) {
    await run('podman', ['rm', '--force', name]).catch(() => {});
    throw error;
  }
}

async function tokenRequest(port) {
  const answer = await fetch(`http://127.0.0.1:${port}/oauth2/token`, {
    method: 'POST',
    body: new URLSearchParams({ grant_type: 'client_credentials', client_id: CLIENT_ID, client_secret: CLIENT_SECRET }),
  });
  await answer.arrayBuffer();
  return answer.status;
}

function summary(times) {
  const sorted = [...times].sort((a, b) => a - b);
  return { medianMs: sorted[Math.floor(sorted.length / 2)], minMs: sorted[0], maxMs: sorted.at(-1) };
}
