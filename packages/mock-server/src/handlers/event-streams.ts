// publish_message, publish_messages_batch and consume_messages (long polling included).

import { instantOf } from '@platform-api/spec/conventions';
import { type Awaitable, after } from '../awaitable.js';
import type { EmulatorState } from '../domain/state.js';
import type { TopicEntry } from '../domain/topics.js';
import { InvalidRequest, NotFound, PayloadTooLarge } from '../errors.js';
import type { Reply } from '../http/replies.js';
import { IsoTimeFormatter } from '../spec/date-time.js';
import { appendAll, type ReadResult } from '../store/message-store.js';
import type { HandlerRequest, Handlers, JsonBody, JsonBodyRule, Outcome } from './handler.js';

/** Room for the `{"payloads":[...]}` wrapper and separators around the messages of a batch. */
const BATCH_OVERHEAD_BYTES = 64 * 1024;

export function eventStreamHandlers(
  state: EmulatorState,
): Pick<Handlers, 'publish_message' | 'publish_messages_batch' | 'consume_messages'> {
  const streams = new EventStreams(state);
  return {
    publish_message: { scope: 'event_streams:publish', handle: (request) => streams.publish(request) },
    publish_messages_batch: { scope: 'event_streams:publish', handle: (request) => streams.publishBatch(request) },
    consume_messages: { scope: 'event_streams:consume', handle: (request) => streams.consume(request) },
  };
}

class EventStreams {
  private readonly message: JsonBodyRule;
  private readonly batch: JsonBodyRule;
  /** Both offsets get their own code, before the schema (whose `not` refuses them too) answers INVALID_REQUEST. */
  private readonly consumeRule: JsonBodyRule = {
    precheck(value) {
      const offsets = typeof value === 'object' && value !== null ? value : {};
      if ('after_message_id' in offsets && 'since_time' in offsets) {
        throw new InvalidRequest('CONFLICTING_OFFSETS', 'Send after_message_id or since_time, not both');
      }
    },
  };
  private readonly times = new IsoTimeFormatter();

  constructor(private readonly state: EmulatorState) {
    const { maxBatchMessages, maxMessageBytes } = state.limits;
    this.message = { what: 'message', limit: maxMessageBytes };
    this.batch = {
      what: 'batch',
      limit: maxBatchMessages * maxMessageBytes + BATCH_OVERHEAD_BYTES,
      // A batch over the limit is refused as such, whatever else is wrong with it.
      precheck: (value) => {
        const payloads = typeof value === 'object' && value !== null && 'payloads' in value ? value.payloads : null;
        if (Array.isArray(payloads) && payloads.length > maxBatchMessages) {
          throw new InvalidRequest(
            'BATCH_TOO_LARGE',
            `A batch carries at most ${maxBatchMessages} messages, not ${payloads.length}`,
            { max_messages: maxBatchMessages },
          );
        }
      },
    };
  }

  publish(request: HandlerRequest<'publish_message'>): Outcome {
    const { topics, store } = this.state;
    const entry = topics.require(request.params.topic_id);
    return request.readJson(this.message, (message, { text, bytes }) => {
      checkTopicSchema(entry, message);
      const messageId = store.append(entry.topic.id, text, bytes);
      // Not through after(): its closure would cost every publish.
      return typeof messageId === 'string'
        ? this.published(entry, messageId)
        : messageId.then((id) => this.published(entry, id));
    });
  }

  private published(entry: TopicEntry, messageId: string): Reply {
    this.state.topics.wake(entry);
    return { status: 201, json: `{"message_id":"${messageId}"}` };
  }

  publishBatch(request: HandlerRequest<'publish_messages_batch'>): Outcome {
    const entry = this.state.topics.require(request.params.topic_id);
    return request.readJson(this.batch, ({ payloads }) => this.storeBatch(entry, payloads));
  }

  consume(request: HandlerRequest<'consume_messages'>): Outcome {
    const entry = this.state.topics.require(request.params.topic_id);
    return request.readJson(this.consumeRule, (offsets) => {
      const read = this.reader(entry.topic.id, offsets);
      const timeoutSecs = offsets.timeout_secs ?? 0;
      // A consumer that may wait hears of the appends (of other emulators too) from before its read.
      return after(timeoutSecs > 0 ? this.state.topics.watch(entry) : undefined, () => {
        const wakes = entry.wakes;
        return after(read(), (first) =>
          first.messages.length > 0 || timeoutSecs === 0
            ? this.batchReply(first)
            : this.waitForMessages(request, entry, read, timeoutSecs, wakes),
        );
      });
    });
  }

