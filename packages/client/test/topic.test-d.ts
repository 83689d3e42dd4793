// Type tests of the typed topic handle: payloads typed on publish and consume.
import { describe, expectTypeOf, it } from 'vitest';
import { type Orders, validateOrders } from '../examples/generated/orders.js';
import { createEventStreamsClient, type MessageStream, type Subscription, type TypedMessage } from '../src/index.js';

const events = createEventStreamsClient({ baseUrl: 'http://127.0.0.1:4010', auth: { token: 't' } });
const orders = events.topic<Orders>(1, { validate: validateOrders });
const order: Orders = { order_id: 'ORD-1', total: 1, customer: { email: 'a@example.com' }, lines: [] };

describe('events.topic<T>()', () => {
  it('types publish and publishBatch by the payload type', () => {
    void orders.publish(order);
    void orders.publishBatch([order, { ...order, placed_on: '2026-11-22' }]);
    // @ts-expect-error total is a number
    void orders.publish({ ...order, total: '12.50' });
    // @ts-expect-error customer is required
    void orders.publish({ order_id: 'ORD-1', total: 1, lines: [] });
    // @ts-expect-error a misspelt field
    void orders.publish({ ...order, totl: 1 });
    // @ts-expect-error a line has a sku and a quantity
    void orders.publishBatch([{ ...order, lines: [{ sku: 'S' }] }]);
    expectTypeOf(orders.publish(order)).resolves.toEqualTypeOf<string>();
  });

  it('types consumed messages and subscribe handlers', async () => {
    const stream = orders.consume({ stopAtEnd: true });
    expectTypeOf(stream).toEqualTypeOf<MessageStream<Orders>>();
    for await (const message of stream) {
      expectTypeOf(message).toEqualTypeOf<TypedMessage<Orders>>();
      expectTypeOf(message.payload.customer.email).toEqualTypeOf<string>();
      expectTypeOf(message.payload.placed_on).toEqualTypeOf<string | null | undefined>();
      expectTypeOf(message.message_id).toEqualTypeOf<string>();
      // @ts-expect-error not a field of Orders
      void message.payload.coupon;
    }
    const subscription = orders.subscribe(async (message) => {
      expectTypeOf(message.payload.lines).toEqualTypeOf<{ sku: string; quantity: number }[]>();
    });
    expectTypeOf(subscription).toEqualTypeOf<Subscription>();
  });

  it('keeps the untyped helpers open to any object', () => {
    expectTypeOf(events.consume(1)).toEqualTypeOf<MessageStream<{ [key: string]: unknown }>>();
    // @ts-expect-error payloads are objects
    void events.topic<string>(1);
    // @ts-expect-error validate lists problems as strings
    void events.topic<Orders>(1, { validate: (value: unknown) => value !== null });
  });
});
