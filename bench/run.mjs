// npm run bench: measures the emulator beside Prism and a bare node:http server, plus the repository's
// tooling, in one run; writes bench/results.json and the results section of BENCHMARKS.md.
// `node bench/run.mjs redis` (after a build): the Redis rows alone, beside one in-memory publish run,
// with their targets; `node bench/run.mjs publish`: the publish rounds and the consume drain alone
// (what a change to the request path moves); `node bench/run.mjs startup`: the start-up rows;
// `node bench/run.mjs dev-loop` (after a build): the live loop's rows; `node bench/run.mjs workspaces`:
// the rows of many workspaces on one emulator. Printed, nothing written.
// Loopback only; every load is bounded (wrk durations, fixed message counts); every server it starts
// is stopped, also on failure.

import { execFileSync } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { drain, longPollWake } from './lib/consume.mjs';
import { containerMeasures } from './lib/container.mjs';
import { cpuMicros, residentBytes } from './lib/cpu.mjs';
import { prefillOverHttp } from './lib/data-dir.mjs';
import { devLoopTimes } from './lib/dev-loop.mjs';
import { inProcessStarts } from './lib/in-process.mjs';
import { describeMachine } from './lib/machine.mjs';
import { roundTrips } from './lib/management.mjs';
import { batchPublishPath, batchText, PAYLOAD_TEXT, publishPath } from './lib/payload.mjs';
import { freePort, startChild, startProbed, stopAllChildren, stopChild } from './lib/processes.mjs';
import { redisAlone, startRedisCluster, startRedisServer } from './lib/redis.mjs';
import {
  devLoopTargets,
  evaluateTargets,
  redisTargets,
  renderMarkdown,
  replaceGenerated,
  startupTargets,
  workspacesTargets,
} from './lib/report.mjs';
import { resetTimes } from './lib/reset.mjs';
import { startupComparison, startupTimes } from './lib/startup.mjs';
import { clientSize, codegenTimes } from './lib/tooling.mjs';
import { workspacesMeasures } from './lib/workspaces.mjs';
import { wrkPost } from './lib/wrk.mjs';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const at = (path) => join(ROOT, path);
const PUBLISH_SECONDS = 10;
const WARMUP_SECONDS = 2;
const BATCH_MESSAGES = 100;
const DRAIN_MESSAGES = 1_000_000;
const CONSUME_BATCH = 50;
const WRK_CONNECTIONS = 10;
/** Publish rounds of every server, each on a fresh server: the machine's speed drifts, and varies. */
const PUBLISH_ROUNDS = 5;
/** Slices of a server's PUBLISH_SECONDS in a round, the servers taking turns (publishRounds); whole seconds each, for wrk. */
const PUBLISH_SLICES = 5;
const MANAGEMENT_SECONDS = 5;
/** Long-poll wake-ups across two emulators on Redis: each is a publish and a consume, both through Redis. */
const CROSS_WAKE_SAMPLES = 1000;
/** Rounds of the publishes on Redis (redisPublishRounds), each with fresh emulators. */
const REDIS_ROUNDS = 3;
/** SETs of Redis alone per round (redisAlone): about five seconds here. */
const REDIS_ALONE_REQUESTS = 100_000;
/** Messages drained from Redis: fewer than from memory, as Redis holds them in its memory and its file too. */
const REDIS_DRAIN_MESSAGES = 200_000;

function requireTools() {
  for (const tool of ['wrk', 'hyperfine', 'redis-server', 'redis-benchmark']) {
    try {
      execFileSync('sh', ['-c', `command -v ${tool}`], { stdio: 'ignore' });
    } catch {
      throw new Error(`${tool} is missing: run sh scripts/install-bench-tools.sh`);
    }
  }
}

const log = (text) => process.stdout.write(`bench: ${text}\n`);

/**
 * wrk on the server process `pid`: a short warm-up run (JIT, connection set-up), then the measured run,
 * which also reports the server's CPU time per request (and that of the Redis processes it uses, `redisPids`).
 */
