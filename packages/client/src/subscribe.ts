import { type Checkpoint, type CheckpointStore, memoryCheckpointStore } from './checkpoint.js';
import { type ConsumeOptions, consume, type MessageStream } from './consume.js';
import type { Helpers, Payload, TypedMessage } from './event-streams-api.js';

export interface SubscribeOptions extends Omit<ConsumeOptions, 'afterMessageId' | 'checkpoint' | 'onIdle'> {
  /** Where the checkpoint is loaded from at start and saved to. Default: a new memoryCheckpointStore(). */
  store?: CheckpointStore | undefined;
  /** The checkpoint's key in the store. Default `topic-<topicId>`. */
  key?: string | undefined;
  /**
   * Saves the checkpoint after this many processed messages or this many ms since the last save,
   * whichever comes first; also whenever the topic is read to its end and when the subscription
   * ends. Default `{ messages: 100, ms: 5000 }`; `{ messages: 1 }` saves after every message.
   */
  saveEvery?: { messages?: number | undefined; ms?: number | undefined } | undefined;
}

/** Processes one message; the checkpoint moves past it once the returned promise resolves. */
export type MessageHandler<T = Payload> = (
  message: TypedMessage<T>,
  context: { signal: AbortSignal },
) => void | Promise<void>;

export interface Subscription {
  /**
   * Settles when the subscription ends, after the checkpoint was saved: resolves after stop(), an
   * abort or (with `stopAtEnd`) the end of the topic; rejects with the handler's error (the
   * checkpoint stays before the failed message, which is delivered again on the next start).
   */
  readonly done: Promise<void>;
  /** Graceful stop: lets the current handler finish, saves the checkpoint, then resolves like `done`. */
  stop(): Promise<void>;
  /** The last processed message. */
  readonly checkpoint: Checkpoint | undefined;
}

/**
 * Calls `handler` for each message of the topic in order, one at a time, from the stored checkpoint
 * (or `sinceTime`, or the oldest message), and saves the checkpoint as configured: at-least-once
 * delivery, a message is processed again after a failure or a crash before its checkpoint was saved.
 */
export function subscribe<T = Payload>(
  helpers: Helpers,
  topicId: number,
  handler: MessageHandler<T>,
  options: SubscribeOptions = {},
): Subscription {
  const { store = memoryCheckpointStore(), key = `topic-${topicId}`, saveEvery = {}, ...consumeOptions } = options;
  const { messages: everyMessages = 100, ms: everyMs = 5000 } = saveEvery;
  const now = helpers.retry.now;
  const stopper = new AbortController();
  const signal = options.signal ? AbortSignal.any([options.signal, stopper.signal]) : stopper.signal;
  let stream: MessageStream<T> | undefined;
  let savedId: string | undefined;
  let unsaved = 0;
  let lastSave = now();

  async function save(): Promise<void> {
    const checkpoint = stream?.checkpoint;
    if (!checkpoint || checkpoint.messageId === savedId) return;
    await store.save(key, checkpoint);
    savedId = checkpoint.messageId;
    unsaved = 0;
    lastSave = now();
    helpers.logger?.({ type: 'checkpoint', topicId, messageId: savedId });
  }

  async function run(): Promise<void> {
    const checkpoint = await store.load(key);
    savedId = checkpoint?.messageId;
    stream = consume<T>(helpers, topicId, {
      ...consumeOptions,
      ...(checkpoint && { checkpoint }),
      signal,
      onIdle: save,
    });
    try {
      for await (const message of stream) {
        await handler(message, { signal });
        stream.commit();
        unsaved += 1;
        if (unsaved >= everyMessages || now() - lastSave >= everyMs) await save();
      }
    } catch (error) {
      // Keep what was processed before the failure; the failure itself is what the caller needs to see.
      await save().catch(() => undefined);
      throw error;
    }
    await save();
  }

  const done = run();
  return {
    done,
    stop() {
      stopper.abort();
      return done;
    },
    get checkpoint() {
      return stream?.checkpoint;
    },
  };
}
