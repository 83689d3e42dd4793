// The journal's storage: a ring of the last `size` answered requests, kept off the heap. Recording
// runs on every publish, so it is cheap: what the pipeline hands over (the raw header list, the body as
// read, the reply's JSON text, the API key's client ID) is written as UTF-8 bytes into large chunks,
// with a few numbers per request in one 64-byte record, nothing per request for the garbage collector
// to trace; a request is unpacked only when an entry is read (journal-entry.ts decodes it).
import type { ApiName } from '../spec/bundles.js';

/** What the pipeline knows of an answered request; nothing in it is copied or parsed. */
export interface AnsweredRequest {
  method: string;
  /** The request target as received: path and query. */
  url: string;
  operationId: string | undefined;
  api: ApiName | undefined;
  /** Names and values, as node's parser read them (`IncomingMessage.rawHeaders`). */
  rawHeaders: string[];
  /** The body as read (its text once decoded), when the request's handling read it. */
  body: string | Buffer | undefined;
  /** The client ID of the API key whose bearer token authenticated the request. */
  clientId: string | undefined;
  status: number;
  /** The answered body as JSON text ('' for none); undefined when another component wrote it (Prism). */
  replyJson: string | undefined;
  /** The reply's own headers (Retry-After, Allow, ...; a file's content type); a JSON reply's content type follows from its API. */
  replyHeaders?: Readonly<Record<string, string>>;
  /** When it arrived, on the emulator's clock (frozen or moved as the test set it), and how long it took. */
  receivedAt: number;
  durationMs: number;
}

/** At most this much of each body is kept (a longer one is cut, and kept as text). */
export const KEPT_BODY_BYTES = 64 * 1024;

/**
 * Separates the strings of a kept request. A request is kept as: its strings (method, target, the
 * operationId, API and client ID, the reply's header names and values, then the raw request headers as
 * node's parser read them) joined by NULs, as UTF-8, in one write; then its body and reply, told apart
 * by the body's length. Node's parser refuses a NUL in a request target or a header, and node's
 * replies one in a header, so none of the strings holds one; a body may, and is not split. (UTF-8 keeps
 * every string exactly: node reads a header byte as the character of that code, written back as it.)
 */
const SEPARATOR = '\u0000';
/**
 * Requests are written into chunks: the first of FIRST_CHUNK_BYTES, each next one twice the last, up to
 * CHUNK_BYTES (a longer request gets a chunk of its own). Each workspace's environment has a journal:
 * a 4 MiB first chunk each made 1,000 workspaces hold 4 GB that V8 counts as external memory, and
 * collect garbage for it (a fifth of the time of making them).
 */
const FIRST_CHUNK_BYTES = 64 * 1024;
const CHUNK_BYTES = 4 * 1024 * 1024;
/** Records the ring has room for at first; it doubles them, up to its size, as requests come. */
const FIRST_SLOTS = 64;
/**
 * The most the chunks may hold together: past it the oldest chunk goes, with its requests, however
 * few the journal holds (10,000 requests of 64 KiB bodies and answers would take 1.3 GB).
 */
export const JOURNAL_MAX_BYTES = 64 * 1024 * 1024;

interface Chunk {
  /** Numbered from 1 in the order made: a request's record names its chunk by number (0: none). */
  serial: number;
  bytes: Buffer;
  used: number;
  /** The last request written into it: once the journal holds none up to it, the chunk goes. */
  lastId: number;
}

/** The strings of an answered request, unpacked. */
interface Unpacked {
  method: string;
  url: string;
  operationId: string;
  api: string;
  clientId: string;
  rawHeaders: string[];
  /** Names and values. */
  replyHeaders: string[];
  body: string;
  reply: string | undefined;
}

/**
 * A request's numbers, in one 64-byte record (a cache line) of the slot it has in the ring: its two
 * times as doubles, then its other numbers as 32-bit integers. Recording a request then writes one
 * line, not one per column: the rest of a publish evicts the lines of the columns before the next
 * one, and those misses were close to half of what the journal cost a publish (BENCHMARKS.md).
 */
const RECORD_BYTES = 64;
const DOUBLES = RECORD_BYTES / 8;
const INTS = RECORD_BYTES / 4;
/** Doubles: when it arrived, on the emulator's clock; how long it took. */
const RECEIVED_AT = 0;
const DURATION = 1;
/** Integers, after the doubles. */
const CHUNK = 4;
const OFFSET = 5;
const BYTE_LENGTH = 6;
/** How many of the strings are the reply's header names and values. */
const REPLY_HEADER_ITEMS = 7;
const BODY_LENGTH = 8;
/** -1: no reply body was seen (Prism wrote it). */
const REPLY_LENGTH = 9;
const STATUS = 10;

