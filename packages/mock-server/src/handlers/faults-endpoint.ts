// POST /_emulator/faults and DELETE /_emulator/faults: the fault injection of `server.faults` over
// HTTP, for an emulator started from the command line.
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Faults } from '../domain/faults.js';
import { type BodyReader, isJsonContentType } from '../http/body.js';
import { SMALL_BODY_LIMIT } from './handler.js';

interface FaultRequest {
  operation?: string;
  status?: number;
  code?: string;
  retry_after?: number;
  retryAfter?: number;
  times?: number;
  batch_fail_positions?: number[];
  omit?: boolean;
}

export async function faultsEndpoint(
  faults: Faults,
  bodies: BodyReader,
  req: IncomingMessage,
  res: ServerResponse,
): Promise<void> {
  try {
    if (req.method === 'DELETE') {
      faults.clear();
      return respond(res, 204);
    }
    if (req.method !== 'POST') {
      return respond(res, 405, 'Use POST to add a fault or DELETE to clear them', { allow: 'POST, DELETE' });
    }
    if (!isJsonContentType(req.headers['content-type']))
      return respond(res, 400, 'Content-Type must be application/json');
    const body = JSON.parse((await bodies.readAll(req, SMALL_BODY_LIMIT, 'fault')).toString('utf8')) as FaultRequest;
    if (body === null || typeof body !== 'object') return respond(res, 400, 'The body must be a JSON object');
    if (body.batch_fail_positions !== undefined) {
      if (!Array.isArray(body.batch_fail_positions)) return respond(res, 400, 'batch_fail_positions must be an array');
      faults.failBatchPositions(body.batch_fail_positions, { times: body.times, omit: body.omit === true });
    } else {
      if (typeof body.operation !== 'string' || typeof body.status !== 'number') {
        return respond(
          res,
          400,
          'Send {"operation", "status"[, "code", "retry_after", "times"]} or {"batch_fail_positions"[, "omit", "times"]}',
        );
      }
      const retryAfter = body.retry_after ?? body.retryAfter;
      faults.failNext(body.operation, { status: body.status, code: body.code, retryAfter }, { times: body.times });
    }
    respond(res, 204);
  } catch (error) {
    // Bad JSON, a size limit or a fault the operation cannot answer: all the caller's to fix.
    respond(res, 400, (error as Error).message);
  }
}

/** A `{message}` answer, or none: the emulator's own endpoints answer in this shape. */
export function respond(
  res: ServerResponse,
  status: number,
  message?: string,
  headers: Record<string, string> = {},
): void {
  const json = message === undefined ? '' : JSON.stringify({ message });
  res.writeHead(status, {
    ...headers,
    ...(message === undefined ? {} : { 'content-type': 'application/json', 'content-length': Buffer.byteLength(json) }),
  });
  res.end(json);
}
