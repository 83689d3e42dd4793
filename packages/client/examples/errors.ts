import { createEventStreamsClient, EventStreamsError, PublishBatchError } from '@platform-api/client';

const events = createEventStreamsClient({
  baseUrl: process.env.PLATFORM_URL ?? 'http://127.0.0.1:4010',
  auth: { token: process.env.ACCESS_TOKEN ?? '' },
  retry: { maxAttempts: 3, maxWaitMs: 30_000 }, // 429s: wait RETRY-AFTER, at most 3 attempts
});
const topicId = Number(process.env.TOPIC_ID);

try {
  await events.publish(topicId, { order_id: 'ORD-1', note: 'x'.repeat(2_000_000) });
} catch (error) {
  if (!(error instanceof EventStreamsError)) throw error;
  if (error.is(413)) console.log(`too large: ${error.body.current_size} > ${error.body.max_size} bytes`);
  else if (error.is(500)) console.log(`maybe stored, check before publishing again: ${error.body.error.details.code}`);
  else console.log(`refused with ${error.status}: ${error.message}`);
}

try {
  await events.publishBatch(topicId, [{ order_id: 'ORD-2' }, { order_id: 'ORD-3' }]);
} catch (error) {
  if (!(error instanceof PublishBatchError)) throw error;
  // Only the listed positions are missing: error.messageIds has the ids of the others.
  for (const { position, reason } of error.failures) console.log(`message ${position} not stored: ${reason}`);
}
