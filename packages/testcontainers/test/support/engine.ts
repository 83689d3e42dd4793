// Global setup of the container tests: finds a container engine and builds the emulator's image once per
// run (`npm run image`; its layers are cached, so an unchanged emulator costs seconds). The engine is the
// one DOCKER_HOST names, else podman's Docker-compatible API served for the run on a socket of its own
// (Ryuk off: its image cannot be pulled without a registry), else Docker's socket. Without any engine the
// tests are skipped and say why.
import { type ChildProcess, execFile, spawn } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { request } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import type { TestProject } from 'vitest/node';

declare module 'vitest' {
  export interface ProvidedContext {
    /** DOCKER_HOST for testcontainers, or why there is none. */
    containerEngine: { dockerHost: string } | { missing: string };
  }
}

const run = promisify(execFile);
const repositoryRoot = fileURLToPath(new URL('../../../..', import.meta.url));
const DOCKER_SOCKET = '/var/run/docker.sock';

export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  let service: ChildProcess | undefined;
  let socketDir: string | undefined;
  let dockerHost = process.env.DOCKER_HOST;
  if (!dockerHost && (await works('podman', ['info']))) {
    socketDir = mkdtempSync(join(tmpdir(), 'podman-api-'));
    dockerHost = `unix://${join(socketDir, 'podman.sock')}`;
    service = spawn('podman', ['system', 'service', '--time=0', dockerHost], { stdio: 'ignore' });
    const socket = join(socketDir, 'podman.sock');
    if (!(await answersPing(socket, 600))) throw new Error(`podman system service: no Docker API on ${socket}`);
  } else if (!dockerHost && existsSync(DOCKER_SOCKET) && (await answersPing(DOCKER_SOCKET, 1))) {
    dockerHost = `unix://${DOCKER_SOCKET}`;
  }
  if (!dockerHost) {
    project.provide('containerEngine', {
      missing: 'no container engine (podman or Docker) on this machine; sh scripts/install-podman.sh installs podman',
    });
    return async () => {};
  }
  // The image from this checkout's emulator, built by the same script as `npm run image`; turbo built the
  // emulator and the docs before this test (they are this package's dev dependencies).
  await run('sh', [join(repositoryRoot, 'scripts/image.sh')], {
    cwd: repositoryRoot,
    env: { ...process.env, IMAGE_PREBUILT: '1' },
    maxBuffer: 64 * 1024 * 1024,
  });
  project.provide('containerEngine', { dockerHost });
  return async () => {
    service?.kill('SIGTERM');
    if (socketDir) rmSync(socketDir, { recursive: true, force: true });
  };
}

async function works(command: string, args: string[]): Promise<boolean> {
  try {
    await run(command, args);
    return true;
  } catch {
    return false;
  }
}

/** Whether the Docker API on `socketPath` answers GET /_ping within `attempts` tries (podman's service takes a moment). */
async function answersPing(socketPath: string, attempts: number): Promise<boolean> {
  for (let attempt = 0; attempt < attempts; attempt++) {
    const ok = await new Promise<boolean>((resolve) => {
      request({ socketPath, path: '/_ping' }, (answer) => {
        answer.resume();
        resolve(answer.statusCode === 200);
      })
        .on('error', () => resolve(false))
        .end();
    });
    if (ok) return true;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  return false;
}
