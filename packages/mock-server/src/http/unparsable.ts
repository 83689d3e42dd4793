// Requests node's HTTP parser refuses never reach the pipeline: a Content-Length shorter than the
// body leaves the rest to be parsed as a request of its own, headers can be too large. node would
// answer them with a bare status line; they get the JSON error body of every other error instead.
import type { Duplex } from 'node:stream';
import { errorReply, InvalidRequest } from '../errors.js';
import { STATUS_CODES } from './node-http.js';
import { CONTENT_TYPES } from './replies.js';

/** node:http's 'clientError' listener: answers, then closes the connection, as node's own answer does. */
export function answerUnparsable(error: Error & { code?: string }, socket: Duplex): void {
  // A client that went away, or a connection already ending, is left alone.
  if (!socket.writable || error.code === 'ECONNRESET') return;
  const timedOut = error.code === 'ERR_HTTP_REQUEST_TIMEOUT';
  const reply = errorReply('event-streams', new InvalidRequest('INVALID_REQUEST', describe(error.code)));
  // The request never arrived whole: a timeout is no bad request, as node answers it.
  const status = timedOut ? 408 : reply.status;
  socket.end(
    `HTTP/1.1 ${status} ${STATUS_CODES[status]}\r\n` +
      `content-type: ${CONTENT_TYPES['event-streams']}\r\n` +
      `content-length: ${Buffer.byteLength(reply.json)}\r\nconnection: close\r\n\r\n${reply.json}`,
  );
}

function describe(code: string | undefined): string {
  if (code === 'HPE_HEADER_OVERFLOW') return 'The request headers are larger than the server accepts';
  if (code === 'ERR_HTTP_REQUEST_TIMEOUT') return 'The request was not received in time';
  return `The request is not valid HTTP/1.1 (${code ?? 'unknown parse error'})`;
}