async function loadTest(pid, options, redisPids) {
  const [result] = await loadTogether([{ pid, options }], redisPids);
  return result;
}

/**
 * loadTest on several servers at once, one wrk each; the Redis CPU per request (of every Redis process
 * in `redisPids`, the nodes of a cluster) counts every server's requests.
 */
async function loadTogether(targets, redisPids) {
  await loadSlice(targets, WARMUP_SECONDS);
  const { results, redisMicros } = await loadSlice(targets, PUBLISH_SECONDS, redisPids);
  return withRedisCpu(
    results.map((result) => asOneRun([result])),
    redisMicros,
  );
}

/**
 * wrk on each target at once for `seconds`: each one's result with its server's CPU time
 * (`serverCpuMicros`), and that of the Redis processes in `redisPids` (undefined without).
 */
async function loadSlice(targets, seconds, redisPids) {
  const redisCpu = () => redisPids?.reduce((sum, pid) => sum + cpuMicros(pid), 0);
  const cpuBefore = targets.map(({ pid }) => cpuMicros(pid));
  const redisBefore = redisCpu();
  const results = await Promise.all(
    targets.map(({ options }) => wrkPost({ ...options, connections: WRK_CONNECTIONS, seconds })),
  );
  for (const [i, result] of results.entries()) {
    requireAnswered(result, targets[i].options);
    result.serverCpuMicros = cpuBefore[i] === undefined ? undefined : cpuMicros(targets[i].pid) - cpuBefore[i];
  }
  return { results, redisMicros: redisBefore === undefined ? undefined : redisCpu() - redisBefore };
}

/** Redis's CPU time per request of the servers that shared it, on each server's run. */
function withRedisCpu(runs, redisMicros) {
  if (redisMicros === undefined) return runs;
  const requests = runs.reduce((sum, run) => sum + run.requests, 0);
  return runs.map((run) => ({ ...run, redisCpuMicrosPerRequest: redisMicros / requests }));
}

/** The middle value (of an even count, the lower of the two middle ones). */
const medianOf = (values) => [...values].sort((a, b) => a - b)[(values.length - 1) >> 1];

/** Throws when a wrk run had failed answers or socket errors: its figures would not be of publishes. */
function requireAnswered(result, { url, path }) {
  if (result.failed > 0 || result.socketErrors) {
    throw new Error(`${url}${path}: ${result.failed} failed answers, socket errors ${result.socketErrors}`);
  }
}

/** Publish figures of a fresh server from bench/servers (the bare one takes no token and any topic id). */
async function publishOn(name, script, files, args = []) {
  const { child, info } = await startChild(process.execPath, [at(`bench/servers/${script}`), ...args]);
  try {
    log(`publish, ${name} ${info.url}`);
    return await loadTest(child.pid, publishLoad(info, files));
  } finally {
    await stopChild(child);
  }
}

const publishLoad = (info, files) => ({
  url: info.url,
  token: info.token,
  path: publishPath(info.topicId ?? 1),
  bodyFile: files.message,
});

/**
 * Emulators on one Redis (fsync always): publish through one, and through two at once (one wrk each),
 * in rounds (redisPublishRounds), with the CPU per publish of each emulator and of Redis, and the
 * long-poll wake-up across two; then a drain of messages stored by batch publish. Each measure on its
 * own key prefix.
 */
