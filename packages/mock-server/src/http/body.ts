// Reads request bodies with a size limit: a too-large Content-Length is refused before anything is
// read, and a chunked body is abandoned as soon as it passes the limit, so no huge body is ever held.
// What a body must be besides (its Content-Type, UTF-8, JSON) is pipeline/body-rules.ts's.
import type { IncomingMessage, ServerResponse } from 'node:http';
import { PayloadTooLarge } from '../errors.js';

/** Where a body read reports: the whole body, or the error of one past the limit. */
export interface BodyReceiver {
  received(body: Buffer): void;
  refused(error: PayloadTooLarge): void;
}

interface QueuedRead {
  req: IncomingMessage;
  limit: number;
  what: string;
  receiver: BodyReceiver;
}

/**
 * Reads whole bodies for one server. Through a receiver, not a promise: this is every publish's
 * path, and its promise jobs would be a measurable part of a publish (BENCHMARKS.md); `readAll` is
 * the promise form for the other paths.
 *
 * A body is taken once the loop turn has parsed what it read (its check phase): a small request
 * comes whole in one read, so its body is buffered by then and one read() takes it, without 'data'
 * and 'end' listeners and the ticks of flowing mode, which cost a publish measurably (BENCHMARKS.md).
 * A body still arriving is read through listeners as it comes.
 */
export class BodyReader {
  private queued: QueuedRead[] = [];

  read(req: IncomingMessage, limit: number, what: string, receiver: BodyReceiver): void {
    // NaN (no Content-Length: a chunked body) is never over the limit.
    const declared = Number(req.headers['content-length']);
    if (declared > limit) {
      receiver.refused(tooLarge(limit, declared, what));
      return;
    }
    if (this.queued.length === 0) setImmediate(this.readQueued);
    this.queued.push({ req, limit, what, receiver });
  }

  readAll(req: IncomingMessage, limit: number, what: string): Promise<Buffer> {
    return new Promise((resolve, reject) => this.read(req, limit, what, { received: resolve, refused: reject }));
  }

  private readonly readQueued = (): void => {
    const reads = this.queued;
    this.queued = [];
    for (const read of reads) {
      const { req } = read;
      // A request destroyed meanwhile (its client went away) is left alone, as its 'end' never comes.
      if (req.complete && !req.destroyed && req.readableFlowing === null) takeBuffered(read);
      else listen(read);
    }
  };
}

/** The parser has pushed the whole body (bounded: it stops reading past the stream's high-water mark). */
function takeBuffered({ req, limit, what, receiver }: QueuedRead): void {
  // One Buffer of everything buffered; null for an empty body.
  const body: Buffer = req.read() ?? Buffer.alloc(0);
  if (body.length > limit) receiver.refused(tooLarge(limit, body.length, what));
  else receiver.received(body);
}

function listen({ req, limit, what, receiver }: QueuedRead): void {
  const chunks: Buffer[] = [];
  let size = 0;
  const onData = (chunk: Buffer) => {
    size += chunk.length;
    if (size <= limit) {
      chunks.push(chunk);
      return;
    }
    req.off('data', onData);
    req.off('end', onEnd);
    receiver.refused(tooLarge(limit, size, what));
  };
  const onEnd = () => {
    const [first] = chunks;
    // A body that came in one chunk is passed on without a copy.
    receiver.received(first && chunks.length === 1 ? first : Buffer.concat(chunks, size));
  };
  req.on('data', onData);
  req.on('end', onEnd);
  // No 'error' listener: node emits a request's error (a client gone mid-body) only to listeners, and
  // such a request has nobody left to answer; each listener costs every publish.
}

const tooLarge = (limit: number, size: number, what: string) =>
  new PayloadTooLarge(limit, size, `The ${what} is larger than ${limit} bytes`);

/** Grace period for a client to finish sending a refused body before its connection is closed. */
const DISCARD_GRACE_MS = 2000;
/** An unread body up to this size is drained and the connection kept alive. */
const DRAIN_LIMIT = 64 * 1024;

/**
 * After a reply that did not read the whole request body (401, 413, ...): the rest is discarded
 * without being kept. A small body keeps the connection alive; otherwise the connection closes after
 * the reply, and a client that keeps sending is cut off.
 */
export function discardUnreadBody(req: IncomingMessage, res: ServerResponse): void {
  if (req.complete) return;
  req.resume();
  // A request without Content-Length or Transfer-Encoding has no body (RFC 9112 6.3); answered as its
  // headers arrive, before node has marked it complete, it leaves nothing to discard.
  const declared = req.headers['content-length'] ?? (req.headers['transfer-encoding'] === undefined ? '0' : undefined);
  if (declared !== undefined && Number(declared) <= DRAIN_LIMIT && req.listenerCount('data') === 0) return;
  res.shouldKeepAlive = false;
  res.once('finish', () => {
    const timer = setTimeout(() => req.destroy(), DISCARD_GRACE_MS);
    timer.unref();
    req.once('end', () => clearTimeout(timer));
  });
}
