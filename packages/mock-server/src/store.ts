// Message storage behind a small interface; the in-memory store is the default.

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
  /** Stores one message stamped with the clock's time; returns its id. */
  append(topicId: number, payload: string): string;
  /** From the oldest retained message. */
  readOldest(topicId: number, limit: number): ReadResult;
  /** After `messageId` (exclusive); undefined when that id is not retained (unknown, purged or expired). */
  readAfter(topicId: number, messageId: string, limit: number): ReadResult | undefined;
  /** From the first message stored at or after `timeMs` (inclusive). */
  readSince(topicId: number, timeMs: number, limit: number): ReadResult;
  /** Removes every message of the topic; their ids stay unknown afterwards. */
  purge(topicId: number): void;
}

// Fixed width, so ids of one topic sort in publish order as plain strings: 36^11 > 2^53.
const ID_WIDTH = 11;
const ID_PATTERN = /^[0-9a-z]{11}$/;
const toId = (sequence: number) => sequence.toString(36).padStart(ID_WIDTH, '0');
const fromId = (id: string) => (ID_PATTERN.test(id) ? parseInt(id, 36) : -1);

/** Compaction threshold: expired messages are dropped from the arrays once this many pile up. */
const COMPACT_AFTER = 4096;

/**
 * One topic's messages in two parallel arrays (JSON text and time): about the size of the JSON plus
 * a few bytes per message. `head` is the first retained index; `firstSequence` the sequence at index 0.
 */
class TopicLog {
  payloads: string[] = [];
  times: number[] = [];
  head = 0;
  firstSequence = 1;
  nextSequence = 1;
  lastTime = 0;

  constructor(public retentionMs: number) {}

  /** Index of the first message at or after `time` (binary search; times never decrease). */
  indexAtOrAfter(time: number): number {
    let low = this.head;
    let high = this.times.length;
    while (low < high) {
      const mid = (low + high) >>> 1;
      if (this.times[mid]! < time) low = mid + 1;
      else high = mid;
    }
    return low;
  }

  expire(now: number): void {
    // A message is retained while it is younger than the retention period.
    this.head = this.indexAtOrAfter(now - this.retentionMs + 1);
    if (this.head >= COMPACT_AFTER && this.head * 2 >= this.payloads.length) {
      this.payloads = this.payloads.slice(this.head);
      this.times = this.times.slice(this.head);
      this.firstSequence += this.head;
      this.head = 0;
    }
  }

  slice(start: number, limit: number): ReadResult {
    const end = Math.min(start + limit, this.payloads.length);
    const messages: StoredMessage[] = [];
    for (let i = start; i < end; i++) {
      messages.push({ id: toId(this.firstSequence + i), payload: this.payloads[i]!, time: this.times[i]! });
    }
    return { messages, hasMore: end < this.payloads.length };
  }
}

export class MemoryStore implements MessageStore {
  private readonly topics = new Map<number, TopicLog>();

  constructor(private readonly clock: () => number = Date.now) {}

  addTopic(topicId: number, retentionMs: number): void {
    this.topics.set(topicId, new TopicLog(retentionMs));
  }

  setRetention(topicId: number, retentionMs: number): void {
    this.log(topicId).retentionMs = retentionMs;
  }

  removeTopic(topicId: number): void {
    this.topics.delete(topicId);
  }

  append(topicId: number, payload: string): string {
    const log = this.log(topicId);
    // Times never go backwards within a topic, so since_time reads stay in publish order.
    const time = Math.max(this.clock(), log.lastTime);
    log.lastTime = time;
    log.payloads.push(payload);
    log.times.push(time);
    return toId(log.nextSequence++);
  }

  readOldest(topicId: number, limit: number): ReadResult {
    const log = this.retained(topicId);
    return log.slice(log.head, limit);
  }

  readAfter(topicId: number, messageId: string, limit: number): ReadResult | undefined {
    const log = this.retained(topicId);
    const index = fromId(messageId) - log.firstSequence;
    if (index < log.head || index >= log.payloads.length) return undefined;
    return log.slice(index + 1, limit);
  }

  readSince(topicId: number, timeMs: number, limit: number): ReadResult {
    const log = this.retained(topicId);
    return log.slice(log.indexAtOrAfter(timeMs), limit);
  }

  purge(topicId: number): void {
    const log = this.log(topicId);
    log.payloads = [];
    log.times = [];
    log.head = 0;
    log.firstSequence = log.nextSequence;
  }

  private log(topicId: number): TopicLog {
    const log = this.topics.get(topicId);
    if (!log) throw new Error(`Topic ${topicId} is not in the store`);
    return log;
  }

  private retained(topicId: number): TopicLog {
    const log = this.log(topicId);
    log.expire(this.clock());
    return log;
  }
}
