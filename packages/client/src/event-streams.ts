import createClient from 'openapi-fetch';
import { providerOf } from './auth.js';
import { type ConsumeOptions, consume, type MessageStream } from './consume.js';
import {
  CONSUME_PATH,
  type EventStreamsDataCenter,
  type EventStreamsRawClient,
  eventStreamsError,
  type Payload,
  PUBLISH_PATH,
} from './event-streams-api.js';
import type { paths } from './generated/event-streams.js';
import { eventStreamsServers } from './generated/servers.js';
import { resilience } from './middleware.js';
import { baseUrlOf, type ClientOptions } from './options.js';
import { type PublishBatchOptions, publishBatch } from './publish-batch.js';
import { retryPolicy } from './retry.js';

export type EventStreamsClientOptions = ClientOptions<EventStreamsDataCenter>;

export interface EventStreamsHelpers {
  /** Publishes one message and returns its message_id. Not retried after a 5xx (it could be stored twice). */
  publish(topicId: number, payload: Payload, options?: { signal?: AbortSignal }): Promise<string>;
  /** Reads the topic as an async iterator from an offset; see ConsumeOptions. */
  consume(topicId: number, options?: ConsumeOptions): MessageStream;
  /** Publishes any number of messages in batches, resending exactly the positions that were not stored. */
  publishBatch(topicId: number, payloads: readonly Payload[], options?: PublishBatchOptions): Promise<string[]>;
}

export type EventStreamsClient = EventStreamsRawClient & EventStreamsHelpers;

/**
 * The event-streams client: openapi-fetch's typed `POST(path, init)` for the three operations,
 * plus the `publish`, `consume` and `publishBatch` helpers. Every request carries the bearer
 * token, is replayed once with a renewed token after a 401 and waits out 429s; consume (a read)
 * is also retried after 5xx answers such as 500 TIMEOUT and network errors, publish never is.
 */
export function createEventStreamsClient(options: EventStreamsClientOptions): EventStreamsClient {
  const retry = retryPolicy(options.retry);
  // Typed as EventStreamsRawClient: the same POST function with a stricter signature.
  const client = createClient<paths>({
    baseUrl: baseUrlOf(options, eventStreamsServers),
    headers: { 'Content-Type': 'application/json; charset=utf-8' },
    ...(options.fetch && { fetch: options.fetch }),
  }) as unknown as EventStreamsRawClient;
  client.use(resilience({ auth: providerOf(options.auth), retry, isRetrySafe: (_, path) => path === CONSUME_PATH }));

  const helpers: EventStreamsHelpers = {
    async publish(topicId, payload, { signal } = {}) {
      const { data, error, response } = await client.POST(PUBLISH_PATH, {
        params: { path: { topic_id: topicId } },
        body: payload,
        ...(signal && { signal }),
      });
      if (!data) throw eventStreamsError(PUBLISH_PATH, response, error, retry.now);
      return data.message_id;
    },
    consume: (topicId, consumeOptions) => consume(client, retry, topicId, consumeOptions),
    publishBatch: (topicId, payloads, batchOptions) => publishBatch(client, retry, topicId, payloads, batchOptions),
  };
  return Object.assign(client, helpers);
}
