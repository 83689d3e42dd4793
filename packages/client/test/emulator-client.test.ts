// createEmulatorClient: the typed client of the emulator API, against a started emulator.
import { startMockServer } from '@platform-api/mock-server';
import { afterEach, describe, expect, it } from 'vitest';
import { createEmulatorClient } from '../src/index.js';

const closing: (() => Promise<void>)[] = [];
afterEach(async () => {
  await Promise.all(closing.splice(0).map((close) => close()));
});

describe('createEmulatorClient', () => {
  it("reads the emulator's clock and journal, and gets its refusals typed", async () => {
    const server = await startMockServer();
    closing.push(() => server.close());
    const emulator = createEmulatorClient({ baseUrl: server.url });
    const set = await emulator.PUT('/_emulator/clock', { body: { now: '2030-01-01T00:00:00Z', frozen: true } });
    expect(set.data).toEqual({ now: '2030-01-01T00:00:00.000Z', frozen: true });
    await fetch(`${server.url}/api/v1/topics/1/publish`, { method: 'POST' });
    const journal = await emulator.GET('/_emulator/requests', { params: { query: { operation: 'publish_message' } } });
    expect(journal.data?.requests.map((entry) => [entry.operation, entry.response.status, entry.time])).toEqual([
      ['publish_message', 401, '2030-01-01T00:00:00.000Z'],
    ]);
    const refused = await emulator.PUT('/_emulator/clock', { body: { advance_seconds: -1 } });
    expect([refused.response.status, refused.error?.message]).toEqual([
      400,
      'Request body is invalid: /advance_seconds must be >= 0',
    ]);
  });
});
