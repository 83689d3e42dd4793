import type { ConsumeOptions, MessageStream } from './consume.js';
import type { Payload } from './event-streams-api.js';
import { type RequestOptions, type WithResponse, withResponse } from './options.js';
import type { PublishBatchOptions } from './publish-batch.js';
import type { MessageHandler, SubscribeOptions, Subscription } from './subscribe.js';

export interface TopicOptions {
  /**
   * Checks each payload before it is published and returns its problems (none: it matches), e.g.
   * the `validate<Name>` function `platform-api typegen` writes. A payload with problems is not sent:
   * publish and publishBatch throw a TypeError that lists them.
   */
  validate?: ((payload: unknown) => readonly string[]) | undefined;
}

/**
 * Publishing and reading the messages of a topic given by its id: the event-streams client's helpers
 * (EventStreamsHelpers) that a TopicHandle is made over.
 */
export interface EventStreamsMessaging {
  /**
   * Publishes one message and returns its message_id. Throws PayloadTooLargeError without sending
   * when its JSON is over the limit. Not retried after a 5xx, a network error or a timeout (it could
   * be stored twice). `.withResponse()` also gives the raw answer.
   */
  publish(topicId: number, payload: Payload, options?: RequestOptions): WithResponse<string>;
  /** Reads the topic as an async iterator from an offset, at least once; see ConsumeOptions and MessageStream. */
  consume<T extends object = Payload>(topicId: number, options?: ConsumeOptions): MessageStream<T>;
  /**
   * Calls `handler` for each message in order and checkpoints after it resolves, in a CheckpointStore;
   * see SubscribeOptions.
   */
  subscribe<T extends object = Payload>(
    topicId: number,
    handler: MessageHandler<T>,
    options?: SubscribeOptions,
  ): Subscription;
  /**
   * Publishes any number of messages in batches within the limits, resending exactly the positions
   * that were not stored. `.withResponse()` gives the raw answers (`responses`, one per request).
   */
  publishBatch(
    topicId: number,
    payloads: readonly Payload[],
    options?: PublishBatchOptions,
  ): WithResponse<string[], { responses: Response[] }>;
}

/** The helpers of one topic, with its payload type `T`. */
export interface TopicHandle<T extends object> {
  readonly topicId: number;
  publish(payload: T, options?: RequestOptions): WithResponse<string>;
  publishBatch(
    payloads: readonly T[],
    options?: PublishBatchOptions,
  ): WithResponse<string[], { responses: Response[] }>;
  consume(options?: ConsumeOptions): MessageStream<T>;
  subscribe(handler: MessageHandler<T>, options?: SubscribeOptions): Subscription;
}

export function topicHandle<T extends object>(
  events: EventStreamsMessaging,
  topicId: number,
  { validate }: TopicOptions = {},
): TopicHandle<T> {
  /** Throws a TypeError naming the problems of the first payload that does not match. */
  function check(payloads: readonly T[]): void {
    payloads.forEach((payload, position) => {
      const problems = validate?.(payload) ?? [];
      if (problems.length > 0) {
        const which = payloads.length === 1 ? 'The message' : `Message ${position}`;
        throw new TypeError(`${which} does not match the schema of topic ${topicId}: ${problems.join('; ')}`);
      }
    });
  }
  /** Runs `send` once the payloads passed the check; a failed check is a rejection, like any other failure. */
  function checked<R, Raw>(payloads: readonly T[], send: () => WithResponse<R, Raw>): WithResponse<R, Raw> {
    try {
      check(payloads);
    } catch (error) {
      return withResponse<R, Raw>(Promise.reject(error));
    }
    return send();
  }
  // A generated interface has no index signature, so it is not a Payload to TypeScript; it is one on the wire.
  const asPayload = (payload: T) => payload as unknown as Payload;
  return {
    topicId,
    publish: (payload, options) => checked([payload], () => events.publish(topicId, asPayload(payload), options)),
    publishBatch: (payloads, options) =>
      checked(payloads, () => events.publishBatch(topicId, payloads.map(asPayload), options)),
    consume: (options) => events.consume<T>(topicId, options),
    subscribe: (handler, options) => events.subscribe<T>(topicId, handler, options),
  };
}
