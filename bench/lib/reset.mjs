// POST /_emulator/reset on an emulator holding 1,000 management resources and 10,000 messages, as a
// test suite resets between tests: each run seeds it first (PUT /_emulator/state, not timed, then a
// pause for that load's garbage to be collected, as a test's own work would give it), then times the
// reset over HTTP, from the request to the end of its answer. Median of the runs.
import { startMockServer } from '../../packages/mock-server/dist/index.js';

const RESOURCES = 1_000;
const MESSAGES = 10_000;
const SETTLE_MS = 50;

export async function resetTimes({ runs = 21 } = {}) {
  const server = await startMockServer();
  try {
    const seed = JSON.stringify({
      format: 'platform-api-emulator-state',
      version: 1,
      resources: { folder: Array.from({ length: RESOURCES }, (_, i) => ({ id: i + 1, name: `folder ${i + 1}` })) },
      topics: [
        {
          id: 1,
          name: 'orders',
          schema: [{ name: 'order_id', type: 'string' }],
          messages: Array.from({ length: MESSAGES }, (_, i) => ({ order_id: `ORD-${i}` })),
        },
      ],
    });
    const times = [];
    for (let i = 0; i < runs; i++) {
      const seeded = await fetch(`${server.url}/_emulator/state`, {
        method: 'PUT',
        headers: { 'content-type': 'application/json' },
        body: seed,
      });
      if (seeded.status !== 204) throw new Error(`The seed answered ${seeded.status}: ${await seeded.text()}`);
      await new Promise((resolve) => setTimeout(resolve, SETTLE_MS));
      const began = performance.now();
      const reset = await fetch(`${server.url}/_emulator/reset`, { method: 'POST' });
      await reset.arrayBuffer();
      times.push(performance.now() - began);
      if (reset.status !== 204) throw new Error(`The reset answered ${reset.status}`);
    }
    const sorted = [...times].sort((a, b) => a - b);
    return { runs, resources: RESOURCES, messages: MESSAGES, medianMs: sorted[runs >> 1], maxMs: sorted.at(-1) };
  } finally {
    await server.close();
  }
}
