import {
  ConnectionError,
  createEventStreamsClient,
  EventStreamsError,
  PayloadTooLargeError,
  PublishBatchError,
} from '@platform-api/client';

const events = createEventStreamsClient({
  baseUrl: process.env.PLATFORM_URL ?? 'http://127.0.0.1:4010',
  auth: { token: process.env.ACCESS_TOKEN ?? '' },
  retry: { maxAttempts: 3, maxWaitMs: 30_000 }, // 429s: wait RETRY-AFTER, at most 3 attempts
  timeoutMs: 10_000, // each attempt; a TimeoutError after that
});
const topicId = Number(process.env.TOPIC_ID);

try {
  await events.publish(topicId, { order_id: 'ORD-1', note: 'x'.repeat(2_000_000) });
} catch (error) {
  if (error instanceof PayloadTooLargeError) console.log(`not sent: ${error.size} > ${error.maxSize} bytes`);
  else if (error instanceof ConnectionError) console.log(`no answer (maybe stored): ${error.message}`);
  else if (!(error instanceof EventStreamsError)) throw error;
  else if (error.is(500)) console.log(`maybe stored, check before publishing again: ${error.body.error.details.code}`);
  else if (error.is(400))
    console.log(`refused: ${error.body.error.details.code}`); // 'SCHEMA_MISMATCH', ...
  else console.log(`refused with ${error.status}: ${error.message}`);
}

try {
  await events.publishBatch(topicId, [{ order_id: 'ORD-2' }, { order_id: 'ORD-3' }]);
} catch (error) {
  if (!(error instanceof PublishBatchError)) throw error;
  // Only the listed positions are missing: error.messageIds has the ids of the others.
  for (const { position, reason } of error.failures) console.log(`message ${position} not stored: ${reason}`);
}
