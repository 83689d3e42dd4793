// Consume measurements against an emulator child: draining a prefilled topic, and long-poll wake-ups.
import { readFileSync } from 'node:fs';
import { consumePath, publishPath } from './payload.mjs';
import { RawConnection } from './raw-http.mjs';

/**
 * Drains the whole topic once: batch k is read with after_message_id = the last id of batch k-1 (the
 * offsets the emulator child wrote), so every message is read exactly once. The batches are split
 * into `connections` contiguous ranges, one per connection, each pipelined `depth` deep. The time is
 * from the first request written to the last answer received. Every answer must be a 200; every
 * `checkEvery`-th answer is parsed fully and must hold `batchSize` messages that follow its offset.
 */
export async function drain({
  url,
  token,
  topicId,
  offsetsFile,
  total,
  batchSize,
  connections = 4,
  depth = 8,
  checkEvery = 50,
}) {
  const offsets = readFileSync(offsetsFile, 'utf8').split('\n').filter(Boolean);
  const batches = [undefined, ...offsets];
  if (batches.length * batchSize !== total)
    throw new Error(`${batches.length} batches of ${batchSize} are not ${total} messages`);
  const path = consumePath(topicId);
  const sockets = await Promise.all(Array.from({ length: connections }, () => RawConnection.open(url)));
  const perConnection = Math.ceil(batches.length / connections);
  let messages = 0;
  let bytes = 0;
  const began = performance.now();
  await Promise.all(
    sockets.map(async (socket, c) => {
      const range = batches.slice(c * perConnection, (c + 1) * perConnection);
      const requests = range.map((after) =>
        socket.postRequest(
          path,
          token,
          after === undefined ? { batch_size: batchSize } : { after_message_id: after, batch_size: batchSize },
        ),
      );
      let next = 0;
      const worker = async () => {
        while (next < requests.length) {
          const index = next++;
          const { status, body } = await socket.send(requests[index]);
          if (status !== 200) throw new Error(`consume answered ${status}: ${body}`);
          bytes += body.length;
          messages += index % checkEvery === 0 ? checkBatch(body, range[index], batchSize) : batchSize;
        }
      };
      await Promise.all(Array.from({ length: depth }, worker));
    }),
  );
  const seconds = (performance.now() - began) / 1000;
  for (const socket of sockets) socket.close();
  if (messages !== total) throw new Error(`Drained ${messages} messages, expected ${total}`);
  return {
    messages,
    seconds,
    messagesPerSecond: messages / seconds,
    megabytesPerSecond: bytes / seconds / 1e6,
    connections,
    depth,
  };
}

function checkBatch(body, after, batchSize) {
  const batch = JSON.parse(body.toString('utf8'));
  const ids = batch.messages.map((m) => m.message_id);
  const ordered = ids.every((id, i) => (i === 0 ? after === undefined || id > after : id > ids[i - 1]));
  if (batch.messages.length !== batchSize || !ordered)
    throw new Error(`Bad batch after ${after}: ${ids.length} messages`);
  return batch.messages.length;
}

/**
 * Long-poll wake-up: a consumer waits (timeout_secs 5) after the newest message; after a short pause
 * (so the wait is registered) a publisher on another connection publishes; the sample is the time from
 * writing the publish to the consumer having the whole answer with that message. With `publishUrl`,
 * the publisher is on another emulator (sharing a Redis): the wake-up crosses instances.
 */
export async function longPollWake({
  url,
  publishUrl = url,
  token,
  topicId,
  payloadText,
  samples = 2000,
  warmup = 100,
  pauseMs = 2,
}) {
  const consumer = await RawConnection.open(url);
  const publisher = await RawConnection.open(publishUrl);
  const publish = publisher.postRequest(publishPath(topicId), token, payloadText);
  let after = JSON.parse((await publisher.send(publish)).body).message_id;
  const latencies = [];
  for (let i = 0; i < warmup + samples; i++) {
    const waiting = consumer.send(
      consumer.postRequest(consumePath(topicId), token, { after_message_id: after, timeout_secs: 5 }),
    );
    await new Promise((resolve) => setTimeout(resolve, pauseMs));
    const began = performance.now();
    const published = publisher.send(publish);
    const { status, body } = await waiting;
    const elapsed = performance.now() - began;
    const { message_id: id } = JSON.parse((await published).body);
    const batch = JSON.parse(body);
    // Publishes of a load just ended can still be appended during the warm-up (on Redis, after the
    // answer wrk stopped waiting for): the warm-up reads past them; a sample must be the publish alone.
    const settling = i < warmup && status === 200 && batch.messages.length > 0;
    if (!settling && (status !== 200 || batch.messages[0]?.message_id !== id))
      throw new Error(`Woken consumer got ${status} ${body}, expected ${id}`);
    after = settling ? batch.messages.at(-1).message_id : id;
    if (i >= warmup) latencies.push(elapsed);
  }
  consumer.close();
  publisher.close();
  latencies.sort((a, b) => a - b);
  const at = (q) => latencies[Math.min(latencies.length - 1, Math.floor(q * latencies.length))];
  return { samples, p50Ms: at(0.5), p99Ms: at(0.99), maxMs: latencies.at(-1) };
}
