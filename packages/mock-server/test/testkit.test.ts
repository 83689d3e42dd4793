// The test kit's helpers beyond the example suite (examples/testkit): the handle from the environment,
// the clock helpers, and the errors a refused call of the emulator API becomes.
import { afterEach, describe, expect, it } from 'vitest';
import {
  createGlobalSetup,
  Emulator,
  EmulatorApiError,
  ENVIRONMENT,
  emulator,
  startEmulator,
} from '../src/testkit/index.js';
import { withTopic } from './support/helpers.js';

const closing: (() => Promise<void>)[] = [];
afterEach(async () => {
  await Promise.all(closing.splice(0).map((close) => close()));
});

describe('the test kit', () => {
  it('names the global setup when no emulator was started for the run', () => {
    expect(() => emulator({})).toThrow(/testkit\/global-setup/);
  });

  it("hands the global setup's emulator to the tests through the environment, and its teardown stops it", async () => {
    const saved = Object.values(ENVIRONMENT).map((name) => [name, process.env[name]] as const);
    try {
      const teardown = await createGlobalSetup()();
      const platform = emulator();
      expect((await fetch(`${platform.url}/_emulator/clock`)).status).toBe(200);
      await teardown();
      await expect(fetch(`${platform.url}/_emulator/clock`)).rejects.toThrow();
    } finally {
      for (const [name, value] of saved) {
        if (value === undefined) delete process.env[name];
        else process.env[name] = value;
      }
    }
  });

  it('sets, freezes, advances and resets the clock', async () => {
    const { emulator: platform, close } = await startEmulator();
    closing.push(close);
    expect(await platform.clock.set('2030-01-01T00:00:00Z', { frozen: true })).toEqual({
      now: new Date('2030-01-01T00:00:00Z'),
      frozen: true,
    });
    expect((await platform.clock.advance(60)).now).toEqual(new Date('2030-01-01T00:01:00Z'));
    expect((await platform.clock.unfreeze()).frozen).toBe(false);
    await platform.clock.reset();
    const { now } = await platform.clock.now();
    expect(Math.abs(now.getTime() - Date.now())).toBeLessThan(60_000);
  });

  it('turns a refused call into an EmulatorApiError with the message', async () => {
    const { emulator: platform, close } = await startEmulator();
    closing.push(close);
    const refused = platform.faults.failNext('publish_message', { status: 418 });
    await expect(refused).rejects.toBeInstanceOf(EmulatorApiError);
    await expect(refused).rejects.toThrow(/declares no 418/);
    await expect(platform.clock.advance(-1)).rejects.toThrow(/advance_seconds must be >= 0/);
  });

  it("arms faults spelled as the emulator's own (server.faults), and still in the earlier spelling", async () => {
    const { server, consume } = await withTopic();
    const platform = new Emulator(server);
    await platform.faults.failNext('consume_messages', { status: 500, code: 'TIMEOUT', times: 2 });
    await platform.faults.failNext('consume_messages', 429, { retryAfter: 1, code: 'RATE_LIMITED' });
    await platform.faults.failBatchPositions([1], { omit: true });
    expect(server.faults.pending()).toEqual({
      operations: [
        { operationId: 'consume_messages', fault: { status: 500, code: 'TIMEOUT' }, times: 2 },
        { operationId: 'consume_messages', fault: { status: 429, code: 'RATE_LIMITED', retryAfter: 1 }, times: 1 },
      ],
      batches: [{ fault: { positions: new Set([1]), omit: true }, times: 1 }],
    });
    const answers = [await consume(), await consume(), await consume(), await consume()];
    expect(answers.map((answer) => [answer.status, answer.headers.get('retry-after')])).toEqual([
      [500, null],
      [500, null],
      [429, '1'],
      [200, null],
    ]);
    await platform.faults.failNext('consume_messages', { status: 500 });
    await platform.faults.clear();
    expect((await consume()).status).toBe(200);
  });

  it('counts the consumers waiting on a topic, so that a test publishes once its consumer waits', async () => {
    const { server, topicId, publish, consume } = await withTopic();
    const platform = new Emulator(server);
    expect(await platform.waitingConsumers(topicId)).toBe(0);
    const waiting = consume({ timeout_secs: 30 });
    await expect.poll(() => platform.waitingConsumers(topicId), { timeout: 60_000 }).toBe(1);
    expect(await platform.waitingConsumers(topicId + 1)).toBe(0);
    await publish({ order_id: 'A' });
    expect((await waiting).body.messages.map((m) => m.payload.order_id)).toEqual(['A']);
    expect(await platform.waitingConsumers(topicId)).toBe(0);
  });
});
