// A team's suite on the installed packages: the client against the test kit's emulator, with the
// request journal, a fault, the clock and a reset.
import { clientCredentials, createEventStreamsClient, createManagementClient } from '@platform-api/client';
import { emulator } from '@platform-api/mock-server/testkit';
import { beforeEach, expect, it } from 'vitest';

const platform = emulator();
beforeEach(() => platform.reset());

async function ordersTopic() {
  const auth = clientCredentials({
    authUrl: platform.url,
    clientId: platform.clientId,
    clientSecret: platform.clientSecret,
  });
  const management = createManagementClient({ baseUrl: platform.url, auth, throwOnError: true });
  const { data: topic } = await management.POST('/api/event_streams/topics', {
    body: { name: 'orders', schema: [{ name: 'order_id', type: 'string' }] },
  });
  return { events: createEventStreamsClient({ baseUrl: platform.url, auth }), topicId: topic.id };
}

it('publishes an order and consumes it, as the journal shows', async () => {
  const { events, topicId } = await ordersTopic();
  await events.publish(topicId, { order_id: 'A-1' });
  const consumed: unknown[] = [];
  for await (const message of events.consume(topicId, { stopAtEnd: true, timeoutSecs: 0 }))
    consumed.push(message.payload);
  expect(consumed).toEqual([{ order_id: 'A-1' }]);
  await platform.expectRequest({ operation: 'publish_message', status: 201, body: { order_id: 'A-1' } }, { times: 1 });
});

it('waits out a 429 and publishes once more', async () => {
  const { events, topicId } = await ordersTopic();
  await platform.faults.failNext('publish_message', { status: 429, retryAfter: 0 });
  await events.publish(topicId, { order_id: 'A-2' });
  const answers = await platform.requests({ operation: 'publish_message' });
  expect(answers.map((entry) => entry.response.status)).toEqual([429, 201]);
});

it('gets a new token once the clock passes its expiry', async () => {
  const { events, topicId } = await ordersTopic();
  await events.publish(topicId, { order_id: 'A-3' });
  await platform.clock.advance(3601);
  await events.publish(topicId, { order_id: 'A-4' });
  const statuses = (await platform.requests({ operation: 'publish_message' })).map((entry) => entry.response.status);
  expect(statuses).toEqual([201, 401, 201]);
});

it('starts each test from a reset emulator', async () => {
  expect(await platform.requests()).toEqual([]);
  expect((await platform.clock.now()).frozen).toBe(false);
});