/** A request as kept: its strings, its status and its two times. */
export interface KeptRequest extends Unpacked {
  status: number;
  /** When it arrived, on the emulator's clock; how long it took. */
  receivedAt: number;
  durationMs: number;
}

export class RequestRing {
  // A ring of the last `size` requests; the request with id n has slot (n - 1) % size.
  /** Oldest first; the last is written into. */
  private chunks: Chunk[] = [];
  private chunksMade = 0;
  /** The slots' records, as doubles and as integers: room for the first `slots`, then for `size`. */
  private doubles: Float64Array;
  private ints: Int32Array;
  private slots: number;
  private nextChunkBytes = FIRST_CHUNK_BYTES;
  private nextId = 1;
  /** The oldest id still listed (a clear, or a chunk dropped for room, moves it on). */
  private firstId = 1;
  /** What the chunks hold together. */
  private chunkBytes = 0;
  /**
   * The last chunk dropped, written again as the next one: memory fresh from the system is faulted in
   * page by page as requests are written, which costs a journaled publish more than the writes do.
   */
  private spare: Buffer | undefined;

  constructor(
    /** 0: the journal is off, and keeps nothing. */
    readonly size: number,
    private readonly maxBytes: number,
  ) {
    this.slots = Math.min(size, FIRST_SLOTS);
    const records = new ArrayBuffer(this.slots * RECORD_BYTES);
    this.doubles = new Float64Array(records);
    this.ints = new Int32Array(records);
  }

  /** Room for the record of `slot`: the ring fills its slots in order before it wraps. */
  private roomFor(slot: number): void {
    if (slot < this.slots) return;
    this.slots = Math.min(this.size, Math.max(slot + 1, this.slots * 2));
    const records = new ArrayBuffer(this.slots * RECORD_BYTES);
    new Uint8Array(records).set(new Uint8Array(this.ints.buffer));
    this.doubles = new Float64Array(records);
    this.ints = new Int32Array(records);
  }

  /** Keeps the request; returns its id (from 1, in the order recorded). */
  write(answered: AnsweredRequest): number {
    const id = this.nextId++;
    const slot = (id - 1) % this.size;
    // The strings go into the chunk in one write (one string, flattened by the write), the body read
    // as bytes is copied as bytes, and the reply written: three calls into node, whatever the headers.
    const { rawHeaders, replyHeaders, body, replyJson } = answered;
    let text = `${answered.method}${SEPARATOR}${answered.url}${SEPARATOR}${answered.operationId ?? ''}${SEPARATOR}${answered.api ?? ''}${SEPARATOR}${answered.clientId ?? ''}`;
    let replyHeaderItems = 0;
    for (const name in replyHeaders) {
      text += `${SEPARATOR}${name}${SEPARATOR}${replyHeaders[name]}`;
      replyHeaderItems += 2;
    }
    if (rawHeaders.length > 0) text += SEPARATOR + rawHeaders.join(SEPARATOR);
    const chunk = this.chunkFor(id, text.length * 3 + keptBytesAtMost(body) + keptBytesAtMost(replyJson));
    const { bytes } = chunk;
    const start = chunk.used;
    let at = start + bytes.write(text, start, 'utf8');
    const bodyBytes = writeKept(bytes, at, body);
    at += bodyBytes;
    const replyBytes = replyJson === undefined ? -1 : writeKept(bytes, at, replyJson);
    if (replyBytes > 0) at += replyBytes;
    chunk.used = at;
    this.roomFor(slot);
    const { doubles, ints } = this;
    const record = slot * INTS;
    ints[record + CHUNK] = chunk.serial;
    ints[record + OFFSET] = start;
    ints[record + BYTE_LENGTH] = at - start;
    ints[record + REPLY_HEADER_ITEMS] = replyHeaderItems;
    ints[record + BODY_LENGTH] = bodyBytes;
    ints[record + REPLY_LENGTH] = replyBytes;
    ints[record + STATUS] = answered.status;
    doubles[slot * DOUBLES + RECEIVED_AT] = answered.receivedAt;
    doubles[slot * DOUBLES + DURATION] = answered.durationMs;
    return id;
  }

  /** The ids kept after `after`, oldest first: from `first` to the one before `end`. */
  idsAfter(after: number): { first: number; end: number } {
    return { first: Math.max(this.firstId, this.nextId - this.size, after + 1), end: this.nextId };
  }

  holds(id: number): boolean {
    return this.size > 0 && id >= this.firstId && id < this.nextId && id >= this.nextId - this.size;
  }

  /** Forgets every request kept. */
  clear(): void {
    this.firstId = this.nextId;
    this.chunks = [];
    this.chunkBytes = 0;
  }

  /** The request `id` as kept (its strings empty once its chunk went for room). */
  kept(id: number): KeptRequest {
    const slot = (id - 1) % this.size;
    return {
      ...this.unpack(slot),
      status: this.ints[slot * INTS + STATUS] as number,
      receivedAt: this.doubles[slot * DOUBLES + RECEIVED_AT] as number,
      durationMs: this.doubles[slot * DOUBLES + DURATION] as number,
    };
  }

