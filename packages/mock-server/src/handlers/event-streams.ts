// publish_message, publish_messages_batch and consume_messages (long polling included).
import type { EmulatorState } from '../domain/state.js';

import type { TopicEntry } from '../domain/topics.js';
import { InvalidRequest, NotFound, PayloadTooLarge } from '../errors.js';
import type { Reply } from '../http/replies.js';
import { isoTime } from '../spec/date-time.js';
import type { ReadResult } from '../store/message-store.js';
import {
  type Context,
  type Outcome,
  type RouteHandler,
  topicOr404,
  validateBody,
  withJsonBody,
  withValidJson,
} from './context.js';

/** Room for the `{"payloads":[...]}` wrapper and separators around the messages of a batch. */
const BATCH_OVERHEAD_BYTES = 64 * 1024;

export function eventStreamHandlers(state: EmulatorState): Record<string, RouteHandler> {
  return {
    publish_message: { scope: 'event_streams:publish', handle: (ctx) => publish(state, ctx) },
    publish_messages_batch: { scope: 'event_streams:publish', handle: (ctx) => publishBatch(state, ctx) },
    consume_messages: { scope: 'event_streams:consume', handle: (ctx) => consume(state, ctx) },
  };
}

function publish(state: EmulatorState, ctx: Context): Outcome {
  const entry = topicOr404(state, ctx);
  return withJsonBody(ctx, state.limits.maxMessageBytes, 'message', ({ value, text, bytes }) => {
    validateBody(state, ctx, value);
    checkTopicSchema(entry, value);
    const messageId = state.store.append(entry.topic.id, text, bytes);
    state.topics.wake(entry);
    return { status: 201, json: `{"message_id":"${messageId}"}` };
  });
}

function publishBatch(state: EmulatorState, ctx: Context): Outcome {
  const entry = topicOr404(state, ctx);
  const { maxBatchMessages, maxMessageBytes } = state.limits;
  const limit = maxBatchMessages * maxMessageBytes + BATCH_OVERHEAD_BYTES;
  return withJsonBody(ctx, limit, 'batch', ({ value }) => {
    const count = (value as { payloads?: unknown })?.payloads;
    if (Array.isArray(count) && count.length > maxBatchMessages) {
      throw new InvalidRequest(
        'BATCH_TOO_LARGE',
        `A batch carries at most ${maxBatchMessages} messages, not ${count.length}`,
        {
          max_messages: maxBatchMessages,
        },
      );
    }
    validateBody(state, ctx, value);
    return storeBatch(state, entry, (value as { payloads: object[] }).payloads);
  });
}

/** Everything is checked before anything is stored: a refused batch stores nothing. */
function storeBatch(state: EmulatorState, entry: TopicEntry, payloads: object[]): Reply {
  const { maxMessageBytes } = state.limits;
  const texts = payloads.map((payload, position) => {
    const text = stringify(payload, position);
    const size = Buffer.byteLength(text);
    if (size > maxMessageBytes) {
      throw new PayloadTooLarge(maxMessageBytes, size, `Message ${position} is larger than ${maxMessageBytes} bytes`);
    }
    checkTopicSchema(entry, payload, position);
    return text;
  });
  const fault = state.faults.takeBatchFault();
  let results = '';
  let partial = false;
  texts.forEach((text, position) => {
    if (fault?.positions.has(position)) {
      partial = true;
      if (!fault.omit)
        results += `${results ? ',' : ''}"${position}":{"result":"failure","error":"Message could not be stored, retry later"}`;
      return;
    }
    const messageId = state.store.append(entry.topic.id, text);
    results += `${results ? ',' : ''}"${position}":{"result":"success","message_id":"${messageId}"}`;
  });
  state.topics.wake(entry);
  return { status: 201, json: `{"message_ids":{${results}},"is_partial_error":${partial}}` };
}

