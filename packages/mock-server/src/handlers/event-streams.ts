// publish_message, publish_messages_batch and consume_messages (long polling included): the fast path
// of the pipeline. With the memory store, a publish is answered in the turn its body arrived, without
// a promise; every topic is looked up before its body is read.
import { instantOf } from '@platform-api/spec/conventions';
import type { operations } from '@platform-api/spec/types/event-streams';
import { type Awaitable, after } from '../awaitable.js';
import type { DomainState } from '../domain/state.js';
import type { TopicEntry, Topics } from '../domain/topics.js';
import { InvalidRequest, NotFound, PayloadTooLarge } from '../errors.js';
import type { Reply } from '../http/replies.js';
import {
  type Answer,
  type EndpointRequest,
  endpoint,
  NO_REPLY,
  type PlatformEndpoints,
  type RequestHead,
} from '../pipeline/endpoint.js';
import { IsoTimeFormatter } from '../spec/date-time.js';
import { mayHoldOutOfRangeNumber, outOfRangeNumberPath } from '../spec/json-numbers.js';
import type { JsonBodyOf } from '../spec/operation-types.js';
import { appendAll, type ReadResult } from '../store/message-store.js';
import type { Tenant } from '../tenants/tenant.js';

type PublishOperation = operations['publish_message'];
type ConsumeOperation = operations['consume_messages'];
type ConsumeOffsets = JsonBodyOf<ConsumeOperation>;
/** The path of every event-streams operation. */
type TopicPath = PublishOperation['parameters']['path'];

/** Room for the `{"payloads":[...]}` wrapper and separators around the messages of a batch. */
const BATCH_OVERHEAD_BYTES = 64 * 1024;

/** The right to the topic the path names: every event-streams operation has a topic_id, and catches up on one not known here. */
const onTopic = {
  topicOf: (params: TopicPath) => params.topic_id,
  catchUp: 'unknown-topic',
  // The topic exists before the body is read: a 404 comes before a 400 for the body.
  precheck: ({ params, tenant }: RequestHead<{ parameters: { path: TopicPath } }>) =>
    tenant.domain.topics.require(params.topic_id),
} as const;

/** A batch over the limit is refused as such, whatever else is wrong with it. */
function batchWithinLimit(value: unknown, { domain }: Tenant): void {
  const { maxBatchMessages } = domain.limits;
  const payloads = typeof value === 'object' && value !== null && 'payloads' in value ? value.payloads : null;
  if (Array.isArray(payloads) && payloads.length > maxBatchMessages) {
    throw new InvalidRequest(
      'BATCH_TOO_LARGE',
      `A batch carries at most ${maxBatchMessages} messages, not ${payloads.length}`,
      { max_messages: maxBatchMessages },
    );
  }
}

/** Both offsets get their own code, before the schema (whose `not` refuses them too) answers INVALID_REQUEST. */
function oneOffset(value: unknown): void {
  const offsets = typeof value === 'object' && value !== null ? value : {};
  if ('after_message_id' in offsets && 'since_time' in offsets) {
    throw new InvalidRequest('CONFLICTING_OFFSETS', 'Send after_message_id or since_time, not both');
  }
}

export function eventStreamEndpoints(): Pick<
  PlatformEndpoints,
  'publish_message' | 'publish_messages_batch' | 'consume_messages'
> {
  const consumer = new Consumer();
  return {
    publish_message: endpoint('publish_message', {
      scope: 'event_streams:publish',
      ...onTopic,
      body: { kind: 'json', what: 'message', limit: ({ domain }) => domain.limits.maxMessageBytes },
      handle: publish,
    }),
    publish_messages_batch: endpoint('publish_messages_batch', {
      scope: 'event_streams:publish',
      ...onTopic,
      body: {
        kind: 'json',
        what: 'batch',
        limit: ({ domain: { limits } }) => limits.maxBatchMessages * limits.maxMessageBytes + BATCH_OVERHEAD_BYTES,
        beforeSchema: batchWithinLimit,
      },
      handle: ({ tenant, body, bodyText }, entry) =>
        storeBatch(tenant.domain, entry, body.payloads, mayHoldOutOfRangeNumber(bodyText)),
    }),
    consume_messages: endpoint('consume_messages', {
      scope: 'event_streams:consume',
      ...onTopic,
      body: { kind: 'json', beforeSchema: oneOffset },
      handle: (request, entry) => consumer.consume(request, entry),
    }),
  };
}

/** Consume, with the time formatter of its answers (one per server). */
class Consumer {
  private readonly times = new IsoTimeFormatter();

