// Start-up: from spawning a server to its first answered request, median of several runs, each
// measured alike: the server prints its URL on stdout, then one POST on a new connection is answered.
// The emulator's command line gets a token request with the credentials it was given (`args` add flags:
// a data dir to reopen). Its baselines, in turns with it: the barest node:http server, a one-line
// `node -e` script answering every request, and bench/servers/bare.mjs, the publish rows' bare server
// (an ES module importing node:http and a helper module).
import { spawn } from 'node:child_process';
import { request } from 'node:http';
import { createInterface } from 'node:readline';
import { stopChild } from './processes.mjs';

const CLIENT_ID = 'bench';
const CLIENT_SECRET = 'bench-secret';
const TOKEN_BODY = `grant_type=client_credentials&client_id=${CLIENT_ID}&client_secret=${CLIENT_SECRET}`;
const ONE_LINE_SERVER =
  "require('node:http').createServer((req, res) => req.resume().on('end', () => res.end('{}')))" +
  ".listen(0, '127.0.0.1', function () { console.log('http://127.0.0.1:' + this.address().port) })";

/** `nodeFlags`: node's own, before the script (a profiler's). */
export function startupTimes({ cli, runs = 7, args = [], nodeFlags = [] }) {
  return medianOfRuns(runs, () => emulatorFirstAnswer(cli, args, nodeFlags));
}

/**
 * The emulator's start-up and its two baselines', `runs` each, taking turns (the order turned by one
 * each round), so that the machine's changes of speed touch the three alike.
 */
export async function startupComparison({ cli, bareServer, runs = 11 }) {
  const starts = {
    emulator: () => emulatorFirstAnswer(cli, []),
    oneLine: () => firstAnswer(['-e', ONE_LINE_SERVER], { path: '/', contentType: 'application/json', body: '{}' }),
    bareModule: () =>
      firstAnswer([bareServer], { path: '/', contentType: 'application/json', body: '{}', status: 201 }),
  };
  const names = Object.keys(starts);
  const times = Object.fromEntries(names.map((name) => [name, []]));
  for (let round = 0; round < runs; round++) {
    for (const name of [...names.slice(round % names.length), ...names.slice(0, round % names.length)]) {
      times[name].push(await starts[name]());
    }
  }
  return Object.fromEntries(names.map((name) => [name, summary(times[name])]));
}

function emulatorFirstAnswer(cli, args, nodeFlags = []) {
  const flags = ['--port', '0', '--log-level', 'error', '--client-id', CLIENT_ID, '--client-secret', CLIENT_SECRET];
  return firstAnswer([...nodeFlags, cli, ...flags, ...args], {
    path: '/oauth2/token',
    contentType: 'application/x-www-form-urlencoded',
    body: TOKEN_BODY,
  });
}

async function medianOfRuns(runs, once) {
  const times = [];
  for (let i = 0; i < runs; i++) times.push(await once());
  return summary(times);
}

function summary(times) {
  const sorted = [...times].sort((a, b) => a - b);
  return {
    runs: times.length,
    medianMs: sorted[Math.floor(times.length / 2)],
    minMs: sorted[0],
    maxMs: sorted.at(-1),
    times: times.map((ms) => Math.round(ms * 10) / 10),
  };
}

/** Milliseconds from spawning node with `args` to the answer of one POST to the URL it prints first. */
async function firstAnswer(args, { path, contentType, body, status = 200 }) {
  const began = performance.now();
  const child = spawn(process.execPath, args, { stdio: ['ignore', 'pipe', 'inherit'] });
  try {
    const url = await printedUrl(child);
    const answered = await post(`${url}${path}`, contentType, body);
    const elapsed = performance.now() - began;
    if (answered !== status) throw new Error(`${args.join(' ')} answered ${answered}, not ${status}`);
    return elapsed;
  } finally {
    await stopChild(child);
  }
}

function printedUrl(child) {
  return new Promise((resolve, reject) => {
    const lines = createInterface({ input: child.stdout });
    lines.on('line', (line) => {
      const url = /(http:\/\/127\.0\.0\.1:\d+)/.exec(line)?.[1];
      if (url) resolve(url);
    });
    child.once('exit', (code) => reject(new Error(`The server exited with ${code} before listening`)));
  });
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
