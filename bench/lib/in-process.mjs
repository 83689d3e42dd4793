// Emulators in one process, as a test suite starts one per test (the test kit's Emulator, or
// startMockServer): each is started, answers a token, creates a folder, lists folders, publishes to a
// new topic, and is closed. The first pays for parsing the specs and compiling their checks, which
// the later ones share. Run in a child process of its own, so nothing the bench ran before has
// warmed it: the first one's time, and the median time and CPU of the later ones.
import { execFile } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { call } from './requests.mjs';
import { median } from './stats.mjs';

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
  const middle = (key) => median(later.map((run) => run[key]));
  return { runs, firstMs: first.ms, firstCpuMs: first.cpuMs, medianMs: middle('ms'), medianCpuMs: middle('cpuMs') };
}

async function useOnce(server) {
  const form = new URLSearchParams({
    grant_type: 'client_credentials',
    client_id: server.clientId,
    client_secret: server.clientSecret,
  });
  const { url } = server;
  const { access_token: token } = await call(url, 'POST', '/oauth2/token', { body: form, expect: 200 });
  await call(url, 'POST', '/api/folders', { body: { name: 'bench' }, token, expect: 200 });
  await call(url, 'GET', '/api/folders', { token, expect: 200 });
  const topic = { name: 'orders', schema: [{ name: 'order_id', type: 'string' }] };
  const { id } = await call(url, 'POST', '/api/event_streams/topics', { body: topic, token, expect: 200 });
  await call(url, 'POST', `/api/v1/topics/${id}/publish`, { body: { order_id: 'A' }, token, expect: 201 });
}

if (process.argv[1] === SELF) {
  console.log(JSON.stringify(await measure(Number(process.argv[2]))));
}