  consume(request: EndpointRequest<ConsumeOperation, ConsumeOffsets>, entry: TopicEntry): Awaitable<Answer> {
    const { domain } = request.tenant;
    const offsets = request.body;
    const read = reader(domain, entry.topic.id, offsets);
    const timeoutSecs = offsets.timeout_secs ?? 0;
    // A consumer that may wait hears of the appends (of other emulators too) from before its read.
    return after(timeoutSecs > 0 ? domain.topics.watch(entry) : undefined, () => {
      const wakes = entry.wakes;
      return after(read(), (first) =>
        first.messages.length > 0 || timeoutSecs === 0
          ? this.batchReply(first)
          : this.waitForMessages(request, entry, read, timeoutSecs, wakes),
      );
    });
  }

  private waitForMessages(
    request: EndpointRequest<ConsumeOperation, ConsumeOffsets>,
    entry: TopicEntry,
    read: () => Awaitable<ReadResult>,
    timeoutSecs: number,
    /** The topic's wake-ups before the read that found nothing. */
    wakesBefore: number,
  ): Promise<Answer> {
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
          if (!request.tenant.domain.topics.get(entry.topic.id))
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
        resolve(NO_REPLY);
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

/** With the memory store, answered at once: no promise, no closure. */
function publish(
  request: EndpointRequest<PublishOperation, JsonBodyOf<PublishOperation>>,
  entry: TopicEntry,
): Awaitable<Reply> {
  const { tenant, body, bodyText, bodyBytes } = request;
  const { topics, messages } = tenant.domain;
  checkTopicSchema(entry, body);
  if (mayHoldOutOfRangeNumber(bodyText)) checkNumbersInRange(body);
  const messageId = messages.append(entry.topic.id, bodyText, bodyBytes);
  // Not through after(): its closure would cost every publish.
  return typeof messageId === 'string'
    ? published(topics, entry, messageId)
    : messageId.then((id) => published(topics, entry, id));
}

function published(topics: Topics, entry: TopicEntry, messageId: string): Reply {
  topics.wake(entry);
  return { status: 201, json: `{"message_id":"${messageId}"}` };
}

/**
 * Everything is checked before anything is stored: a refused batch stores nothing. `mayOverflow`: the
 * batch's text could hold a number past a double's range, so each message is looked through for one.
 */
function storeBatch(
  domain: DomainState,
  entry: TopicEntry,
  payloads: object[],
  mayOverflow: boolean,
): Awaitable<Reply> {
  const { limits, faults, messages, topics } = domain;
  const { maxMessageBytes } = limits;
  const texts = payloads.map((payload, position) => {
    const text = stringify(payload, position);
    const size = Buffer.byteLength(text);
    if (size > maxMessageBytes) {
      throw new PayloadTooLarge(maxMessageBytes, size, `Message ${position} is larger than ${maxMessageBytes} bytes`);
    }
    checkTopicSchema(entry, payload, position);
    if (mayOverflow) checkNumbersInRange(payload, position);
    return text;
  });
  const fault = faults.takeBatchFault();
  const failed = (position: number) => fault?.positions.has(position) ?? false;
  const stored = appendAll(
    messages,
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
function reader(domain: DomainState, topicId: number, offsets: ConsumeOffsets): () => Awaitable<ReadResult> {
  const { messages, limits, clock } = domain;
  const limit = Math.min(offsets.batch_size ?? limits.defaultBatchSize, limits.maxBatchSize);
  const afterId = offsets.after_message_id;
  if (afterId !== undefined) {
    return () =>
      after(messages.readAfter(topicId, afterId, limit), (result) => {
        if (!result)
          throw new InvalidRequest('UNKNOWN_MESSAGE_ID', `Message ${afterId} was not found in topic ${topicId}`);
        return result;
      });
  }
  if (offsets.since_time !== undefined) {
    // A time in the future means now.
    const since = Math.min(instantOf(offsets.since_time), clock());
    return () => messages.readSince(topicId, since, limit);
  }
  return () => messages.readOldest(topicId, limit);
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
  throw new InvalidRequest('SCHEMA_MISMATCH', where(position) + mismatch.message, detailsOf(mismatch.field, position));
}

/**
 * A number JSON.parse read as ±Infinity (`1e400`) cannot be stored as it was sent (it would be written
 * back as null): 400 NUMBER_OUT_OF_RANGE naming the field, before anything is stored.
 */
function checkNumbersInRange(message: unknown, position?: number): void {
  const field = outOfRangeNumberPath(message);
  if (field === undefined) return;
  throw new InvalidRequest(
    'NUMBER_OUT_OF_RANGE',
    `${where(position)}${field} is a number past the range of a double; send it as a string`,
    detailsOf(field, position),
  );
}

const where = (position: number | undefined) => (position === undefined ? '' : `Message ${position}: `);

const detailsOf = (field: string, position: number | undefined) =>
  position === undefined ? { field } : { field, position };
