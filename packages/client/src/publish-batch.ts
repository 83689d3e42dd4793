import { positiveInteger } from '@platform-api/spec/conventions';
import { type BatchFailure, PayloadTooLargeError, PublishBatchError } from './errors.js';
import { BATCH_PUBLISH_PATH, eventStreamsError, type Helpers, type Payload } from './event-streams-api.js';
import { type RequestOptions, requestInit } from './options.js';

export interface PublishBatchOptions extends RequestOptions {
  /** Messages per request: at most the platform's limit (`x-platform-limits.maxBatchMessages`, 100), the default. */
  maxBatchMessages?: number | undefined;
  /**
   * Bytes of payload JSON per request. Default `maxMessageBytes` (1 MB): the spec states no limit
   * for a whole batch request, so a batch is kept within the one limit it does state.
   */
  maxBatchBytes?: number | undefined;
  /** Requests per batch, resends included. Default: the client's retry.maxAttempts. */
  maxAttempts?: number | undefined;
  /** Told before each request: the positions (in `payloads`) it carries, and its attempt (1, then each resend). */
  onSend?: ((positions: readonly number[], attempt: number) => void) | undefined;
}

const encoder = new TextEncoder();

/**
 * The JSON of `payload` as it is sent, and its size in bytes; throws PayloadTooLargeError above the
 * platform's message limit. The request bodies are made of these strings: each payload is serialized once.
 */
export function serialized(payload: unknown, maxMessageBytes: number, position?: number) {
  const json = JSON.stringify(payload);
  const bytes = encoder.encode(json).byteLength;
  if (bytes > maxMessageBytes) throw new PayloadTooLargeError(bytes, maxMessageBytes, position);
  return { json, bytes };
}

/**
 * Splits positions 0..sizes.length-1 into consecutive batches of at most `maxMessages` messages and
 * `maxBytes` bytes of payloads (a message larger than `maxBytes` alone).
 */
export function splitBatches(sizes: readonly number[], maxMessages: number, maxBytes: number): number[][] {
  const batches: number[][] = [];
  let batch: number[] = [];
  let bytes = 0;
  sizes.forEach((size, position) => {
    // +1 for the comma between payloads in the request body.
    if (batch.length > 0 && (batch.length === maxMessages || bytes + 1 + size > maxBytes)) {
      batches.push(batch);
      batch = [];
      bytes = 0;
    }
    bytes += (batch.length > 0 ? 1 : 0) + size;
    batch.push(position);
  });
  if (batch.length > 0) batches.push(batch);
  return batches;
}

/**
 * Publishes `payloads` in batches within the platform's limits (checked before anything is sent),
 * in order. After each answer, every position without a `success` entry (a `failure`, or no entry
 * at all: the platform did not store it) is sent again, and only those, until all are stored or the
 * attempts run out. Resolves to the message_ids in input order; rejects with PublishBatchError,
 * which lists each position that was not stored and carries the ids of those that were.
 */
export async function publishBatch(
  { client, retry, limits }: Helpers,
  topicId: number,
  payloads: readonly Payload[],
  options: PublishBatchOptions = {},
  responses: Response[] = [],
): Promise<string[]> {
  const maxMessages = positiveInteger(
    'maxBatchMessages',
    options.maxBatchMessages ?? limits.maxBatchMessages,
    limits.maxBatchMessages,
  );
  const maxBytes = positiveInteger('maxBatchBytes', options.maxBatchBytes ?? limits.maxMessageBytes);
  const { maxAttempts = retry.maxAttempts, signal, onSend } = options;
  const messages = payloads.map((payload, position) => serialized(payload, limits.maxMessageBytes, position));
  const messageIds: (string | undefined)[] = new Array(payloads.length).fill(undefined);
  const reasons = new Map<number, string>();

  function giveUp(cause?: unknown): PublishBatchError {
    const failures: BatchFailure[] = [];
    messageIds.forEach((id, position) => {
      if (id === undefined) failures.push({ position, reason: reasons.get(position) ?? 'not sent' });
    });
    return new PublishBatchError(failures, messageIds, maxAttempts, cause);
  }

  /** Sends the payloads at `positions` once; returns the positions still not stored. */
  async function send(positions: number[], attempt: number): Promise<number[]> {
    onSend?.(positions, attempt);
    // Until an answer says otherwise (a network error or an abort leaves this reason).
    for (const position of positions) reasons.set(position, 'no answer');
    const { data, error, response } = await client.POST(BATCH_PUBLISH_PATH, {
      params: { path: { topic_id: topicId } },
      body: { payloads: positions.map((position) => payloads[position] as Payload) },
      // The same bytes, from the JSON made for the size check.
      bodySerializer: () => `{"payloads":[${positions.map((position) => messages[position]?.json).join(',')}]}`,
      ...requestInit(options),
    });
    responses.push(response);
    if (!data) {
      const apiError = eventStreamsError(BATCH_PUBLISH_PATH, response, error, retry.now);
      for (const position of positions) reasons.set(position, apiError.message);
      throw giveUp(apiError);
    }
    // Keys of message_ids are positions in the request just sent, not in `payloads`.
    return positions.filter((position, sentIndex) => {
      const result = data.message_ids[String(sentIndex)];
      if (result?.result === 'success') {
        messageIds[position] = result.message_id;
        return false;
      }
      reasons.set(position, result ? result.error : 'no result entry');
      return true;
    });
  }

  try {
    const sizes = messages.map((message) => message.bytes);
    for (const batch of splitBatches(sizes, maxMessages, maxBytes)) {
      let pending = batch;
      for (let attempt = 1; pending.length > 0; attempt++) {
        if (attempt > maxAttempts) throw giveUp();
        if (attempt > 1) await retry.sleep(retry.backoffMs(attempt - 1), signal);
        pending = await send(pending, attempt);
      }
    }
  } catch (error) {
    // Network errors and aborts too: the caller needs the ids stored so far.
    throw error instanceof PublishBatchError ? error : giveUp(error);
  }
  return messageIds as string[];
}