  /** Everything is checked before anything is stored: a refused batch stores nothing. */
  private storeBatch(entry: TopicEntry, payloads: object[]): Awaitable<Reply> {
    const { limits, faults, store, topics } = this.state;
    const { maxMessageBytes } = limits;
    const texts = payloads.map((payload, position) => {
      const text = stringify(payload, position);
      const size = Buffer.byteLength(text);
      if (size > maxMessageBytes) {
        throw new PayloadTooLarge(maxMessageBytes, size, `Message ${position} is larger than ${maxMessageBytes} bytes`);
      }
      checkTopicSchema(entry, payload, position);
      return text;
    });
    const fault = faults.takeBatchFault();
    const failed = (position: number) => fault?.positions.has(position) ?? false;
    const stored = appendAll(
      store,
      entry.topic.id,
      texts.filter((_, position) => !failed(position)),
    );
    return after(stored, (ids) => {
      let results = '';
      let next = 0;
      for (const position of texts.keys()) {
        if (!failed(position)) {
          results += `${results ? ',' : ''}"${position}":{"result":"success","message_id":"${ids[next++]}"}`;
        } else if (!fault?.omit) {
          results += `${results ? ',' : ''}"${position}":{"result":"failure","error":"Message could not be stored, retry later"}`;
        }
      }
      // A batch whose every position failed stored nothing to wake a consumer for.
      if (next > 0) topics.wake(entry);
      return { status: 201, json: `{"message_ids":{${results}},"is_partial_error":${next < texts.length}}` };
    });
  }

  /** A function that reads the batch at the request's offset; it is called again when a waiter wakes. */
  private reader(topicId: number, offsets: JsonBody<'consume_messages'>): () => Awaitable<ReadResult> {
    const { store, limits, clock } = this.state;
    const limit = Math.min(offsets.batch_size ?? limits.defaultBatchSize, limits.maxBatchSize);
    const afterId = offsets.after_message_id;
    if (afterId !== undefined) {
      return () =>
        after(store.readAfter(topicId, afterId, limit), (result) => {
          if (!result)
            throw new InvalidRequest('UNKNOWN_MESSAGE_ID', `Message ${afterId} was not found in topic ${topicId}`);
          return result;
        });
    }
    if (offsets.since_time !== undefined) {
      // A time in the future means now.
      const since = Math.min(instantOf(offsets.since_time), clock());
      return () => store.readSince(topicId, since, limit);
    }
    return () => store.readOldest(topicId, limit);
  }

  private waitForMessages(
    request: HandlerRequest<'consume_messages'>,
    entry: TopicEntry,
    read: () => Awaitable<ReadResult>,
    timeoutSecs: number,
    /** The topic's wake-ups before the read that found nothing. */
    wakesBefore: number,
  ): Promise<Reply | undefined> {
    return new Promise((resolve, reject) => {
      const stopWaiting = () => {
        clearTimeout(timer);
        entry.waiters.delete(wake);
        entry.consumers--;
        stopWatching();
      };
      const wake = () => {
        stopWaiting();
        try {
          if (!this.state.topics.get(entry.topic.id))
            throw new NotFound(`Topic ${entry.topic.id} was deleted`, 'TOPIC_NOT_FOUND');
          resolve(after(read(), (result) => this.batchReply(result)));
        } catch (error) {
          reject(error);
        }
      };
      const timer = setTimeout(() => {
        stopWaiting();
        resolve(this.batchReply({ messages: [], hasMore: false }));
      }, timeoutSecs * 1000);
      entry.waiters.add(wake);
      entry.consumers++;
      // A client that disconnects frees its waiter at once.
      const stopWatching = request.onClientGone(() => {
        stopWaiting();
        resolve(undefined);
      });
      // Woken while the read was on its way (an append another emulator announced): read again now.
      if (entry.wakes !== wakesBefore) wake();
    });
  }

  /** The 200 body, built as text: payloads are stored as JSON text and go out unchanged. */
  private batchReply(result: ReadResult): Reply {
    let json = '{"messages":[';
    let separator = '';
    for (const m of result.messages) {
      json += `${separator}{"message_id":"${m.id}","payload":${m.payload},"time":"${this.times.format(m.time)}"}`;
      separator = ',';
    }
    return { status: 200, json: `${json}],"has_more":${result.hasMore}}` };
  }
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
