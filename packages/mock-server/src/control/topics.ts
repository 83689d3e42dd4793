// The event-streams topics over the emulator API: GET /_emulator/topics, the messages of a topic
// (listed, published, and followed live as Server-Sent Events). They read and write the domain's
// topics and message store directly: no token, and nothing in the request journal, which keeps the
// platform's requests only.
import type { DomainState } from '../domain/state.js';
import type { TopicEntry } from '../domain/topics.js';
import { InvalidRequest } from '../errors.js';
import { jsonReply } from '../http/replies.js';
import { type EmulatorEndpoints, endpoint, NO_BODY, NO_REPLY, type RequestHead } from '../pipeline/endpoint.js';
import { IsoTimeFormatter } from '../spec/date-time.js';
import { outOfRangeNumberPath } from '../spec/json-numbers.js';
import type { StoredMessage } from '../store/message-store.js';
import { openEventStream } from './event-stream.js';

/** Messages read per store call while a stream catches up. */
const STREAM_PAGE = 500;

type Endpoints = Pick<EmulatorEndpoints, 'inspect_topics' | 'inspect_messages' | 'add_message' | 'stream_messages'>;

/** The topic the path names, looked up once caught up with a shared store: a 404 before anything else. */
const onTopic = {
  catchUp: 'always',
  precheck: ({ tenant, params }: RequestHead<{ parameters: { path: { topic_id: number } } }>) =>
    tenant.domain.topics.require(params.topic_id),
} as const;

export function topicEndpoints(): Endpoints {
  const times = new IsoTimeFormatter();
  /** Built as text, like consume's answer: payloads are stored as JSON text and go out unchanged. */
  const messageJson = (m: StoredMessage) =>
    `{"message_id":"${m.id}","time":"${times.format(m.time)}","payload":${m.payload}}`;
  return {
    inspect_topics: endpoint('inspect_topics', {
      catchUp: 'always',
      body: NO_BODY,
      handle({ tenant }) {
        const { topics } = tenant.domain;
        const listed = topics
          .list()
          .map((topic) => ({ ...topic, waiting_consumers: topics.waitingConsumers(topic.id) }));
        return jsonReply(200, { topics: listed.sort((a, b) => a.id - b.id) });
      },
    }),
    inspect_messages: endpoint('inspect_messages', {
      ...onTopic,
      body: NO_BODY,
      async handle({ tenant, params }, entry) {
        const { messages } = await tenant.domain.messages.readOldest(entry.topic.id, Number.MAX_SAFE_INTEGER);
        const last = messages.slice(-(params.limit ?? 100));
        return { status: 200, json: `{"messages":[${last.map(messageJson).join(',')}]}` };
      },
    }),
    add_message: endpoint('add_message', {
      ...onTopic,
      body: { kind: 'json' },
      async handle({ tenant, body }, entry) {
        const { limits, messages, topics } = tenant.domain;
        const text = JSON.stringify(body);
        const size = Buffer.byteLength(text);
        if (size > limits.maxMessageBytes) {
          throw new InvalidRequest('INVALID_REQUEST', `The message is larger than ${limits.maxMessageBytes} bytes`);
        }
        const mismatch = entry.validate(body);
        if (mismatch) {
          throw new InvalidRequest('SCHEMA_MISMATCH', `${mismatch.field}: ${mismatch.message}`, {
            errors: [{ pointer: pointerOf(mismatch.field), message: mismatch.message }],
          });
        }
        // As publish_message refuses it: stored from its parsed value, 1e400 would become null.
        const outOfRange = outOfRangeNumberPath(body);
        if (outOfRange !== undefined) {
          throw new InvalidRequest('NUMBER_OUT_OF_RANGE', `${outOfRange}: a number past the range of a double`, {
            errors: [{ pointer: pointerOf(outOfRange), message: 'is a number past the range of a double' }],
          });
        }
        const messageId = await messages.append(entry.topic.id, text);
        topics.wake(entry);
        return jsonReply(201, { message_id: messageId });
      },
    }),
    stream_messages: endpoint('stream_messages', {
      ...onTopic,
      body: NO_BODY,
      handle({ tenant, params, exchange: { req, res } }, entry) {
        const gone = openEventStream(req, res);
        // A browser's EventSource reconnects with the last id it had: it goes on from there.
        const lastEventId = req.headers['last-event-id'];
        const after = params.after ?? (typeof lastEventId === 'string' ? lastEventId : undefined);
        follow(tenant.domain, entry, after, gone, (m) =>
          res.write(`event: message\nid: ${m.id}\ndata: ${messageJson(m)}\n\n`),
        ).then(
          () => res.end(),
          (error: unknown) => res.destroy(error as Error),
        );
        return NO_REPLY;
      },
    }),
  };
}

/** `items[2].sku` as the JSON pointer `/items/2/sku`. */
function pointerOf(field: string): string {
  return `/${field
    .replace(/\[(\d+)\]/g, '.$1')
    .split('.')
    .join('/')}`;
}

/**
 * Sends the retained messages after `after` (from the oldest without it), then each new one as the
 * topic's consumers are woken for it, until the client goes or the topic is deleted.
 */
async function follow(
  domain: DomainState,
  entry: TopicEntry,
  after: string | undefined,
  gone: AbortSignal,
  send: (message: StoredMessage) => void,
): Promise<void> {
  const { topics, messages } = domain;
  const topicId = entry.topic.id;
  let last = after;
  while (!gone.aborted && topics.get(topicId) === entry) {
    // As a waiting consumer does: with a shared store, the others' appends wake it from here on.
    await topics.watch(entry);
    const wakes = entry.wakes;
    // A last message that retention dropped meanwhile: every retained one is newer.
    const read =
      (last === undefined ? undefined : await messages.readAfter(topicId, last, STREAM_PAGE)) ??
      (await messages.readOldest(topicId, STREAM_PAGE));
    for (const message of read.messages) {
      send(message);
      last = message.id;
    }
    if (!read.hasMore) await nextWake(entry, wakes, gone);
  }
}

/** Resolves on the topic's next wake-up (at once if one came since `wakesBefore`), or when the client goes. */
function nextWake(entry: TopicEntry, wakesBefore: number, gone: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    if (entry.wakes !== wakesBefore || gone.aborted) return resolve();
    const woken = () => {
      entry.waiters.delete(woken);
      gone.removeEventListener('abort', woken);
      resolve();
    };
    entry.waiters.add(woken);
    gone.addEventListener('abort', woken, { once: true });
  });
}
