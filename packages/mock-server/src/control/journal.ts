// The request journal: the last N answered requests of the platform's APIs, for tests that check what
// their code sent. Recording runs on every publish, so it is cheap: the dispatcher hands over what it
// already holds (the raw header list, the body as read, the reply's JSON text, the API key's client
// ID), and an entry is built from it (parsed, masked) only when someone reads it: a list, a
// verification or the stream. What the heap keeps past the young generation costs the garbage
// collector at every collection, and a journal keeps every request: a request is kept as UTF-8 bytes in
// large off-heap chunks and a few numbers in one off-heap record, nothing per request on the heap.
import type { components, operations } from '@platform-api/spec/types/emulator';
import { CONTENT_TYPES } from '../http/replies.js';
import { DEFAULT_JOURNAL_SIZE } from '../options.js';
import type { ApiName } from '../spec/bundles.js';
import { IsoTimeFormatter } from '../spec/date-time.js';
import { CoverageTally } from './coverage.js';

export type JournalEntry = components['schemas']['JournalEntry'];

/** What the dispatcher knows of an answered request; nothing in it is copied or parsed. */
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

/** The filters of `GET /_emulator/requests` (its parameters but the page's `limit`). */
export type JournalFilter = Omit<NonNullable<operations['list_requests']['parameters']['query']>, 'limit'>;

/**
 * Separates the strings of a kept request. A request is kept as: its strings (method, target, the
 * operationId, API and client ID, the reply's header names and values, then the raw request headers as
 * node's parser read them) joined by NULs, as UTF-8, in one write; then its body and reply, told apart
 * by the body's length. Node's parser refuses a NUL in a request target or a header, and node's
 * replies one in a header, so none of the strings holds one; a body may, and is not split. (UTF-8 keeps
 * every string exactly: node reads a header byte as the character of that code, written back as it.)
 */
const SEPARATOR = '\u0000';
/** Requests are written into chunks of this size (a longer one gets a chunk of its own). */
const CHUNK_BYTES = 4 * 1024 * 1024;
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

export class Journal {
  // A ring of the last `size` requests; the request with id n has slot (n - 1) % size.
  /** Oldest first; the last is written into. */
  private chunks: Chunk[] = [];
  private chunksMade = 0;
  /** The slots' records, as doubles and as integers. */
  private readonly doubles: Float64Array;
  private readonly ints: Int32Array;
  /** Entries built on first read, by slot (one whose id is not the slot's request's is stale). */
  private readonly built = new Map<number, JournalEntry>();
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
  private readonly listeners = new Set<(entry: JournalEntry) => void>();
  private readonly times = new IsoTimeFormatter();

  constructor(
    readonly size: number = DEFAULT_JOURNAL_SIZE,
    private readonly maxBytes = JOURNAL_MAX_BYTES,
    /** Counts each request recorded, for the coverage report; a clear of the journal leaves it. */
    readonly coverage = new CoverageTally(Date.now),
  ) {
    if (!Number.isSafeInteger(size) || size < 0) throw new TypeError(`journalSize must be a whole number, not ${size}`);
    const records = new ArrayBuffer(size * RECORD_BYTES);
    this.doubles = new Float64Array(records);
    this.ints = new Int32Array(records);
  }

  /** False with size 0: the dispatcher then hands nothing over. */
  get enabled(): boolean {
    return this.size > 0;
  }

  record(answered: AnsweredRequest): void {
    this.coverage.count(answered.operationId, answered.status);
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
    if (this.listeners.size > 0) {
      const entry = this.entryOf(id);
      for (const listener of this.listeners) listener(entry);
    }
  }

  /** The entries that pass the filter, oldest first: the first `limit`, and how many there are. */
  list(filter: JournalFilter, limit: number): { requests: JournalEntry[]; total: number } {
    const requests: JournalEntry[] = [];
    let total = 0;
    for (const entry of this.entries(filter.after)) {
      if (!passes(entry, filter)) continue;
      total++;
      if (requests.length < limit) requests.push(entry);
    }
    return { requests, total };
  }

  get(id: number): JournalEntry | undefined {
    return this.holds(id) ? this.entryOf(id) : undefined;
  }

  /** Every entry kept, oldest first (after the given id). */
  *entries(after = 0): Generator<JournalEntry> {
    const from = Math.max(this.firstId, this.nextId - this.size, after + 1);
    for (let id = from; id < this.nextId; id++) yield this.entryOf(id);
  }

