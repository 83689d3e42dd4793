// Filling a data dir through the emulator's HTTP API (batch publish, as its users fill one), for the
// figures of an emulator that holds a million persisted messages.
import { writeFileSync } from 'node:fs';
import { batchPublishPath, batchText } from './payload.mjs';
import { RawConnection } from './raw-http.mjs';

/**
 * Publishes `total` messages in batches of `batchSize` on one connection, pipelined `depth` deep: the
 * batches are stored in the order they are sent. Writes the after_message_id offsets that start each
 * consume batch of `consumeBatch` messages but the first to `offsetsFile`, for the drain.
 */
export async function prefillOverHttp({ url, token, topicId, total, batchSize, consumeBatch, offsetsFile, depth = 8 }) {
  const socket = await RawConnection.open(url);
  const request = socket.postRequest(batchPublishPath(topicId), token, batchText(batchSize));
  const offsets = [];
  const batches = total / batchSize;
  let next = 0;
  const began = performance.now();
  const worker = async () => {
    while (next < batches) {
      const first = next++ * batchSize;
      const { status, body } = await socket.send(request);
      if (status !== 201) throw new Error(`batch publish answered ${status}: ${body}`);
      const ids = JSON.parse(body.toString('utf8')).message_ids;
      for (let position = 0; position < batchSize; position++) {
        const stored = first + position + 1;
        if (stored % consumeBatch === 0 && stored < total)
          offsets[stored / consumeBatch - 1] = ids[position].message_id;
      }
    }
  };
  await Promise.all(Array.from({ length: depth }, worker));
  const seconds = (performance.now() - began) / 1000;
  socket.close();
  writeFileSync(offsetsFile, offsets.join('\n'));
  return { messages: total, seconds, messagesPerSecond: total / seconds };
}
