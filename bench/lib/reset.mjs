// POST /_emulator/reset on an emulator holding 1,000 management resources and 10,000 messages, as a
// test suite resets between tests: each run seeds it first (PUT /_emulator/state, not timed, then a
// pause for that load's garbage to be collected, as a test's own work would give it), then times the
// reset over HTTP, from the request to the end of its answer. Median of the runs.
import { startMockServer } from '../../packages/mock-server/dist/index.js';
import { call } from './requests.mjs';
import { median } from './stats.mjs';

const RESOURCES = 1_000;
const MESSAGES = 10_000;
const SETTLE_MS = 50;

/** A state document of `folders` folders and, with `messages`, a topic holding that many. */
export function stateSeed({ folders, messages = 0 }) {
  const topic = {
    id: 1,
    name: 'orders',
    schema: [{ name: 'order_id', type: 'string' }],
    messages: Array.from({ length: messages }, (_, i) => ({ order_id: `ORD-${i}` })),
  };
  return {
    format: 'platform-api-emulator-state',
    version: 1,
    resources: { folder: Array.from({ length: folders }, (_, i) => ({ id: i + 1, name: `folder ${i + 1}` })) },
    ...(messages > 0 && { topics: [topic] }),
  };
}

/** The reset's time in each of `runs`, the tenant `query` names (none: the default) seeded with `seed` before each. */
export async function timedResets({ url, query = '', seed, runs }) {
  const times = [];
  for (let i = 0; i < runs; i++) {
    await call(url, 'PUT', `/_emulator/state${query}`, { body: seed, expect: 204 });
    await new Promise((resolve) => setTimeout(resolve, SETTLE_MS));
    const began = performance.now();
    await call(url, 'POST', `/_emulator/reset${query}`, { expect: 204 });
    times.push(performance.now() - began);
  }
  return times;
}

export async function resetTimes({ runs = 21 } = {}) {
  const server = await startMockServer();
  try {
    const seed = stateSeed({ folders: RESOURCES, messages: MESSAGES });
    const times = await timedResets({ url: server.url, seed, runs });
    return { runs, resources: RESOURCES, messages: MESSAGES, medianMs: median(times), maxMs: Math.max(...times) };
  } finally {
    await server.close();
  }
}
