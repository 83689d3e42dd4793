import { readFile, writeFile } from 'node:fs/promises';
import { createEventStreamsClient } from '@platform-api/client';

// A long-running consumer that survives restarts: it saves the last message_id after each
// message and starts after it next time. Ctrl-C (or RUN_FOR_MS) stops it cleanly.
const checkpointFile = process.env.CHECKPOINT_FILE ?? 'checkpoint.txt';
const afterMessageId = await readFile(checkpointFile, 'utf8').catch(() => undefined);

const controller = new AbortController();
process.once('SIGINT', () => controller.abort());
if (process.env.RUN_FOR_MS) setTimeout(() => controller.abort(), Number(process.env.RUN_FOR_MS));

const events = createEventStreamsClient({
  baseUrl: process.env.PLATFORM_URL ?? 'http://127.0.0.1:4010', // or { dataCenter: 'us' }
  auth: { token: process.env.ACCESS_TOKEN ?? '' }, // a static token; see clientCredentials for renewal
});
const stream = events.consume(Number(process.env.TOPIC_ID), {
  afterMessageId,
  timeoutSecs: 30, // long poll: each request waits up to 30 s for a message
  signal: controller.signal,
});
for await (const message of stream) {
  console.log(message.time, JSON.stringify(message.payload));
  await writeFile(checkpointFile, message.message_id);
}
console.log(`stopped after ${stream.lastMessageId ?? 'no message'}`);
