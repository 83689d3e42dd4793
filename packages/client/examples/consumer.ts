import { createEventStreamsClient } from '@platform-api/client';
import { fileCheckpointStore } from '@platform-api/client/node';

// A long-running consumer that survives restarts, with at-least-once delivery: a message's
// checkpoint is saved only after the handler resolved, so a crash or a failing handler means the
// message is delivered again on the next start, never skipped.
const events = createEventStreamsClient({
  baseUrl: process.env.PLATFORM_URL ?? 'http://127.0.0.1:4010', // or { dataCenter: 'us' }
  auth: { token: process.env.ACCESS_TOKEN ?? '' }, // a static token; see clientCredentials for renewal
});
const subscription = events.subscribe(
  Number(process.env.TOPIC_ID),
  async (message) => {
    console.log(message.time, JSON.stringify(message.payload)); // the processing; throw to stop
  },
  {
    store: fileCheckpointStore(process.env.CHECKPOINT_FILE ?? 'checkpoints.json'), // atomic writes
    saveEvery: { messages: 10, ms: 1000 }, // and whenever the topic is read to its end, and on stop
    timeoutSecs: 30, // long poll: each request waits up to 30 s for a message
    onExpiredCheckpoint: 'since-time', // past the topic's retention: go on from the checkpoint's time
  },
);

// Ctrl-C: finish the current message, save the checkpoint, stop.
process.once('SIGINT', () => void subscription.stop());
await subscription.done;
console.log(`stopped after ${subscription.checkpoint?.messageId ?? 'no message'}`);
