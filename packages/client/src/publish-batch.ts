import { type BatchFailure, PublishBatchError } from './errors.js';
import {
  BATCH_PUBLISH_PATH,
  type EventStreamsRawClient,
  eventStreamsError,
  type Payload,
} from './event-streams-api.js';
import { eventStreamsLimits } from './generated/limits.js';
import type { RetryPolicy } from './retry.js';

export interface PublishBatchOptions {
  /** Messages per request. Default 100, the platform's limit (`x-platform-limits.maxBatchMessages`). */
  maxBatchMessages?: number;
  /** Requests per batch, resends included. Default: the client's retry.maxAttempts. */
  maxAttempts?: number;
  signal?: AbortSignal;
}

/** Positions `from` to `to` (exclusive). */
function range(from: number, to: number): number[] {
  return Array.from({ length: to - from }, (_, i) => from + i);
}

/**
 * Publishes `payloads` in batches of at most maxBatchMessages, in order. After each answer,
 * every position without a `success` entry (a `failure`, or no entry at all: the platform did
 * not store it) is sent again, and only those, until all are stored or the attempts run out.
 * Resolves to the message_ids in input order; rejects with PublishBatchError, which lists each
 * position that was not stored and carries the ids of those that were.
 */
export async function publishBatch(
  client: EventStreamsRawClient,
  retry: RetryPolicy,
  topicId: number,
  payloads: readonly Payload[],
  options: PublishBatchOptions = {},
): Promise<string[]> {
  const { maxBatchMessages = eventStreamsLimits.maxBatchMessages, maxAttempts = retry.maxAttempts, signal } = options;
  if (!Number.isInteger(maxBatchMessages) || maxBatchMessages < 1) {
    throw new RangeError(`maxBatchMessages must be a positive integer, got ${maxBatchMessages}`);
  }
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
  async function send(positions: number[]): Promise<number[]> {
    // Until an answer says otherwise (a network error or an abort leaves this reason).
    for (const position of positions) reasons.set(position, 'no answer');
    const { data, error, response } = await client.POST(BATCH_PUBLISH_PATH, {
      params: { path: { topic_id: topicId } },
      body: { payloads: positions.map((position) => payloads[position]!) },
      ...(signal && { signal }),
    });
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
    for (let start = 0; start < payloads.length; start += maxBatchMessages) {
      let pending = range(start, Math.min(start + maxBatchMessages, payloads.length));
      for (let attempt = 1; pending.length > 0; attempt++) {
        if (attempt > maxAttempts) throw giveUp();
        if (attempt > 1) await retry.sleep(retry.backoffMs(attempt - 1), signal);
        pending = await send(pending);
      }
    }
  } catch (error) {
    // Network errors and aborts too: the caller needs the ids stored so far.
    throw error instanceof PublishBatchError ? error : giveUp(error);
  }
  return messageIds as string[];
}