function stringify(payload: object, position: number): string {
  try {
    return JSON.stringify(payload);
  } catch {
    // Only nesting deep enough to exhaust the stack gets here: JSON.parse produced the value.
    throw new InvalidRequest('INVALID_REQUEST', `Message ${position} is nested too deeply`);
  }
}

function checkTopicSchema(entry: TopicEntry, message: unknown, position?: number): void {
  const mismatch = entry.validate(message);
  if (!mismatch) return;
  const where = position === undefined ? '' : `Message ${position}: `;
  const details = position === undefined ? { field: mismatch.field } : { field: mismatch.field, position };
  throw new InvalidRequest('SCHEMA_MISMATCH', where + mismatch.message, details);
}

interface ConsumeRequest {
  after_message_id?: string;
  since_time?: string;
  batch_size?: number;
  timeout_secs?: number;
}

function consume(state: EmulatorState, ctx: Context): Outcome {
  const entry = topicOr404(state, ctx);
  return withValidJson(state, ctx, (request: ConsumeRequest) => {
    if (request.after_message_id !== undefined && request.since_time !== undefined) {
      throw new InvalidRequest('CONFLICTING_OFFSETS', 'Send after_message_id or since_time, not both');
    }
    const read = reader(state, entry.topic.id, request);
    const first = read();
    const timeoutSecs = request.timeout_secs ?? 0;
    if (first.messages.length > 0 || timeoutSecs === 0) return { status: 200, json: consumeJson(first) };
    return waitForMessages(state, ctx, entry, read, timeoutSecs);
  });
}

/** A function that reads the batch at the request's offset; it is called again when a waiter wakes. */
function reader(state: EmulatorState, topicId: number, request: ConsumeRequest): () => ReadResult {
  const { store, limits, clock } = state;
  const limit = Math.min(request.batch_size ?? limits.defaultBatchSize, limits.maxBatchSize);
  const afterId = request.after_message_id;
  if (afterId !== undefined) {
    return () => {
      const result = store.readAfter(topicId, afterId, limit);
      if (!result)
        throw new InvalidRequest('UNKNOWN_MESSAGE_ID', `Message ${afterId} was not found in topic ${topicId}`);
      return result;
    };
  }
  if (request.since_time !== undefined) {
    // A time in the future means now.
    const since = Math.min(Date.parse(request.since_time), clock());
    return () => store.readSince(topicId, since, limit);
  }
  return () => store.readOldest(topicId, limit);
}

function waitForMessages(
  state: EmulatorState,
  ctx: Context,
  entry: TopicEntry,
  read: () => ReadResult,
  timeoutSecs: number,
): Promise<Reply | undefined> {
  return new Promise((resolve, reject) => {
    const finish = () => {
      clearTimeout(timer);
      entry.waiters.delete(wake);
      ctx.res.off('close', onClose);
    };
    const wake = () => {
      finish();
      try {
        if (!state.topics.get(entry.topic.id))
          throw new NotFound(`Topic ${entry.topic.id} was deleted`, 'TOPIC_NOT_FOUND');
        resolve({ status: 200, json: consumeJson(read()) });
      } catch (error) {
        reject(error);
      }
    };
    const timer = setTimeout(() => {
      finish();
      resolve({ status: 200, json: consumeJson({ messages: [], hasMore: false }) });
    }, timeoutSecs * 1000);
    // A client that disconnects frees its waiter at once.
    const onClose = () => {
      finish();
      resolve(undefined);
    };
    entry.waiters.add(wake);
    ctx.res.on('close', onClose);
  });
}

/** The 200 body, built as text: payloads are stored as JSON text and go out unchanged. */
function consumeJson(result: ReadResult): string {
  let json = '{"messages":[';
  const { messages } = result;
  for (let i = 0; i < messages.length; i++) {
    const m = messages[i]!;
    json += `${i ? ',' : ''}{"message_id":"${m.id}","payload":${m.payload},"time":"${isoTime(m.time)}"}`;
  }
  return `${json}],"has_more":${result.hasMore}}`;
}
