// What the emulator needs of a message store: a small interface that the in-memory engine implements
// (store/memory/messages.ts), and that an engine backed by SQLite or Redis can implement too. Every method may
// answer at once or with a promise (Awaitable): the memory engine answers at once, a networked engine
// later.
import type { Awaitable } from '../awaitable.js';

export interface StoredMessage {
  /** Opaque, increasing in publish order within a topic. */
  id: string;
  /** The message as JSON text (an object), returned unchanged by consume. */
  payload: string;
  /** Milliseconds since the epoch, from the store's clock. */
  time: number;
}

export interface ReadResult {
  messages: StoredMessage[];
  /** True exactly when more retained messages follow the last one returned. */
  hasMore: boolean;
}

export interface MessageStore {
  addTopic(topicId: number, retentionMs: number): Awaitable<void>;
  setRetention(topicId: number, retentionMs: number): Awaitable<void>;
  removeTopic(topicId: number): Awaitable<void>;
  /**
   * Stores one message stamped with the clock's time; returns its id. `utf8` is the payload's UTF-8
   * encoding when the caller has it (a publish body as received), for a store that keeps bytes.
   */
  append(topicId: number, payload: string, utf8?: Uint8Array): Awaitable<string>;
  /**
   * Optional: stores the payloads in order as one write, under consecutive ids; resolves to their ids.
   * For an engine a round trip away (Redis), where appending one by one would cost one trip each.
   */
  appendBatch?(topicId: number, payloads: string[]): Awaitable<string[]>;
  /** From the oldest retained message. */
  readOldest(topicId: number, limit: number): Awaitable<ReadResult>;
  /** After `messageId` (exclusive); undefined when that id is not retained (unknown, purged or expired). */
  readAfter(topicId: number, messageId: string, limit: number): Awaitable<ReadResult | undefined>;
  /** From the first message stored at or after `timeMs` (inclusive). */
  readSince(topicId: number, timeMs: number, limit: number): Awaitable<ReadResult>;
  /** Removes every message of the topic; their ids stay unknown afterwards. */
  purge(topicId: number): Awaitable<void>;
}

/**
 * Appends the payloads in order (together when the store can, else each after the last has been
 * stored); resolves to their ids, in order.
 */
export function appendAll(store: MessageStore, topicId: number, payloads: Iterable<string>): Awaitable<string[]> {
  if (store.appendBatch) return store.appendBatch(topicId, [...payloads]);
  const ids: string[] = [];
  const rest = payloads[Symbol.iterator]();
  const appendRest = (): Awaitable<string[]> => {
    for (let next = rest.next(); !next.done; next = rest.next()) {
      const id = store.append(topicId, next.value);
      if (typeof id !== 'string') {
        return id.then((stored) => {
          ids.push(stored);
          return appendRest();
        });
      }
      ids.push(id);
    }
    return ids;
  };
  return appendRest();
}
