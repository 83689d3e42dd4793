// The default message store: each topic's messages in off-heap slabs, indexed by columns of numbers.

import { IdFormatter, sequenceOf } from '../message-ids.js';
import type { MessageStore, ReadResult, StoredMessage } from '../message-store.js';

/**
 * Payload bytes live in slabs: a topic's first is this size, each next one twice the last, up to
 * MAX_SLAB_BYTES (a larger message gets a slab of its own). A quiet topic holds little memory, and a
 * busy one seldom allocates: V8 counts the slabs as external memory, and each allocation can start a
 * full garbage collection (with 4 MiB slabs, one every 0.8 s of publishing, 2 to 3% of a publish).
 * Pages are only resident once written. The first is small: 1,000 workspaces with a topic each held
 * 4 GB of first slabs of 4 MiB, which V8 collected garbage for; a busy topic reaches 4 MiB after six.
 */
const FIRST_SLAB_BYTES = 64 * 1024;
const MAX_SLAB_BYTES = 64 * 1024 * 1024;
/** A message's location is slab number * SLAB_STRIDE + byte offset, exact in a double. */
const SLAB_STRIDE = 2 ** 31;
/** Entries per chunk of a NumberColumn: 64 KiB of doubles. */
const CHUNK_BITS = 13;
const CHUNK_SIZE = 1 << CHUNK_BITS;
const FIRST_CHUNK_ENTRIES = 16;

/**
 * A growable column of numbers, indexed from 0 for the life of a topic, in fixed-size Float64Array
 * chunks. Growing never copies: growing a JS array of millions of numbers copies it whole, and stalled
 * publishing for hundreds of milliseconds. Chunks wholly before a given index can be dropped.
 */
class NumberColumn {
  length = 0;
  private chunks: (Float64Array | undefined)[] = [];

  push(value: number): void {
    const chunkNumber = this.length >>> CHUNK_BITS;
    const at = this.length & (CHUNK_SIZE - 1);
    let chunk = this.chunks[chunkNumber];
    if (!chunk || at === chunk.length) {
      chunk = this.grown(chunk);
      this.chunks[chunkNumber] = chunk;
    }
    chunk[at] = value;
    this.length++;
  }

  /**
   * A column's first chunk starts with FIRST_CHUNK_ENTRIES and doubles, copied, up to CHUNK_SIZE (a
   * few hundred bytes copied in all); a later one is whole at once. A topic holds three columns: a
   * whole chunk each gave every topic 192 KiB at its first message.
   */
  private grown(chunk: Float64Array | undefined): Float64Array {
    if (!chunk) return new Float64Array(this.length === 0 ? FIRST_CHUNK_ENTRIES : CHUNK_SIZE);
    const larger = new Float64Array(Math.min(CHUNK_SIZE, chunk.length * 2));
    larger.set(chunk);
    return larger;
  }

  /** `index` must be below length and not dropped. */
  get(index: number): number {
    const value = this.chunks[index >>> CHUNK_BITS]?.[index & (CHUNK_SIZE - 1)];
    if (value === undefined) throw new RangeError(`No entry ${index} in the column`);
    return value;
  }

  /** Frees the chunks that hold only entries before `index`. */
  dropBefore(index: number): void {
    for (let chunk = (index >>> CHUNK_BITS) - 1; chunk >= 0 && this.chunks[chunk]; chunk--)
      this.chunks[chunk] = undefined;
  }
}

/**
 * One topic's messages. The JSON bytes are packed into large off-heap slabs and indexed by three
 * columns (start, end, time): about the size of the JSON plus 24 bytes per message, and nothing per
 * message for the garbage collector to trace. Index i holds sequence firstSequence + i; `head` is the
 * first retained index.
 */
class TopicLog {
  starts = new NumberColumn();
  ends = new NumberColumn();
  times = new NumberColumn();
  head = 0;
  firstSequence = 1;
  nextSequence = 1;
  lastTime = 0;
  /** Formats the ids of new messages (reads use their own: they are at other sequences). */
  readonly newIds = new IdFormatter();
  /** slabs[i] is slab number firstSlab + i; slabs whose messages are all gone are dropped from the front. */
  private slabs: Buffer[] = [];
  private firstSlab = 0;
  /** Bytes written to the current slab. */
  private used = 0;
  private nextSlabBytes = FIRST_SLAB_BYTES;

  constructor(public retentionMs: number) {}