async function redisMeasures(files, dir) {
  const redis = await startRedisServer(join(dir, 'redis'));
  const emulator = (prefix) =>
    startChild(process.execPath, [
      at('bench/servers/emulator.mjs'),
      ...['--redis-url', redis.url, '--redis-prefix', prefix],
    ]);
  try {
    const { one, two, alone } = await redisPublishRounds(emulator, files, redis);
    const drained = await emulator('bench-drain:');
    try {
      const offsetsFile = join(dir, 'redis-offsets.txt');
      log(`storing ${REDIS_DRAIN_MESSAGES} messages in Redis by batch publish`);
      const batches = {
        total: REDIS_DRAIN_MESSAGES,
        batchSize: BATCH_MESSAGES,
        consumeBatch: CONSUME_BATCH,
        offsetsFile,
      };
      const prefill = await prefillOverHttp({ ...drained.info, ...batches });
      log('consume drain from Redis');
      const cpuBefore = [cpuMicros(drained.child.pid), cpuMicros(redis.child.pid)];
      const consume = await drain({
        ...drained.info,
        offsetsFile,
        total: REDIS_DRAIN_MESSAGES,
        batchSize: CONSUME_BATCH,
        connections: 8,
        depth: 4,
      });
      const batchesRead = REDIS_DRAIN_MESSAGES / CONSUME_BATCH;
      consume.batchSize = CONSUME_BATCH;
      consume.serverCpuMicrosPerBatch = (cpuMicros(drained.child.pid) - cpuBefore[0]) / batchesRead;
      consume.redisCpuMicrosPerBatch = (cpuMicros(redis.child.pid) - cpuBefore[1]) / batchesRead;
      return { one, two, alone, prefill, consume };
    } finally {
      await stopChild(drained.child);
    }
  } finally {
    await stopChild(redis.child);
  }
}

/**
 * REDIS_ROUNDS rounds, each with fresh emulators: one alone and a pair on a prefix of their own, all
 * started together, then the one and the pair taking turns (takeTurns; the pair first in every other
 * round), then Redis alone under the same number of connections (redisAlone). Reported: the round
 * whose pair-to-one ratio is the median, with the requests/s of every round, the long-poll wake-up
 * across the last round's pair, and Redis alone's median round.
 */
async function redisPublishRounds(emulator, files, redis) {
  const rounds = [];
  let wake;
  for (let round = 0; round < REDIS_ROUNDS; round++) {
    const setups = { one: [], two: [] };
    try {
      setups.one.push(await emulator(`bench-one-${round}:`));
      for (let i = 0; i < 2; i++) setups.two.push(await emulator(`bench-two-${round}:`));
      const names = { one: 'one emulator on Redis', two: 'two emulators on one Redis together' };
      const order = round % 2 ? ['two', 'one'] : ['one', 'two'];
      const measured = await takeTurns(
        order.map((key) => ({
          key,
          name: `${names[key]} (round ${round + 1})`,
          targets: setups[key].map(({ child, info }) => ({ pid: child.pid, options: publishLoad(info, files) })),
        })),
        [redis.child.pid],
      );
      const [one] = measured.one;
      const emulators = measured.two;
      const requestsPerSecond = emulators.reduce((sum, run) => sum + run.requestsPerSecond, 0);
      log(`Redis alone: ${REDIS_ALONE_REQUESTS} SETs from ${WRK_CONNECTIONS} connections (round ${round + 1})`);
      const alone = await redisAlone(redis, {
        clients: WRK_CONNECTIONS,
        requests: REDIS_ALONE_REQUESTS,
        bytes: Buffer.byteLength(PAYLOAD_TEXT),
      });
      rounds.push({ one, two: { emulators, requestsPerSecond }, alone });
      if (round === REDIS_ROUNDS - 1) {
        log('long-poll wake-up across emulators: consumer on one, publisher on the other');
        const [first, second] = setups.two;
        wake = await longPollWake({
          ...second.info,
          publishUrl: first.info.url,
          payloadText: PAYLOAD_TEXT,
          samples: CROSS_WAKE_SAMPLES,
        });
      }
    } finally {
      await Promise.all([...setups.one, ...setups.two].map(({ child }) => stopChild(child)));
    }
  }
  const pairToOne = rounds.map(({ one, two }) => two.requestsPerSecond / one.requestsPerSecond);
  const median = rounds[pairToOne.indexOf(medianOf(pairToOne))];
  const aloneRates = rounds.map(({ alone }) => alone.requestsPerSecond);
  const alone = rounds[aloneRates.indexOf(medianOf(aloneRates))].alone;
  return {
    one: { ...median.one, rounds: rounds.map(({ one }) => one.requestsPerSecond) },
    two: { ...median.two, rounds: rounds.map(({ two }) => two.requestsPerSecond), wake },
    alone: { ...alone, connections: WRK_CONNECTIONS, bytes: Buffer.byteLength(PAYLOAD_TEXT), rounds: aloneRates },
  };
}

