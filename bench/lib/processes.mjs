// Starting and stopping the servers the bench measures. Every child is stopped (SIGTERM, then SIGKILL)
// when the bench ends, also when it fails.
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { createServer } from 'node:net';
import { createInterface } from 'node:readline';

const children = new Set();

/** Spawns a bench server that prints one JSON `{"ready":true,...}` line when it listens; resolves to that line. */
export async function startChild(command, args, { timeoutMs = 60_000 } = {}) {
  const child = spawn(command, args, { stdio: ['ignore', 'pipe', 'inherit'] });
  children.add(child);
  child.once('exit', () => children.delete(child));
  const lines = createInterface({ input: child.stdout });
  const ready = new Promise((resolve, reject) => {
    const timer = setTimeout(
      () => reject(new Error(`${args.join(' ')} was not ready within ${timeoutMs} ms`)),
      timeoutMs,
    );
    lines.on('line', (line) => {
      if (!line.startsWith('{"ready":true')) return;
      clearTimeout(timer);
      resolve(JSON.parse(line));
    });
    child.once('exit', (code) => reject(new Error(`${args.join(' ')} exited with ${code} before it was ready`)));
  });
  try {
    return { child, info: await ready };
  } catch (error) {
    await stopChild(child);
    throw error;
  }
}

/** Spawns a server that prints nothing useful (Prism) and waits until `probe` succeeds. */
export async function startProbed(command, args, probe, { timeoutMs = 60_000 } = {}) {
  const child = spawn(command, args, { stdio: ['ignore', 'ignore', 'inherit'] });
  children.add(child);
  child.once('exit', () => children.delete(child));
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (child.exitCode !== null) throw new Error(`${command} exited with ${child.exitCode}`);
    if (await probe().catch(() => false)) return child;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  await stopChild(child);
  throw new Error(`${command} did not answer within ${timeoutMs} ms`);
}

export async function stopChild(child) {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = once(child, 'exit');
  child.kill('SIGTERM');
  const force = setTimeout(() => child.kill('SIGKILL'), 3000);
  await exited;
  clearTimeout(force);
}

export async function stopAllChildren() {
  await Promise.all([...children].map(stopChild));
}

/** A port that was free a moment ago, for servers that cannot listen on port 0 and report it (Prism). */
export async function freePort() {
  const server = createServer();
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address();
  await new Promise((resolve) => server.close(resolve));
  return port;
}

/** Runs a command to its end; resolves to its standard output (its error output goes into the failure). */
export async function run(command, args, { cwd, env } = {}) {
  const child = spawn(command, args, { cwd, env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (chunk) => (stdout += chunk));
  child.stderr.on('data', (chunk) => (stderr += chunk));
  // 'close', not 'exit': a child may exit before its output has all been read.
  const [code] = await once(child, 'close');
  if (code !== 0) throw new Error(`${command} ${args.join(' ')} failed (${code}): ${stderr || stdout}`);
  return { stdout };
}
