// Contract drift, checked by a tool that is not ours: a client flow runs through `prism proxy
// --errors` in front of the emulator, one proxy per spec. Prism validates each request and each
// emulator response against the bundled spec; a violation turns into a 500 or an `sl-violations`
// header, and either fails this test.

import { fileURLToPath } from 'node:url';
import {
  clientCredentials,
  createEventStreamsClient,
  createManagementClient,
  EventStreamsError,
} from '@platform-api/client';
import { type MockServer, startMockServer } from '@platform-api/mock-server';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
// The bench's process helpers: Prism cannot report the port it listens on, so it is probed.
import { freePort, startProbed, stopAllChildren } from '../../bench/lib/processes.mjs';

const repo = fileURLToPath(new URL('../..', import.meta.url));
const prismBin = `${repo}node_modules/.bin/prism`;
let emulator: MockServer;
const violations: string[] = [];

/** Starts `prism proxy --errors` for one bundled spec and resolves once it listens. */
async function proxy(api: string, upstream: string): Promise<string> {
  const port = await freePort();
  const url = `http://127.0.0.1:${port}`;
  const args = [
    'proxy',
    '-h',
    '127.0.0.1',
    '-p',
    String(port),
    '--errors',
    '-v',
    'error',
    `${repo}spec/dist/${api}.yaml`,
    upstream,
  ];
  await startProbed(prismBin, args, () => fetch(url).then(() => true), { timeoutMs: 30_000 });
  return url;
}

/** A fetch that records every response Prism flags, so no violation can pass unnoticed. */
const watchingFetch: typeof fetch = async (input, init) => {
  const response = await fetch(input, init);
  const request = input instanceof Request ? input : new Request(input, init);
  const flagged = response.headers.get('sl-violations');
  if (flagged) violations.push(`${request.method} ${request.url}: ${flagged}`);
  if (response.status >= 500)
    violations.push(`${request.method} ${request.url}: ${response.status} ${await response.clone().text()}`);
  return response;
};

let urls: Record<'events' | 'auth' | 'management', string>;

beforeAll(async () => {
  emulator = await startMockServer();
  const [events, auth, management] = await Promise.all([
    proxy('event-streams', emulator.url),
    proxy('auth', emulator.url),
    proxy('management', emulator.url),
  ]);
  urls = { events, auth, management };
}, 120_000);

afterAll(async () => {
  await stopAllChildren();
  await emulator?.close();
});

describe('the emulator through prism proxy --errors', { timeout: 60_000 }, () => {
  test('a client flow (token, topic, publish, batch, consume, errors) has no violation', async () => {
    const auth = clientCredentials({
      authUrl: urls.auth,
      clientId: emulator.clientId,
      clientSecret: emulator.clientSecret,
      fetch: watchingFetch,
    });
    const management = createManagementClient({ baseUrl: urls.management, auth, fetch: watchingFetch });
    const events = createEventStreamsClient({ baseUrl: urls.events, auth, fetch: watchingFetch });

    const { data: topic } = await management.POST('/api/event_streams/topics', {
      body: {
        name: 'contract',
        schema: [
          { name: 'order_id', type: 'string' },
          { name: 'total', type: 'number', optional: true },
        ],
      },
    });
    if (!topic) throw new Error('the topic was not created');
    expect(topic.name).toBe('contract');
    const topicId = topic.id;

    const first = await events.publish(topicId, { order_id: 'ORD-1', total: 10 });
    const ids = await events.publishBatch(topicId, [{ order_id: 'ORD-2' }, { order_id: 'ORD-3', total: 3 }]);
    const received = [];
    for await (const message of events.consume(topicId, { stopAtEnd: true, timeoutSecs: 0 }))
      received.push(message.message_id);
    expect(received).toEqual([first, ...ids]);

    // Error answers are part of the contract too.
    await expect(events.publish(topicId, { total: 'not a number' })).rejects.toBeInstanceOf(EventStreamsError);
    await expect(events.publish(4_000_000, { order_id: 'x' })).rejects.toMatchObject({ status: 404 });
    const missing = await management.GET('/api/event_streams/topics/{topic_id}', {
      params: { path: { topic_id: 4_000_000 } },
    });
    expect(missing.response.status).toBe(404);
    const { data: listed } = await management.GET('/api/event_streams/topics');
    expect(listed?.data.map((t) => t.id)).toContain(topicId);

    expect(violations).toEqual([]);
  });
});
