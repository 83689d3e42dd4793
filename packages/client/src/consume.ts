import { type Checkpoint, checkpointOf } from './checkpoint.js';
import {
  CONSUME_PATH,
  EventStreamsError,
  eventStreamsError,
  type Helpers,
  type Message,
  type Payload,
  type TypedMessage,
} from './event-streams-api.js';
import { type RequestOptions, requestInit } from './options.js';

/** What to do when the checkpoint is no longer retained (400 UNKNOWN_MESSAGE_ID, e.g. past the retention). */
export type ExpiredCheckpointPolicy =
  /** Go on from the checkpoint's time (the oldest message when it has none): what followed it and is still retained. */
  | 'since-time'
  /** Go on from the oldest retained message. */
  | 'oldest'
  /** Throw the EventStreamsError (default): messages after the checkpoint may be lost, a person should decide. */
  | 'fail';

export interface ConsumeOptions extends RequestOptions {
  /** Start after this message (exclusive), e.g. a saved `lastMessageId`. */
  afterMessageId?: string | undefined;
  /** Start after this checkpoint (exclusive); its time serves `onExpiredCheckpoint: 'since-time'`. */
  checkpoint?: Checkpoint | undefined;
  /** Start at this time (inclusive) when there is no checkpoint. */
  sinceTime?: string | Date | undefined;
  /** What to do when the checkpoint is no longer retained. Default `'fail'`. */
  onExpiredCheckpoint?: ExpiredCheckpointPolicy | undefined;
  /** Messages per request (the platform caps it at 50). */
  batchSize?: number | undefined;
  /** Long-poll wait per request when no message is ready, 0 to 60 s. Default 30. */
  timeoutSecs?: number | undefined;
  /** End the iteration once the topic is read to its end (has_more false) instead of waiting for new messages. */
  stopAtEnd?: boolean | undefined;
  /** Called each time the topic is read to its end, before waiting for new messages (e.g. to save a checkpoint). */
  onIdle?: (() => void | Promise<void>) | undefined;
}

/**
 * Messages in publish order; iterate with `for await`. Delivery is at least once: a message counts
 * as processed when the loop asks for the next one, so the checkpoint never passes a message whose
 * loop body threw or was left with `break` (call `commit()` first when it was processed).
 */
export interface MessageStream<T = Payload> extends AsyncIterable<TypedMessage<T>> {
  /** The last processed message (or the starting point): save it, resume with `{ checkpoint }`. */
  readonly checkpoint: Checkpoint | undefined;
  /** `checkpoint.messageId`: pass it as `afterMessageId` to resume after it. */
  readonly lastMessageId: string | undefined;
  /** Marks the message being processed as processed, e.g. before leaving the loop with `break`. */
  commit(): void;
  /** The raw answer of the last consume request. */
  readonly lastResponse: Response | undefined;
}

/** The request's starting point: after a message, from a time, or (neither) the oldest message. */
type Offset = { after_message_id?: string; since_time?: string };

const isUnknownMessageId = (error: unknown) =>
  error instanceof EventStreamsError && error.is(400) && error.body.error.details.code === 'UNKNOWN_MESSAGE_ID';

/** Reads a topic from an offset, following `has_more` and long-polling when it is read to its end. */
export function consume<T = Payload>(
  { client, retry, timeoutMs: clientTimeoutMs, logger }: Helpers,
  topicId: number,
  options: ConsumeOptions = {},
): MessageStream<T> {
  const { batchSize, timeoutSecs = 30, signal, stopAtEnd = false, onExpiredCheckpoint = 'fail', onIdle } = options;
  let checkpoint = options.checkpoint ?? (options.afterMessageId ? { messageId: options.afterMessageId } : undefined);
  /** Handed out and not yet processed. */
  let current: Message | undefined;
  let lastResponse: Response | undefined;
  const sinceTime = options.sinceTime instanceof Date ? options.sinceTime.toISOString() : options.sinceTime;
  // The long poll is not part of the time an attempt may take to answer.
  const attemptMs = options.timeoutMs ?? clientTimeoutMs;
  const timeoutMs = attemptMs > 0 ? attemptMs + timeoutSecs * 1000 : 0;

  function commit() {
    if (current) checkpoint = checkpointOf(current);
    current = undefined;
  }

  async function request(offset: Offset) {
    const { data, error, response } = await client.POST(CONSUME_PATH, {
      params: { path: { topic_id: topicId } },
      body: { ...offset, ...(batchSize !== undefined && { batch_size: batchSize }), timeout_secs: timeoutSecs },
      ...requestInit({ ...options, timeoutMs }),
    });
    lastResponse = response;
    if (!data) throw eventStreamsError(CONSUME_PATH, response, error, retry.now);
    return data;
  }

  /** One batch and the offset it was read from; an expired checkpoint is handled by the policy. */
  async function readBatch(offset: Offset): Promise<{ batch: Awaited<ReturnType<typeof request>>; offset: Offset }> {
    try {
      return { batch: await request(offset), offset };
    } catch (error) {
      const expired = offset.after_message_id;
      if (expired === undefined || onExpiredCheckpoint === 'fail' || !isUnknownMessageId(error)) throw error;
      const time = onExpiredCheckpoint === 'since-time' ? checkpoint?.time : undefined;
      logger?.({ type: 'checkpoint-expired', topicId, messageId: expired, resumeFrom: time ? 'since-time' : 'oldest' });
      const resumed = time ? { since_time: time } : {};
      return { batch: await request(resumed), offset: resumed };
    }
  }

  async function* messages(): AsyncGenerator<TypedMessage<T>> {
    current = undefined;
    let offset: Offset = checkpoint
      ? { after_message_id: checkpoint.messageId }
      : sinceTime !== undefined
        ? { since_time: sinceTime }
        : {};
    while (!signal?.aborted) {
      let read: Awaited<ReturnType<typeof readBatch>>;
      try {
        read = await readBatch(offset);
      } catch (error) {
        if (signal?.aborted) return;
        throw error;
      }
      offset = read.offset;
      for (const message of read.batch.messages) {
        current = message;
        yield message as TypedMessage<T>;
        // The loop asked for the next message: it is done with this one.
        commit();
        offset = { after_message_id: message.message_id };
        if (signal?.aborted) return;
      }
      if (!read.batch.has_more) {
        if (stopAtEnd) return;
        await onIdle?.();
      }
    }
  }

  return {
    get checkpoint() {
      return checkpoint;
    },
    get lastMessageId() {
      return checkpoint?.messageId;
    },
    get lastResponse() {
      return lastResponse;
    },
    commit,
    [Symbol.asyncIterator]: messages,
  };
}