/** One emulator on a Redis Cluster of three masters (one topic: one shard), Redis's CPU summed over the nodes. */
async function clusterMeasure(files, dir) {
  const cluster = await startRedisCluster(join(dir, 'cluster'));
  try {
    const { child, info } = await startChild(process.execPath, [
      at('bench/servers/emulator.mjs'),
      ...['--redis-url', cluster.url, '--redis-prefix', 'bench-cluster:'],
    ]);
    try {
      log(`publish, one emulator on a Redis Cluster of three ${info.url}`);
      const pids = cluster.nodes.map((node) => node.child.pid);
      return { one: await loadTest(child.pid, publishLoad(info, files), pids) };
    } finally {
      await stopChild(child);
    }
  } finally {
    await Promise.all(cluster.nodes.map((node) => stopChild(node.child)));
  }
}

/**
 * Each server's round with the median requests/s (its latencies and CPU are that round's), and every
 * round's requests/s; and the ratios the targets name, each the median of its rounds' ratios. A round
 * starts the four servers (the emulator with a data dir on a fresh one), warms each up, then loads
 * them in PUBLISH_SLICES slices each, in the round's order and back (A B C D D C B A A B C D ...): this
 * machine's speed changes by a fifth within seconds, and so it weighs on every server of a round
 * alike. The order turns by one each round.
 */
async function publishRounds(files, dir) {
  const servers = {
    emulator: () => ['emulator', 'emulator.mjs'],
    journalOff: () => ['emulator, request journal off', 'emulator.mjs', '--journal-size', '0'],
    bare: () => ['bare node:http', 'bare.mjs'],
    durable: (round) => ['emulator with a data dir', 'emulator.mjs', '--data-dir', join(dir, `publish-${round}`)],
  };
  const names = Object.keys(servers);
  const rounds = Object.fromEntries(names.map((name) => [name, []]));
  for (let round = 0; round < PUBLISH_ROUNDS; round++) {
    const order = [...names.slice(round % names.length), ...names.slice(0, round % names.length)];
    const measured = await publishRound(
      order.map((name) => [name, ...servers[name](round)]),
      files,
    );
    for (const name of names) rounds[name][round] = measured[name];
  }
  const summary = (results) => {
    const rps = results.map((r) => r.requestsPerSecond);
    return { ...results[rps.indexOf(medianOf(rps))], rounds: rps };
  };
  const ratio = (a, b) => medianOf(rounds[a].map((run, i) => run.requestsPerSecond / rounds[b][i].requestsPerSecond));
  return {
    ...Object.fromEntries(names.map((name) => [name, summary(rounds[name])])),
    ratios: {
      emulatorToBare: ratio('emulator', 'bare'),
      journalOnToOff: ratio('emulator', 'journalOff'),
      durableToEmulator: ratio('durable', 'emulator'),
    },
  };
}

/** One round of publishRounds: `servers` lists [key, name, script, ...args] in the round's order. */
async function publishRound(servers, files) {
  const started = [];
  try {
    for (const [key, name, script, ...args] of servers) {
      const { child, info } = await startChild(process.execPath, [at(`bench/servers/${script}`), ...args]);
      started.push({
        key,
        name: `${name} ${info.url}`,
        child,
        targets: [{ pid: child.pid, options: publishLoad(info, files) }],
      });
    }
    const measured = await takeTurns(started);
    return Object.fromEntries(started.map(({ key }) => [key, measured[key][0]]));
  } finally {
    for (const { child } of started) await stopChild(child);
  }
}

