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

/** Compaction threshold: expired messages are dropped from the index arrays once this many pile up. */
const COMPACT_AFTER = 4096;
/** Payload bytes live in slabs of this size (a larger message gets a slab of its own). */
const SLAB_BYTES = 4 * 1024 * 1024;
/** A message's location is slab number * SLAB_STRIDE + byte offset, exact in a double. */
const SLAB_STRIDE = 2 ** 31;

/**
 * One topic's messages. The JSON bytes are packed into large off-heap slabs and indexed by three
 * parallel number arrays (start, end, time): about the size of the JSON plus 24 bytes per message,
 * and nothing per message for the garbage collector to trace. `head` is the first retained index;
 * `firstSequence` the sequence of index 0.
 */
class TopicLog {
  starts: number[] = [];
  ends: number[] = [];
  times: number[] = [];
  head = 0;
  firstSequence = 1;
  nextSequence = 1;
  lastTime = 0;
  /** slabs[i] is slab number firstSlab + i; undefined once all its messages are gone. */
  private slabs: (Buffer | undefined)[] = [];
  private firstSlab = 0;
  private used = SLAB_BYTES;

  constructor(public retentionMs: number) {}

  get length(): number {
    return this.times.length;
  }

  push(payload: string, time: number): void {
    const size = Buffer.byteLength(payload);
    if (this.used + size > SLAB_BYTES || this.slabs.length === 0) {
      this.slabs.push(Buffer.allocUnsafeSlow(Math.max(SLAB_BYTES, size)));
      this.used = 0;
    }
    const slabNumber = this.firstSlab + this.slabs.length - 1;
    this.slabs.at(-1)!.write(payload, this.used, size, 'utf8');
    const start = slabNumber * SLAB_STRIDE + this.used;
    this.starts.push(start);
    this.ends.push(start + size);
    this.times.push(time);
    this.used += size;
  }

  payload(index: number): string {
    const start = this.starts[index]!;
    const slab = this.slabs[Math.floor(start / SLAB_STRIDE) - this.firstSlab]!;
    const offset = start % SLAB_STRIDE;
    return slab.toString('utf8', offset, offset + this.ends[index]! - start);
  }

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
    const head = this.indexAtOrAfter(now - this.retentionMs + 1);
    if (head === this.head) return;
    this.head = head;
    this.releaseSlabsBefore(head < this.length ? Math.floor(this.starts[head]! / SLAB_STRIDE) : this.firstSlab + this.slabs.length - 1);
    if (head >= COMPACT_AFTER && head * 2 >= this.length) {
      this.starts = this.starts.slice(head);
      this.ends = this.ends.slice(head);
      this.times = this.times.slice(head);
      this.firstSequence += head;
      this.head = 0;
    }
  }

  clear(): void {
    this.starts = [];
    this.ends = [];
    this.times = [];
    this.head = 0;
    this.firstSequence = this.nextSequence;
    this.firstSlab += this.slabs.length;
    this.slabs = [];
    this.used = SLAB_BYTES;
  }

  slice(start: number, limit: number): ReadResult {
    const end = Math.min(start + limit, this.length);
    const messages: StoredMessage[] = [];
    for (let i = start; i < end; i++) {
      messages.push({ id: toId(this.firstSequence + i), payload: this.payload(i), time: this.times[i]! });
    }
    return { messages, hasMore: end < this.length };
  }

  /** Frees the slabs that hold only expired messages (the current slab stays for new ones). */
  private releaseSlabsBefore(slabNumber: number): void {
    const drop = slabNumber - this.firstSlab;
    if (drop <= 0) return;
    this.slabs = this.slabs.slice(drop);
    this.firstSlab = slabNumber;
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
    log.push(payload, time);
    return toId(log.nextSequence++);
  }

  readOldest(topicId: number, limit: number): ReadResult {
    const log = this.retained(topicId);
    return log.slice(log.head, limit);
  }

  readAfter(topicId: number, messageId: string, limit: number): ReadResult | undefined {
    const log = this.retained(topicId);
    const index = fromId(messageId) - log.firstSequence;
    if (index < log.head || index >= log.length) return undefined;
    return log.slice(index + 1, limit);
  }

  readSince(topicId: number, timeMs: number, limit: number): ReadResult {
    const log = this.retained(topicId);
    return log.slice(log.indexAtOrAfter(timeMs), limit);
  }

  purge(topicId: number): void {
    this.log(topicId).clear();
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
