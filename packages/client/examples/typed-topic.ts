import { createEventStreamsClient } from '@platform-api/client';
import { type Orders, ordersTopicId, validateOrders } from './generated/orders.js';

// examples/generated/orders.ts was written from the topic's schema by
//   platform-api typegen --topic 1 --out examples/generated/orders.ts
// and `platform-api typegen --topic 1 --out examples/generated/orders.ts --check` fails (exit 1)
// once the topic's schema and the committed file drift apart.
const events = createEventStreamsClient({
  baseUrl: process.env.PLATFORM_URL ?? 'http://127.0.0.1:4010',
  auth: { token: process.env.ACCESS_TOKEN ?? '' },
});
const orders = events.topic<Orders>(ordersTopicId, { validate: validateOrders });

// Typed publish: a missing or misspelt field does not compile.
await orders.publish({
  order_id: 'ORD-1',
  total: 149.9,
  customer: { email: 'ana@example.com' },
  lines: [{ sku: 'SKU-7', quantity: 2 }],
});

// Payloads from elsewhere are checked before sending: nothing is sent when they do not match.
const fromElsewhere = JSON.parse('{"order_id":"ORD-2","total":"12.50","lines":[]}') as Orders;
await orders.publish(fromElsewhere).catch((error: Error) => console.log(error.message));

// Typed consume: message.payload is an Orders.
for await (const { payload } of orders.consume({ stopAtEnd: true, timeoutSecs: 0 })) {
  console.log(`${payload.order_id}: ${payload.lines.length} line(s), ${payload.total} for ${payload.customer.email}`);
}
