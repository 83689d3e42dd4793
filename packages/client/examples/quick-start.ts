import { clientCredentials, createEventStreamsClient, createManagementClient } from '@platform-api/client';

// One token provider for both clients: one token, renewed before it expires.
const auth = clientCredentials({
  authUrl: process.env.AUTH_URL ?? 'http://127.0.0.1:4010', // the `{auth_url}` shown with your API key
  clientId: process.env.CLIENT_ID ?? '',
  clientSecret: process.env.CLIENT_SECRET ?? '',
});
// On the platform pass a data center instead of a base URL: { dataCenter: 'eu', auth }.
const baseUrl = process.env.PLATFORM_URL ?? 'http://127.0.0.1:4010';
const management = createManagementClient({ baseUrl, auth });
const events = createEventStreamsClient({ baseUrl, auth });

// Create a topic (management API): typed body, typed answer.
const { data: topic, error } = await management.POST('/api/event_streams/topics', {
  body: {
    name: `orders-${Date.now()}`,
    schema: [
      { name: 'order_id', type: 'string' },
      { name: 'total', type: 'number' },
    ],
  },
});
if (!topic) throw new Error(`Could not create the topic: ${JSON.stringify(error)}`);

// Publish one message, then many: publishBatch splits them into batches of 100 and resends
// exactly the messages the platform did not store.
const first = await events.publish(topic.id, { order_id: 'ORD-1', total: 149.9 });
const more = await events.publishBatch(
  topic.id,
  Array.from({ length: 120 }, (_, i) => ({ order_id: `ORD-${i + 2}`, total: i })),
);
console.log(`published ${first} and ${more.length} more`);

// Read the topic from the oldest message to its end. Delivery is at least once: a message counts as
// processed when the loop asks for the next one, so the checkpoint never passes a message whose
// loop body threw or was left with `break`.
const stream = events.consume(topic.id, { stopAtEnd: true, timeoutSecs: 0 });
const processed: string[] = [];
for await (const message of stream) {
  if (processed.length === 100) break; // e.g. the process stops here, before processing this message
  processed.push(message.message_id);
}
// Resume after the checkpoint: the message left unprocessed comes first.
const resumed = events.consume(topic.id, { checkpoint: stream.checkpoint, stopAtEnd: true, timeoutSecs: 0 });
for await (const message of resumed) processed.push(message.message_id);
console.log(`consumed ${processed.length} messages, last ${resumed.lastMessageId}`);