/**
 * Warms up each setup (`targets` loaded together), then loads them in PUBLISH_SLICES slices each, in
 * the given order and back (A B C C B A A B C ...): this machine's speed changes by a fifth within
 * seconds, and so it weighs on every setup alike. By setup key, each target's slices as one run, with
 * the CPU per request of the Redis processes in `redisPids` when given.
 */
async function takeTurns(setups, redisPids) {
  for (const { targets } of setups) await loadSlice(targets, WARMUP_SECONDS);
  const slices = Object.fromEntries(setups.map(({ key }) => [key, []]));
  for (let slice = 0; slice < PUBLISH_SLICES; slice++) {
    for (const { key, name, targets } of slice % 2 ? [...setups].reverse() : setups) {
      log(`publish, ${name} (slice ${slice + 1} of ${PUBLISH_SLICES})`);
      slices[key].push(await loadSlice(targets, PUBLISH_SECONDS / PUBLISH_SLICES, redisPids));
    }
  }
  const measured = ({ key, targets }) =>
    withRedisCpu(
      targets.map((_, i) => asOneRun(slices[key].map(({ results }) => results[i]))),
      redisPids && slices[key].reduce((sum, { redisMicros }) => sum + redisMicros, 0),
    );
  return Object.fromEntries(setups.map((setup) => [setup.key, measured(setup)]));
}

/** Slices of equal length as one run; its p50 is the mean of theirs, its p99 the highest. */
function asOneRun(slices) {
  const sum = (field) => slices.reduce((total, slice) => total + slice[field], 0);
  return {
    requestsPerSecond: sum('requestsPerSecond') / slices.length,
    requests: sum('requests'),
    failed: 0,
    socketErrors: null,
    p50Ms: sum('p50Ms') / slices.length,
    p99Ms: Math.max(...slices.map((slice) => slice.p99Ms)),
    serverCpuMicrosPerRequest:
      slices[0].serverCpuMicros === undefined ? null : sum('serverCpuMicros') / sum('requests'),
  };
}

/** One publish run with `--durability relaxed`: commits that do not wait for the disk. */
async function relaxedPublish(files, dir) {
  const args = ['--data-dir', join(dir, 'publish-relaxed'), '--durability', 'relaxed'];
  return publishOn('emulator with a data dir, relaxed durability', 'emulator.mjs', files, args);
}

async function emulatorMeasures(files) {
  const { child, info } = await startChild(process.execPath, [at('bench/servers/emulator.mjs')]);
  try {
    const common = { url: info.url, token: info.token };
    log('batch publish, emulator');
    const batch = await loadTest(child.pid, { ...common, path: batchPublishPath(info.topicId), bodyFile: files.batch });
    log('long-poll wake-up, emulator');
    const longPoll = await longPollWake({ ...info, payloadText: PAYLOAD_TEXT });
    return { batch, longPoll };
  } finally {
    await stopChild(child);
  }
}

async function prismMeasure(files) {
  const port = await freePort();
  const url = `http://127.0.0.1:${port}`;
  const path = publishPath(1);
  const probe = async () => {
    const answer = await fetch(url + path, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: 'Bearer x' },
      body: PAYLOAD_TEXT,
    });
    await answer.arrayBuffer();
    return answer.status === 201;
  };
  const child = await startProbed(
    at('node_modules/.bin/prism'),
    ['mock', '-h', '127.0.0.1', '-p', String(port), '-v', 'error', at('spec/dist/event-streams.yaml')],
    probe,
  );
  try {
    log(`publish, Prism ${url}`);
    return await loadTest(child.pid, { url, path, token: 'prism-accepts-any-bearer', bodyFile: files.message });
  } finally {
    await stopChild(child);
  }
}