  /**
   * The chunk with room for `most` more bytes (a new one when the current may not fit); drops the
   * chunks no request kept is in, and the oldest ones (with their requests) past the journal's bytes.
   */
  private chunkFor(id: number, most: number): Chunk {
    let chunk = this.chunks.at(-1);
    if (!chunk || chunk.used + most > chunk.bytes.length) {
      const size = this.nextChunkBytes;
      const bytes = most <= size && this.spare ? this.spare : Buffer.allocUnsafe(Math.max(size, most));
      if (bytes === this.spare) this.spare = undefined;
      this.nextChunkBytes = Math.min(CHUNK_BYTES, size * 2);
      chunk = { serial: ++this.chunksMade, bytes, used: 0, lastId: id };
      this.chunks.push(chunk);
      this.chunkBytes += chunk.bytes.length;
    }
    chunk.lastId = id;
    const oldestKept = Math.max(this.firstId, this.nextId - this.size);
    while (this.chunks.length > 1 && (this.chunks[0] as Chunk).lastId < oldestKept) this.dropOldestChunk();
    while (this.chunks.length > 1 && this.chunkBytes > this.maxBytes) this.forget(this.dropOldestChunk().lastId);
    return chunk;
  }

  private dropOldestChunk(): Chunk {
    const dropped = this.chunks.shift() as Chunk;
    this.chunkBytes -= dropped.bytes.length;
    // No request kept is in it: nothing reads it again.
    if (dropped.bytes.length === CHUNK_BYTES) this.spare = dropped.bytes;
    return dropped;
  }

  /** The requests up to `lastId` are no longer kept: their chunk is gone. */
  private forget(lastId: number): void {
    this.firstId = Math.max(this.firstId, lastId + 1);
  }

  /** The chunk numbered `serial`, while it is kept. */
  private chunkNumbered(serial: number): Chunk | undefined {
    const [oldest] = this.chunks;
    return oldest && serial >= oldest.serial ? this.chunks[serial - oldest.serial] : undefined;
  }

  private unpack(slot: number): Unpacked {
    const record = slot * INTS;
    const bytes = this.chunkNumbered(this.ints[record + CHUNK] as number)?.bytes;
    if (!bytes) return NOTHING_KEPT;
    const offset = this.ints[record + OFFSET] as number;
    const end = offset + (this.ints[record + BYTE_LENGTH] as number);
    const bodyLength = this.ints[record + BODY_LENGTH] as number;
    const replyLength = this.ints[record + REPLY_LENGTH] as number;
    const bodyStart = end - bodyLength - Math.max(replyLength, 0);
    const [method = '', url = '', operationId = '', api = '', clientId = '', ...headers] = bytes
      .toString('utf8', offset, bodyStart)
      .split(SEPARATOR);
    const replyHeaderItems = this.ints[record + REPLY_HEADER_ITEMS] as number;
    return {
      method,
      url,
      operationId,
      api,
      clientId,
      rawHeaders: headers.slice(replyHeaderItems),
      replyHeaders: headers.slice(0, replyHeaderItems),
      body: bytes.toString('utf8', bodyStart, bodyStart + bodyLength),
      reply: replyLength < 0 ? undefined : bytes.toString('utf8', bodyStart + bodyLength, end),
    };
  }
}

const NOTHING_KEPT: Readonly<Unpacked> = {
  method: '',
  url: '',
  operationId: '',
  api: '',
  clientId: '',
  rawHeaders: [],
  replyHeaders: [],
  body: '',
  reply: undefined,
};

/**
 * The most bytes `writeKept` may write of a body: all of it up to KEPT_BODY_BYTES, else its first
 * KEPT_BODY_BYTES bytes and one more character, so that the entry knows it was cut (a journal of
 * 1 MiB messages holds 64 KiB of each). UTF-8 takes at most 3 bytes per UTF-16 unit.
 */
function keptBytesAtMost(body: string | Buffer | undefined): number {
  if (body === undefined) return 0;
  const most = typeof body === 'string' ? body.length * 3 : body.length;
  return Math.min(most, KEPT_BODY_BYTES + 4);
}

/** Writes what is kept of a body at `at`; returns the bytes written. */
function writeKept(into: Buffer, at: number, body: string | Buffer | undefined): number {
  if (body === undefined) return 0;
  if (typeof body !== 'string') return body.copy(into, at, 0, Math.min(body.length, KEPT_BODY_BYTES + 1));
  const text = body.length > KEPT_BODY_BYTES ? body.slice(0, KEPT_BODY_BYTES + 1) : body;
  return into.write(text, at, Math.min(text.length * 3, KEPT_BODY_BYTES + 4), 'utf8');
}
