// The workspaces rows (issue 42), on emulators in processes of their own (bench/servers/emulator.mjs,
// in memory), driven over HTTP from this process:
// - a fleet: WORKSPACES workspaces made one after another with FLEET_IN_FLIGHT at a time, each then
//   asked for a token, a topic, a publish and a consume of what it published; the wall time of all;
// - memory: what WORKSPACES empty workspaces hold, per workspace (memoryPerWorkspace);
// - publish into one workspace of an emulator holding WORKSPACES live ones, against an emulator holding
//   that one alone, in rounds taking turns;
// - reset of one workspace holding RESET_RESOURCES resources, seeded before each run (not timed), while
//   another workspace is published to without pause; each of those publishes must be answered 201.

import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { startMockServer } from '../../packages/mock-server/dist/index.js';
import { consumePath, payload, publishPath, TOPIC_SCHEMA } from './payload.mjs';
import { startChild, stopChild } from './processes.mjs';
import { call } from './requests.mjs';
import { stateSeed, timedResets } from './reset.mjs';
import { median } from './stats.mjs';
import { wrkPost } from './wrk.mjs';

const WORKSPACES = 1_000;
const FLEET_IN_FLIGHT = 10;
const PUBLISH_ROUNDS = 3;
const PUBLISH_SECONDS = 5;
const RESET_RESOURCES = 1_000;
const RESET_RUNS = 21;

const makeWorkspace = (url, name) =>
  call(url, 'POST', '/_emulator/workspaces', { body: { name, environments: ['dev'] } });

/** A workspace's dev environment ready to publish: a token and a topic. */
async function readyWorkspace(url, name) {
  const workspace = await makeWorkspace(url, name);
  const [{ client_id, client_secret }] = workspace.environments;
  const { access_token: token } = await call(url, 'POST', '/oauth2/token', {
    body: { grant_type: 'client_credentials', client_id, client_secret },
  });
  const topic = await call(url, 'POST', '/api/event_streams/topics', {
    token,
    body: { name: 'bench', schema: TOPIC_SCHEMA },
  });
  return { id: workspace.id, token, topicId: topic.id };
}

/** Runs `work(i)` for i below `count`, `inFlight` at a time. */
async function pooled(count, inFlight, work) {
  let next = 0;
  const worker = async () => {
    while (next < count) await work(next++);
  };
  await Promise.all(Array.from({ length: inFlight }, worker));
}

const startEmulator = () =>
  startChild(process.execPath, [new URL('../servers/emulator.mjs', import.meta.url).pathname]);

async function fleet() {
  const { child, info } = await startEmulator();
  try {
    const began = performance.now();
    await pooled(WORKSPACES, FLEET_IN_FLIGHT, async (i) => {
      const { token, topicId } = await readyWorkspace(info.url, `fleet ${i}`);
      await call(info.url, 'POST', publishPath(topicId), { token, body: payload(1) });
      const consumed = await call(info.url, 'POST', consumePath(topicId), { token, body: { timeout_secs: 0 } });
      if (consumed.messages.length !== 1)
        throw new Error(`workspace ${i} consumed ${consumed.messages.length} messages`);
    });
    return { workspaces: WORKSPACES, inFlight: FLEET_IN_FLIGHT, seconds: (performance.now() - began) / 1000 };
  } finally {
    await stopChild(child);
  }
}

/**
 * Memory an empty workspace holds: the emulator's heap and external memory after a full collection,
 * in this process (V8's gc, exposed here), before and after making WORKSPACES; the resident set's
 * growth beside it, which also counts heap V8 keeps for later and the fetches' own garbage.
 */
async function memoryPerWorkspace() {
  setFlagsFromString('--expose-gc');
  const collect = runInNewContext('gc');
  const server = await startMockServer({ logLevel: 'silent' });
  try {
    // One workspace first: what the first costs once (the fleet directory, its maps) is not per workspace.
    await makeWorkspace(server.url, 'first');
    const held = () => {
      collect();
      const { heapUsed, external, rss } = process.memoryUsage();
      return { kept: heapUsed + external, rss };
    };
    const before = held();
    await pooled(WORKSPACES, FLEET_IN_FLIGHT, (i) => makeWorkspace(server.url, `empty ${i}`));
    const after = held();
    return {
      workspaces: WORKSPACES,
      bytesPerWorkspace: (after.kept - before.kept) / WORKSPACES,
      rssBytesPerWorkspace: (after.rss - before.rss) / WORKSPACES,
    };
  } finally {
    await server.close();
  }
}

/** An emulator with `live` workspaces; the publishes go to the last one made. */
async function emulatorWith(live) {
  const started = await startEmulator();
  const { url } = started.info;
  await pooled(live - 1, FLEET_IN_FLIGHT, (i) => readyWorkspace(url, `live ${i}`));
  return { ...started, target: await readyWorkspace(url, 'measured') };
}

async function publishBeside(files) {
  const rounds = [];
  for (let round = 0; round < PUBLISH_ROUNDS; round++) {
    const measured = {};
    // Fresh emulators each round, in turns: the order flips each round.
    const order = round % 2 === 0 ? [1, WORKSPACES] : [WORKSPACES, 1];
    for (const live of order) {
      const { child, info, target } = await emulatorWith(live);
      try {
        const load = { url: info.url, token: target.token, path: publishPath(target.topicId), bodyFile: files.message };
        await wrkPost({ ...load, seconds: 1 });
        measured[live] = await wrkPost({ ...load, seconds: PUBLISH_SECONDS });
        if (measured[live].failed > 0) throw new Error(`${measured[live].failed} publishes failed with ${live} live`);
      } finally {
        await stopChild(child);
      }
    }
    rounds.push({ one: measured[1].requestsPerSecond, many: measured[WORKSPACES].requestsPerSecond });
  }
  const ratio = median(rounds.map(({ one, many }) => many / one));
  const middle = rounds.find(({ one, many }) => many / one === ratio);
  return { live: WORKSPACES, rounds, ratio, ...middle };
}

async function resetBeside() {
  const { child, info, target: other } = await emulatorWith(WORKSPACES);
  const { url } = info;
  const reset = await makeWorkspace(url, 'reset');
  const seed = stateSeed({ folders: RESET_RESOURCES });
  let serving = true;
  let published = 0;
  const publishing = (async () => {
    while (serving) {
      await call(url, 'POST', publishPath(other.topicId), { token: other.token, body: payload(1) });
      published++;
    }
  })();
  try {
    const times = await timedResets({ url, query: `?workspace=${reset.id}&environment=dev`, seed, runs: RESET_RUNS });
    serving = false;
    // A publish refused meanwhile fails the bench here.
    await publishing;
    if (published === 0) throw new Error('no publish to the other workspace was answered during the resets');
    const [medianMs, maxMs] = [median(times), Math.max(...times)];
    return { live: WORKSPACES, resources: RESET_RESOURCES, runs: RESET_RUNS, published, medianMs, maxMs };
  } finally {
    serving = false;
    await publishing.catch(() => {});
    await stopChild(child);
  }
}

/** Every workspaces row, one after another (each on its own emulators). */
export async function workspacesMeasures(files) {
  return {
    fleet: await fleet(),
    memory: await memoryPerWorkspace(),
    publish: await publishBeside(files),
    reset: await resetBeside(),
  };
}