/** Create-then-get round trips of recipes: the resource engine, then Prism mocking the management spec. */
async function managementMeasures() {
  const { child, info } = await startChild(process.execPath, [at('bench/servers/emulator.mjs')]);
  let engine;
  try {
    log(`management round trips, resource engine ${info.url}`);
    engine = await roundTrips({ url: info.url, token: info.token, seconds: MANAGEMENT_SECONDS });
  } finally {
    await stopChild(child);
  }
  const port = await freePort();
  const url = `http://127.0.0.1:${port}`;
  const probe = async () => (await fetch(`${url}/api/recipes/1`, { headers: { authorization: 'Bearer x' } })).ok;
  const prismChild = await startProbed(
    at('node_modules/.bin/prism'),
    ['mock', '-h', '127.0.0.1', '-p', String(port), '-v', 'error', at('spec/dist/management.yaml')],
    probe,
  );
  try {
    log(`management round trips, Prism ${url}`);
    const prism = await roundTrips({ url, token: 'prism-accepts-any-bearer', seconds: MANAGEMENT_SECONDS });
    return { engine, prism, engineToPrism: engine.roundTripsPerSecond / prism.roundTripsPerSecond };
  } finally {
    await stopChild(prismChild);
  }
}

async function consumeAndMemory(dir) {
  const offsetsFile = join(dir, 'offsets.txt');
  log(`storing ${DRAIN_MESSAGES} messages in a fresh emulator`);
  const args = [
    at('bench/servers/emulator.mjs'),
    '--prefill',
    String(DRAIN_MESSAGES),
    '--batch',
    String(CONSUME_BATCH),
    '--offsets-file',
    offsetsFile,
  ];
  const { child, info } = await startChild(process.execPath, args, { timeoutMs: 120_000 });
  try {
    const memory = {
      messages: info.prefilled,
      rssBytes: info.memory.rss,
      rssBeforePrefillBytes: info.rssBeforePrefill,
      arrayBuffersBytes: info.memory.arrayBuffers,
      heapUsedBytes: info.memory.heapUsed,
    };
    log('consume drain');
    const consume = await drain({
      ...info,
      offsetsFile,
      total: DRAIN_MESSAGES,
      batchSize: CONSUME_BATCH,
      connections: 8,
      depth: 4,
    });
    return { memory, consume };
  } finally {
    await stopChild(child);
  }
}

/**
 * An emulator with a data dir of a million messages: stored by batch publish, its resident memory,
 * the time a reopened data dir takes to answer its first request, and a drain from the database.
 */
async function dataDirMeasures(dir) {
  const dataDir = join(dir, 'data-dir-1m');
  const offsetsFile = join(dir, 'data-dir-offsets.txt');
  const emulator = () => startChild(process.execPath, [at('bench/servers/emulator.mjs'), '--data-dir', dataDir]);
  const filled = await emulator();
  let prefill;
  let rssAfterPrefill;
  try {
    log(`storing ${DRAIN_MESSAGES} messages in a data dir by batch publish`);
    const batches = { total: DRAIN_MESSAGES, batchSize: BATCH_MESSAGES, consumeBatch: CONSUME_BATCH, offsetsFile };
    prefill = await prefillOverHttp({ ...filled.info, ...batches });
    rssAfterPrefill = residentBytes(filled.child.pid);
  } finally {
    await stopChild(filled.child);
  }
  const diskBytes = readdirSync(dataDir).reduce((sum, file) => sum + statSync(join(dataDir, file)).size, 0);
  log('reopening the data dir');
  const reopen = await startupTimes({
    cli: at('packages/mock-server/bin/platform-api-mock.js'),
    runs: 3,
    args: ['--data-dir', dataDir],
  });
  const reopened = await emulator();
  try {
    const rssAtReopen = residentBytes(reopened.child.pid);
    log('consume drain from the data dir');
    const consume = await drain({
      ...reopened.info,
      offsetsFile,
      total: DRAIN_MESSAGES,
      batchSize: CONSUME_BATCH,
      connections: 8,
      depth: 4,
    });
    const rssAfterDrain = residentBytes(reopened.child.pid);
    return { prefill, diskBytes, reopen, consume, memory: { rssAfterPrefill, rssAtReopen, rssAfterDrain } };
  } finally {
    await stopChild(reopened.child);
  }
}

