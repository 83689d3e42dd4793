// What the emulator needs of a message store: a small interface that the in-memory engine implements
// (store/memory.ts), and that an engine backed by SQLite or Redis can implement too.

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
  addTopic(topicId: number, retentionMs: number): void;
  setRetention(topicId: number, retentionMs: number): void;
  removeTopic(topicId: number): void;
  /**
   * Stores one message stamped with the clock's time; returns its id. `utf8` is the payload's UTF-8
   * encoding when the caller has it (a publish body as received), for a store that keeps bytes.
   */
  append(topicId: number, payload: string, utf8?: Uint8Array): string;
  /** From the oldest retained message. */
  readOldest(topicId: number, limit: number): ReadResult;
  /** After `messageId` (exclusive); undefined when that id is not retained (unknown, purged or expired). */
  readAfter(topicId: number, messageId: string, limit: number): ReadResult | undefined;
  /** From the first message stored at or after `timeMs` (inclusive). */
  readSince(topicId: number, timeMs: number, limit: number): ReadResult;
  /** Removes every message of the topic; their ids stay unknown afterwards. */
  purge(topicId: number): void;
}
