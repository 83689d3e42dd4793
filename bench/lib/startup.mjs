// Start-up: from spawning the emulator's command line to its first answered request (a token
// request with the credentials given on the command line), median of several runs; `args` add flags
// (a data dir to reopen). The baseline: the same for a bare node:http server (bench/servers/bare.mjs)
// and its first answered POST.
import { spawn } from 'node:child_process';
import { request } from 'node:http';
import { createInterface } from 'node:readline';
import { startChild, stopChild } from './processes.mjs';

const CLIENT_ID = 'bench';
const CLIENT_SECRET = 'bench-secret';

export function startupTimes({ cli, runs = 7, args = [] }) {
  return medianOfRuns(runs, () => startOnce(cli, args));
}

/** Spawning bench/servers/bare.mjs to its first answered request. */
export function bareStartupTimes({ server, runs = 7 }) {
  return medianOfRuns(runs, async () => {
    const began = performance.now();
    const { child, info } = await startChild(process.execPath, [server]);
    try {
      const status = await post(`${info.url}/`, 'application/json', '{}');
      if (status !== 201) throw new Error(`The bare server answered ${status}`);
      return performance.now() - began;
    } finally {
      await stopChild(child);
    }
  });
}

async function medianOfRuns(runs, once) {
  const times = [];
  for (let i = 0; i < runs; i++) times.push(await once());
  const sorted = [...times].sort((a, b) => a - b);
  return { runs, medianMs: sorted[Math.floor(runs / 2)], minMs: sorted[0], maxMs: sorted.at(-1) };
}

async function startOnce(cli, args) {
  const began = performance.now();
  const child = spawn(
    process.execPath,
    [cli, '--port', '0', '--log-level', 'error', '--client-id', CLIENT_ID, '--client-secret', CLIENT_SECRET, ...args],
    {
      stdio: ['ignore', 'pipe', 'inherit'],
    },
  );
  try {
    const url = await listeningUrl(child);
    const status = await tokenRequest(url);
    const elapsed = performance.now() - began;
    if (status !== 200) throw new Error(`The token request answered ${status}`);
    return elapsed;
  } finally {
    await stopChild(child);
  }
}

function listeningUrl(child) {
  return new Promise((resolve, reject) => {
    const lines = createInterface({ input: child.stdout });
    lines.on('line', (line) => {
      const url = /listening on (http:\/\/\S+)/.exec(line)?.[1];
      if (url) resolve(url);
    });
    child.once('exit', (code) => reject(new Error(`The emulator exited with ${code} before listening`)));
  });
}

function tokenRequest(url) {
  const body = `grant_type=client_credentials&client_id=${CLIENT_ID}&client_secret=${CLIENT_SECRET}`;
  return post(`${url}/oauth2/token`, 'application/x-www-form-urlencoded', body);
}

/** One POST on a new connection; resolves to the answer's status once its body has been read. */
function post(url, contentType, body) {
  return new Promise((resolve, reject) => {
    const req = request(url, { method: 'POST', headers: { 'content-type': contentType } }, (res) => {
      res.resume();
      res.on('end', () => resolve(res.statusCode));
    });
    req.on('error', reject);
    req.end(body);
  });
}