async function main() {
  requireTools();
  const machine = describeMachine();
  log(`machine ${JSON.stringify(machine)}`);
  const dir = mkdtempSync(join(tmpdir(), 'platform-api-bench-'));
  const files = { message: join(dir, 'message.json'), batch: join(dir, 'batch.json') };
  writeFileSync(files.message, PAYLOAD_TEXT);
  writeFileSync(files.batch, batchText(BATCH_MESSAGES));
  try {
    const { emulator: publish, bare, durable, journalOff, ratios } = await publishRounds(files, dir);
    const relaxed = await relaxedPublish(files, dir);
    const emulator = await emulatorMeasures(files);
    const prism = await prismMeasure(files);
    const management = await managementMeasures();
    const { memory, consume } = await consumeAndMemory(dir);
    const dataDir = await dataDirMeasures(dir);
    const redis = await redisMeasures(files, dir);
    redis.cluster = await clusterMeasure(files, dir);
    log('start-up: the emulator, a one-line node -e server and bench/servers/bare.mjs, in turns');
    const startup = await startupMeasures();
    log('reset with 1,000 resources and 10,000 messages');
    const reset = await resetTimes();
    log('workspaces: 1,000 on one emulator, memory, publish beside them, a reset among them');
    const workspaces = await workspacesMeasures(files);
    log('emulators in one process: start, five requests, close');
    const inProcess = await inProcessStarts();
    log('container image: build (cached layers), size, podman run to first answer, podman stop');
    const container = await containerMeasures({ root: ROOT });
    log('codegen (cold, then cached)');
    const codegen = await codegenTimes({ root: ROOT, turbo: at('node_modules/.bin/turbo') });
    log('live loop (npm run dev): save to emulator, save to docs');
    const devLoop = await devLoopTimes({ root: ROOT });
    log('client size');
    const size = await clientSize({ root: ROOT });
    const results = {
      measuredAt: new Date().toISOString(),
      machine,
      payloadBytes: Buffer.byteLength(PAYLOAD_TEXT),
      publish: {
        seconds: PUBLISH_SECONDS,
        connections: WRK_CONNECTIONS,
        rounds: PUBLISH_ROUNDS,
        slices: PUBLISH_SLICES,
        emulator: publish,
        prism,
        bare,
        durable,
        relaxed,
        journalOff,
        ratios: { ...ratios, emulatorToPrism: publish.requestsPerSecond / prism.requestsPerSecond },
      },
      batchPublish: {
        ...emulator.batch,
        connections: WRK_CONNECTIONS,
        batchSize: BATCH_MESSAGES,
        messagesPerSecond: emulator.batch.requestsPerSecond * BATCH_MESSAGES,
      },
      consume,
      longPoll: emulator.longPoll,
      management,
      memory,
      dataDir,
      redis: {
        ...redis,
        ratios: {
          redisToEmulator: redis.one.requestsPerSecond / publish.requestsPerSecond,
          twoToOne: redis.two.requestsPerSecond / redis.one.requestsPerSecond,
        },
      },
      startup,
      inProcess,
      container,
      reset,
      workspaces,
      codegen,
      devLoop,
      clientSize: size,
    };
    results.targets = evaluateTargets(results);
    writeFileSync(at('bench/results.json'), `${JSON.stringify(results, null, 2)}\n`);
    const markdown = renderMarkdown(results);
    writeFileSync(at('BENCHMARKS.md'), replaceGenerated(readFileSync(at('BENCHMARKS.md'), 'utf8'), markdown));
    console.log(`\n${markdown}\n\nbench: wrote bench/results.json and BENCHMARKS.md`);
  } finally {
    await stopAllChildren();
    rmSync(dir, { recursive: true, force: true });
  }
}

