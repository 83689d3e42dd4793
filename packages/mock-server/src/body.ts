// Reads request bodies with a size limit: a too-large Content-Length is refused before anything is
// read, and a chunked body is abandoned as soon as it passes the limit, so no huge body is ever held.
import type { IncomingMessage, ServerResponse } from 'node:http';
import { SizeLimitError } from './errors.js';

export async function readBody(req: IncomingMessage, limit: number, what: string): Promise<Buffer> {
  const declared = req.headers['content-length'];
  if (declared !== undefined && Number(declared) > limit) {
    throw new SizeLimitError(limit, Number(declared), `The ${what} is larger than ${limit} bytes`);
  }
  return new Promise<Buffer>((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    const onData = (chunk: Buffer) => {
      size += chunk.length;
      if (size > limit) {
        req.off('data', onData);
        req.off('end', onEnd);
        reject(new SizeLimitError(limit, size, `The ${what} is larger than ${limit} bytes`));
        return;
      }
      chunks.push(chunk);
    };
    const onEnd = () => resolve(chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks, size));
    req.on('data', onData);
    req.on('end', onEnd);
    req.on('error', reject);
  });
}

/** Grace period for a client to finish sending a refused body before its connection is closed. */
const DISCARD_GRACE_MS = 2000;
/** An unread body up to this size is drained and the connection kept alive. */
const DRAIN_LIMIT = 64 * 1024;

/**
 * After an answer that did not read the whole request body (401, 413, ...): the rest is discarded
 * without being kept. A small body keeps the connection alive; otherwise the connection closes after
 * the answer, and a client that keeps sending is cut off.
 */
export function abandonBody(req: IncomingMessage, res: ServerResponse): void {
  if (req.complete) return;
  req.resume();
  const declared = req.headers['content-length'];
  if (declared !== undefined && Number(declared) <= DRAIN_LIMIT && req.listenerCount('data') === 0) return;
  res.shouldKeepAlive = false;
  res.once('finish', () => {
    const timer = setTimeout(() => req.destroy(), DISCARD_GRACE_MS);
    timer.unref();
    req.once('end', () => clearTimeout(timer));
  });
}
