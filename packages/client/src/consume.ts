import { CONSUME_PATH, type EventStreamsRawClient, eventStreamsError, type Message } from './event-streams-api.js';
import type { RetryPolicy } from './retry.js';

export interface ConsumeOptions {
  /** Start after this message (exclusive), e.g. a saved `lastMessageId`. */
  afterMessageId?: string;
  /** Start at this time (inclusive). Ignored when afterMessageId is given. */
  sinceTime?: string | Date;
  /** Messages per request (the platform caps it at 50). */
  batchSize?: number;
  /** Long-poll wait per request when no message is ready, 0 to 60 s. Default 30. */
  timeoutSecs?: number;
  /** Aborting ends the iteration cleanly (no error), also during a long poll or a retry wait. */
  signal?: AbortSignal;
  /** End the iteration once the topic is read to its end (has_more false) instead of waiting for new messages. */
  stopAtEnd?: boolean;
}

/** Messages in publish order; iterate with `for await`. */
export interface MessageStream extends AsyncIterable<Message> {
  /**
   * The message_id of the last message handed out (or the starting afterMessageId): save it as a
   * checkpoint and pass it as `afterMessageId` to resume after it. Iterating the stream again
   * also resumes from it.
   */
  readonly lastMessageId: string | undefined;
}

/** Reads a topic from an offset, following `has_more` and long-polling when it is read to its end. */
export function consume(
  client: EventStreamsRawClient,
  retry: RetryPolicy,
  topicId: number,
  options: ConsumeOptions = {},
): MessageStream {
  const { batchSize, timeoutSecs = 30, signal, stopAtEnd = false } = options;
  let lastMessageId = options.afterMessageId;
  // since_time only until the first message: from then on the position is lastMessageId.
  const sinceTime = options.sinceTime instanceof Date ? options.sinceTime.toISOString() : options.sinceTime;

  async function readBatch() {
    const body = {
      ...(lastMessageId !== undefined ? { after_message_id: lastMessageId } : sinceTime && { since_time: sinceTime }),
      ...(batchSize !== undefined && { batch_size: batchSize }),
      timeout_secs: timeoutSecs,
    };
    try {
      const { data, error, response } = await client.POST(CONSUME_PATH, {
        params: { path: { topic_id: topicId } },
        body,
        ...(signal && { signal }),
      });
      if (!data) throw eventStreamsError(CONSUME_PATH, response, error, retry.now);
      return data;
    } catch (error) {
      if (signal?.aborted) return undefined;
      throw error;
    }
  }

  async function* messages(): AsyncGenerator<Message> {
    while (!signal?.aborted) {
      const batch = await readBatch();
      if (!batch) return;
      for (const message of batch.messages) {
        lastMessageId = message.message_id;
        yield message;
        if (signal?.aborted) return;
      }
      if (stopAtEnd && !batch.has_more) return;
    }
  }

  return {
    get lastMessageId() {
      return lastMessageId;
    },
    [Symbol.asyncIterator]: messages,
  };
}