  get length(): number {
    return this.times.length;
  }

  /** Copying `utf8`, the bytes received, is cheaper than encoding `payload` again (BENCHMARKS.md). */
  push(payload: string, utf8: Uint8Array | undefined, time: number): void {
    const slab = this.slabWithRoomFor(payload, utf8) ?? this.addSlab(utf8?.length ?? Buffer.byteLength(payload));
    const slabNumber = this.firstSlab + this.slabs.length - 1;
    let size: number;
    if (utf8) {
      slab.set(utf8, this.used);
      size = utf8.length;
    } else {
      size = slab.write(payload, this.used, 'utf8');
    }
    const start = slabNumber * SLAB_STRIDE + this.used;
    this.starts.push(start);
    this.ends.push(start + size);
    this.times.push(time);
    this.used += size;
  }

  payload(index: number): string {
    const start = this.starts.get(index);
    const slab = this.slabs[Math.floor(start / SLAB_STRIDE) - this.firstSlab];
    if (!slab) throw new RangeError(`Message ${index} is not retained`);
    const offset = start % SLAB_STRIDE;
    return slab.toString('utf8', offset, offset + this.ends.get(index) - start);
  }

  /** Index of the first message at or after `time` (binary search; times never decrease). */
  indexAtOrAfter(time: number): number {
    let low = this.head;
    let high = this.times.length;
    while (low < high) {
      const mid = (low + high) >>> 1;
      if (this.times.get(mid) < time) low = mid + 1;
      else high = mid;
    }
    return low;
  }

  expire(now: number): void {
    // A message is retained while it is younger than the retention period.
    const head = this.indexAtOrAfter(now - this.retentionMs + 1);
    if (head === this.head) return;
    this.head = head;
    this.releaseSlabsBefore(
      head < this.length ? Math.floor(this.starts.get(head) / SLAB_STRIDE) : this.firstSlab + this.slabs.length - 1,
    );
    for (const column of [this.starts, this.ends, this.times]) column.dropBefore(head);
  }

  clear(): void {
    this.starts = new NumberColumn();
    this.ends = new NumberColumn();
    this.times = new NumberColumn();
    this.head = 0;
    this.firstSequence = this.nextSequence;
    this.firstSlab += this.slabs.length;
    this.slabs = [];
  }

  slice(start: number, limit: number): ReadResult {
    const end = Math.min(start + limit, this.length);
    const messages: StoredMessage[] = [];
    const ids = new IdFormatter();
    for (let i = start; i < end; i++) {
      messages.push({ id: ids.format(this.firstSequence + i), payload: this.payload(i), time: this.times.get(i) });
    }
    return { messages, hasMore: end < this.length };
  }

  /**
   * The current slab when it has room for the payload's UTF-8 bytes. Without `utf8`, they are only
   * counted near the slab's end (a UTF-16 code unit takes at most 3): push then learns the size from
   * writing them (counting first costs about as much as writing).
   */
  private slabWithRoomFor(payload: string, utf8: Uint8Array | undefined): Buffer | undefined {
    const slab = this.slabs.at(-1);
    if (!slab) return undefined;
    const room = slab.length - this.used;
    const fits = utf8 ? utf8.length <= room : payload.length * 3 <= room || Buffer.byteLength(payload) <= room;
    return fits ? slab : undefined;
  }

  private addSlab(atLeastBytes: number): Buffer {
    const slab = Buffer.allocUnsafeSlow(Math.max(this.nextSlabBytes, atLeastBytes));
    this.slabs.push(slab);
    this.nextSlabBytes = Math.min(this.nextSlabBytes * 2, MAX_SLAB_BYTES);
    this.used = 0;
    return slab;
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

  append(topicId: number, payload: string, utf8?: Uint8Array): string {
    const log = this.log(topicId);
    // Times never go backwards within a topic, so since_time reads stay in publish order.
    const time = Math.max(this.clock(), log.lastTime);
    log.lastTime = time;
    log.push(payload, utf8, time);
    return log.newIds.format(log.nextSequence++);
  }

  readOldest(topicId: number, limit: number): ReadResult {
    const log = this.retained(topicId);
    return log.slice(log.head, limit);
  }

  readAfter(topicId: number, messageId: string, limit: number): ReadResult | undefined {
    const log = this.retained(topicId);
    const index = sequenceOf(messageId) - log.firstSequence;
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
