// An example suite on the test kit: one emulator for the run (the global setup in vitest.config.ts),
// reset before each test; the tests check what the code sent, not only what it left behind.
import { emulator, RequestVerificationError } from '@platform-api/mock-server/testkit';
import { beforeEach, describe, expect, it } from 'vitest';
import { OrderPublisher } from './order-publisher.js';

const platform = emulator();

/** A topic of orders, made with the bootstrap key. */
async function ordersTopic(): Promise<number> {
  const token = await fetch(`${platform.url}/oauth2/token`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({
      grant_type: 'client_credentials',
      client_id: platform.clientId,
      client_secret: platform.clientSecret,
    }),
  });
  const { access_token } = (await token.json()) as { access_token: string };
  const topic = await fetch(`${platform.url}/api/event_streams/topics`, {
    method: 'POST',
    headers: { authorization: `Bearer ${access_token}`, 'content-type': 'application/json' },
    body: JSON.stringify({ name: 'orders', schema: [{ name: 'order_id', type: 'string' }] }),
  });
  return ((await topic.json()) as { id: number }).id;
}

describe('OrderPublisher', () => {
  let publisher: OrderPublisher;
  let topicId: number;

  beforeEach(async () => {
    await platform.reset();
    topicId = await ordersTopic();
    // Only what the publisher sends is checked.
    await platform.clearRequests();
    publisher = new OrderPublisher({
      url: platform.url,
      clientId: platform.clientId,
      clientSecret: platform.clientSecret,
    });
  });

  it('sends the order once', async () => {
    await publisher.publish(topicId, { order_id: 'A-1', total: 12.5 });
    const [sent] = await platform.expectRequest(
      { operation: 'publish_message', body: { order_id: 'A-1' } },
      { times: 1 },
    );
    expect(sent?.response.status).toBe(201);
  });

  it('waits out a 429 and sends the order again, once', async () => {
    await platform.faults.failNext('publish_message', { status: 429, retryAfter: 0 });
    await publisher.publish(topicId, { order_id: 'A-2' });
    await platform.expectRequest({ operation: 'publish_message', status: 429 }, { times: 1 });
    await platform.expectRequest(
      { operation: 'publish_message', status: 201, body: { order_id: 'A-2' } },
      { times: 1 },
    );
  });

  it('fetches a new token once the old one has expired, without waiting an hour', async () => {
    await publisher.publish(topicId, { order_id: 'A-3' });
    await platform.clock.advance(3600);
    await publisher.publish(topicId, { order_id: 'A-4' });
    await platform.expectRequest({ operation: 'request_access_token', status: 200 }, { times: 2 });
    await platform.expectRequest({ operation: 'publish_message', status: 401 }, { times: 1 });
  });

  it('explains a failed expectation with the closest requests', async () => {
    await publisher.publish(topicId, { order_id: 'A-5' });
    const failure = platform.expectRequest({ operation: 'publish_message', body: { order_id: 'NOPE' } });
    await expect(failure).rejects.toBeInstanceOf(RequestVerificationError);
    await expect(failure).rejects.toThrow(
      /#\d+ POST \/api\/v1\/topics\/\d+\/publish \(publish_message, 201\)\n {4}- body\.order_id: 'A-5', want 'NOPE'/,
    );
  });
});
