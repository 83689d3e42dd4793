// Emulators in one process, as a test suite starts one per test (the test kit's Emulator, or
// startMockServer): each is started, answers a token, creates a folder, lists folders, publishes to a
// new topic, and is closed. The first pays for parsing the specs and compiling their checks, which
// the later ones share. Run in a child process of its own, so nothing the bench ran before has
// warmed it: the first one's time, and the median time and CPU of the later ones.
import { execFile } from 'node:child_process';
import { fileURLToPath } from 'node:url';

const SELF = fileURLToPath(import.meta.url);

export function inProcessStarts({ runs = 21 } = {}) {
  return new Promise((resolve, reject) => {
    execFile(process.execPath, [SELF, String(runs)], (error, stdout) =>
      error ? reject(error) : resolve(JSON.parse(stdout)),
    );
  });
}

async function measure(runs) {
  const { startMockServer } = await import('../../packages/mock-server/dist/index.js');
  const once = async () => {
    const began = performance.now();
    const cpu = process.cpuUsage();
    const server = await startMockServer();
    try {
      await useOnce(server);
    } finally {
      await server.close();
    }
    const { user, system } = process.cpuUsage(cpu);
    return { ms: performance.now() - began, cpuMs: (user + system) / 1000 };
  };
  const first = await once();
  const later = [];
  for (let i = 0; i < runs; i++) later.push(await once());
  const median = (key) => later.map((run) => run[key]).sort((a, b) => a - b)[runs >> 1];
  return { runs, firstMs: first.ms, firstCpuMs: first.cpuMs, medianMs: median('ms'), medianCpuMs: median('cpuMs') };
}

async function useOnce(server) {
  const form = new URLSearchParams({
    grant_type: 'client_credentials',
    client_id: server.clientId,
    client_secret: server.clientSecret,
  });
  const { access_token: token } = await call(server, 'POST', '/oauth2/token', form, 200);
  const json = (body) => JSON.stringify(body);
  await call(server, 'POST', '/api/folders', json({ name: 'bench' }), 200, token);
  await call(server, 'GET', '/api/folders', undefined, 200, token);
  const topic = { name: 'orders', schema: [{ name: 'order_id', type: 'string' }] };
  const { id } = await call(server, 'POST', '/api/event_streams/topics', json(topic), 200, token);
  await call(server, 'POST', `/api/v1/topics/${id}/publish`, json({ order_id: 'A' }), 201, token);
}

async function call(server, method, path, body, expected, token) {
  const headers = {
    ...(token ? { authorization: `Bearer ${token}` } : {}),
    ...(typeof body === 'string' ? { 'content-type': 'application/json' } : {}),
  };
  const response = await fetch(`${server.url}${path}`, { method, headers, body });
  const text = await response.text();
  if (response.status !== expected) throw new Error(`${method} ${path} answered ${response.status}: ${text}`);
  return text ? JSON.parse(text) : undefined;
}

if (process.argv[1] === SELF) {
  console.log(JSON.stringify(await measure(Number(process.argv[2]))));
}