/** The emulator's start-up beside its baselines', in the same runs (startup.mjs). */
async function startupMeasures() {
  const { emulator, oneLine, bareModule } = await startupComparison({
    cli: at('packages/mock-server/bin/platform-api-mock.js'),
    bareServer: at('bench/servers/bare.mjs'),
  });
  return {
    ...emulator,
    oneLine,
    bare: bareModule,
    toOneLine: emulator.medianMs / oneLine.medianMs,
    toBare: emulator.medianMs / bareModule.medianMs,
  };
}

/** Only the start-up rows and their targets (after `npm run build`); printed only. */
async function startupOnly() {
  const startup = await startupMeasures();
  console.log(JSON.stringify({ machine: describeMachine(), startup }, null, 2));
  printTargets(startupTargets(startup));
}

/** Runs `measure` with the bench's request bodies in a temporary folder, removed after, with every server it started. */
async function inBenchDir(measure) {
  requireTools();
  const dir = mkdtempSync(join(tmpdir(), 'platform-api-bench-'));
  const files = { message: join(dir, 'message.json'), batch: join(dir, 'batch.json') };
  writeFileSync(files.message, PAYLOAD_TEXT);
  writeFileSync(files.batch, batchText(BATCH_MESSAGES));
  try {
    await measure(files, dir);
  } finally {
    await stopAllChildren();
    rmSync(dir, { recursive: true, force: true });
  }
}

/** The Redis rows and their targets, beside one in-memory publish run; printed only. */
const redisOnly = () =>
  inBenchDir(async (files, dir) => {
    const inMemory = await publishOn('emulator in memory', 'emulator.mjs', files);
    const redis = await redisMeasures(files, dir);
    redis.cluster = await clusterMeasure(files, dir);
    console.log(JSON.stringify({ machine: describeMachine(), inMemory, redis }, null, 2));
    printTargets(redisTargets(redis, inMemory));
  });

/**
 * The publish rounds (the emulator with its journal on and off, with a data dir, bare node:http) and the
 * consume drain alone: the figures a change to the request path moves; printed only.
 */
const publishOnly = () =>
  inBenchDir(async (files, dir) => {
    const { ratios, ...servers } = await publishRounds(files, dir);
    const perServer = Object.fromEntries(
      Object.entries(servers).map(([name, { requestsPerSecond, serverCpuMicrosPerRequest, rounds }]) => [
        name,
        { requestsPerSecond, serverCpuMicrosPerRequest, rounds },
      ]),
    );
    const { consume } = await consumeAndMemory(dir);
    console.log(JSON.stringify({ machine: describeMachine(), servers: perServer, consume, ratios }, null, 2));
  });

/** The workspaces rows and their targets; printed only. */
const workspacesOnly = () =>
  inBenchDir(async (files) => {
    const workspaces = await workspacesMeasures(files);
    console.log(JSON.stringify({ machine: describeMachine(), workspaces }, null, 2));
    printTargets(workspacesTargets(workspaces));
  });

/** The live loop's rows and their targets; printed only. */
async function devLoopOnly() {
  const devLoop = await devLoopTimes({ root: ROOT });
  console.log(JSON.stringify({ machine: describeMachine(), devLoop }, null, 2));
  printTargets(devLoopTargets(devLoop));
}

function printTargets(targets) {
  for (const { measure, figure, target, met } of targets) {
    console.log(`${met ? 'met    ' : 'NOT MET'} ${measure}: ${figure} (target ${target})`);
  }
}

const modes = {
  redis: redisOnly,
  startup: startupOnly,
  publish: publishOnly,
  'dev-loop': devLoopOnly,
  workspaces: workspacesOnly,
};
(modes[process.argv[2]] ?? main)().catch((error) => {
  console.error(`bench failed: ${error.stack ?? error}`);
  process.exitCode = 1;
});