  clear(): void {
    this.firstId = this.nextId;
    this.built.clear();
    this.chunks = [];
    this.chunkBytes = 0;
  }

  /** Calls `listener` with each entry recorded from now on; returns the unsubscribe. */
  subscribe(listener: (entry: JournalEntry) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  private holds(id: number): boolean {
    return this.size > 0 && id >= this.firstId && id < this.nextId && id >= this.nextId - this.size;
  }

  private entryOf(id: number): JournalEntry {
    const slot = (id - 1) % this.size;
    let entry = this.built.get(slot);
    if (entry?.id !== id) {
      const timing = {
        receivedAt: this.doubles[slot * DOUBLES + RECEIVED_AT] as number,
        durationMs: this.doubles[slot * DOUBLES + DURATION] as number,
      };
      entry = buildEntry(id, this.unpack(slot), this.ints[slot * INTS + STATUS] as number, timing, this.times);
      this.built.set(slot, entry);
    }
    return entry;
  }

  /**
   * The chunk with room for `most` more bytes (a new one when the current may not fit); drops the
   * chunks no request kept is in, and the oldest ones (with their requests) past the journal's bytes.
   */
  private chunkFor(id: number, most: number): Chunk {
    let chunk = this.chunks.at(-1);
    if (!chunk || chunk.used + most > chunk.bytes.length) {
      const bytes = most <= CHUNK_BYTES && this.spare ? this.spare : Buffer.allocUnsafe(Math.max(CHUNK_BYTES, most));
      if (bytes === this.spare) this.spare = undefined;
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
    if (!bytes) return { ...NOTHING_KEPT };
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

const NOTHING_KEPT: Unpacked = {
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

function passes(entry: JournalEntry, filter: JournalFilter): boolean {
  if (filter.operation !== undefined && entry.operation !== filter.operation) return false;
  if (filter.method !== undefined && entry.method !== filter.method.toUpperCase()) return false;
  if (filter.status !== undefined && entry.response.status !== filter.status) return false;
  if (filter.client_id !== undefined && entry.client_id !== filter.client_id) return false;
  return filter.path === undefined || pathMatches(entry.path, filter.path);
}

/** Exact, or a prefix when the pattern ends in `*`. */
export function pathMatches(path: string, pattern: string): boolean {
  return pattern.endsWith('*') ? path.startsWith(pattern.slice(0, -1)) : path === pattern;
}

function buildEntry(
  id: number,
  kept: Unpacked,
  status: number,
  { receivedAt, durationMs }: { receivedAt: number; durationMs: number },
  times: IsoTimeFormatter,
): JournalEntry {
  const headers = headersOf(kept.rawHeaders);
  const queryAt = kept.url.indexOf('?');
  const search = new URLSearchParams(queryAt < 0 ? '' : kept.url.slice(queryAt + 1));
  const query: Record<string, string | string[]> = {};
  for (const name of new Set(search.keys())) {
    const values = search.getAll(name);
    query[name] = values.length === 1 ? (values[0] as string) : values;
  }
  const api = kept.api === '' ? null : (kept.api as ApiName);
  const requestBody = bodyValue(kept.body, headers['content-type']);
  return {
    id,
    time: times.format(receivedAt),
    method: kept.method,
    path: queryAt < 0 ? kept.url : kept.url.slice(0, queryAt),
    query,
    operation: kept.operationId === '' ? null : kept.operationId,
    api,
    client_id: (kept.clientId || clientIdOfTokenRequest(api, headers, requestBody)) ?? null,
    request: { headers: maskedHeaders(headers), body: masked(requestBody) },
    response: {
      status,
      headers: maskedHeaders(responseHeaders(kept)),
      body: kept.reply === undefined ? null : masked(bodyValue(kept.reply, 'application/json')),
    },
    duration_ms: Math.round(durationMs * 1000) / 1000,
  };
}

/** The answer's headers: a JSON body's content type (its API's), then the reply's own. */
function responseHeaders(kept: Unpacked): Record<string, string> {
  // An answer outside any API (an unknown path) is in the event-streams shape.
  const contentType = kept.reply ? CONTENT_TYPES[(kept.api || 'event-streams') as ApiName] : undefined;
  const headers: Record<string, string> = contentType ? { 'content-type': contentType } : {};
  for (let i = 0; i + 1 < kept.replyHeaders.length; i += 2) {
    headers[(kept.replyHeaders[i] as string).toLowerCase()] = kept.replyHeaders[i + 1] as string;
  }
  return headers;
}

/** A token request is authenticated by the credentials it carries: its client ID is the entry's. */
function clientIdOfTokenRequest(
  api: ApiName | null,
  headers: Record<string, string>,
  body: unknown,
): string | undefined {
  if (api !== 'auth') return undefined;
  const basic = /^basic\s+(\S+)/i.exec(headers.authorization ?? '')?.[1];
  if (basic) {
    const decoded = Buffer.from(basic, 'base64').toString('utf8');
    const colon = decoded.indexOf(':');
    return colon < 0 ? undefined : safeDecode(decoded.slice(0, colon));
  }
  const given = isObject(body) ? body.client_id : undefined;
  return typeof given === 'string' ? given : undefined;
}

function safeDecode(text: string): string {
  try {
    return decodeURIComponent(text.replace(/\+/g, ' '));
  } catch {
    return text;
  }
}

/** JSON parsed, a form as its fields, anything else as text; at most KEPT_BODY_BYTES, null when empty. */
function bodyValue(text: string, contentType: string | undefined): unknown {
  if (text.length === 0) return null;
  const bytes = Buffer.from(text);
  if (bytes.length > KEPT_BODY_BYTES) return maskText(bytes.subarray(0, KEPT_BODY_BYTES).toString('utf8'));
  const type = (contentType ?? '').toLowerCase();
  if (type.includes('json')) {
    try {
      return JSON.parse(text);
    } catch {
      return maskText(text);
    }
  }
  if (type.startsWith('application/x-www-form-urlencoded')) {
    const form: Record<string, string | string[]> = {};
    const fields = new URLSearchParams(text);
    for (const name of new Set(fields.keys())) {
      const values = fields.getAll(name);
      form[name] = values.length === 1 ? (values[0] as string) : values;
    }
    return form;
  }
  return maskText(text);
}

const MASK = '***';
/** Member names whose values are credentials: secrets, passwords and tokens (not `token_type`). */
const CREDENTIAL_NAME = /secret|password|passwd|^(access_|auth_|refresh_|api_|id_)?token$/i;
const MASKED_HEADERS = new Set(['authorization', 'proxy-authorization', 'cookie', 'set-cookie']);

function masked(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(masked);
  if (!isObject(value)) return value;
  const copy: Record<string, unknown> = {};
  for (const [name, member] of Object.entries(value)) {
    copy[name] = CREDENTIAL_NAME.test(name) && member !== null && typeof member !== 'object' ? MASK : masked(member);
  }
  return copy;
}

/** A body kept as text (multipart, or cut): the values of credential fields are masked where they can be found. */
function maskText(text: string): string {
  return text
    .replace(/(name="([^"]*)"\r?\n(?:[^\r\n]+\r?\n)*\r?\n)([^\r\n]*)/g, (all, head, name, _value) =>
      CREDENTIAL_NAME.test(name) ? `${head}${MASK}` : all,
    )
    .replace(/("([^"]+)"\s*:\s*)"(?:[^"\\]|\\.)*"/g, (all, head, name) =>
      CREDENTIAL_NAME.test(name) ? `${head}"${MASK}"` : all,
    )
    .replace(/(^|&)([^=&]+)=([^&]*)/g, (all, lead, name) =>
      CREDENTIAL_NAME.test(name) ? `${lead}${name}=${MASK}` : all,
    );
}

/** The raw list as lower-case names and values (a repeated header's values joined with ', '). */
function headersOf(rawHeaders: string[]): Record<string, string> {
  const headers: Record<string, string> = {};
  for (let i = 0; i + 1 < rawHeaders.length; i += 2) {
    const name = (rawHeaders[i] as string).toLowerCase();
    const value = rawHeaders[i + 1] as string;
    headers[name] = name in headers ? `${headers[name]}, ${value}` : value;
  }
  return headers;
}

function maskedHeaders(headers: Record<string, string>): Record<string, string> {
  const copy: Record<string, string> = {};
  for (const [name, value] of Object.entries(headers))
    copy[name] = MASKED_HEADERS.has(name) ? maskCredential(value) : value;
  return copy;
}

/** `Bearer ***`: the scheme stays, so a test can see which kind of credentials were sent. */
function maskCredential(value: string): string {
  const scheme = /^(\S+)\s+\S/.exec(value)?.[1];
  return scheme ? `${scheme} ${MASK}` : MASK;
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
