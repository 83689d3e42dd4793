// Replies and how each kind of failure is rendered in the body shape of the API it happened in.
import type { ServerResponse } from 'node:http';
import {
  ApiError,
  errorResponse,
  InternalError,
  internalServerErrorResponse,
  managementError,
  OAuthError,
  oauthError,
  SizeLimitError,
  sizeLimitErrorResponse,
  type Violation,
} from '../errors.js';
import type { ApiName } from '../spec/bundles.js';

export interface Reply {
  status: number;
  /** The body as JSON text. */
  json: string;
  headers?: Record<string, string>;
}

export const reply = (status: number, value: unknown, headers?: Record<string, string>): Reply => ({
  status,
  json: JSON.stringify(value),
  headers,
});

/** A management-API failure without an event-streams code (422 conflicts, 404 of API clients and keys). */
export class ManagementFailure extends Error {
  constructor(
    readonly status: number,
    message: string,
  ) {
    super(message);
  }
}

const CONTENT_TYPES: Record<ApiName, string> = {
  'event-streams': 'application/json; charset=utf-8',
  auth: 'application/json',
  management: 'application/json',
};

/**
 * Answers are held until a turn of the event loop reads no new request, then written together, the
 * way Redis writes its replies before it sleeps: each answer written to a sleeping client costs a
 * wake-up, so a burst wakes a client on this machine once rather than once per answer. The hold is
 * short: one more turn (a non-blocking poll) per turn that brought new answers, at most MAX_HELD_TURNS.
 */
const MAX_HELD_TURNS = 2;
let pending: { res: ServerResponse; api: ApiName; reply: Reply }[] = [];
let pendingAtLastTurn = 0;
let heldTurns = 0;

export function send(res: ServerResponse, api: ApiName, reply: Reply): void {
  if (pending.length === 0) {
    pendingAtLastTurn = 0;
    heldTurns = 0;
    setImmediate(writeWhenQuiet);
  }
  pending.push({ res, api, reply });
}

function writeWhenQuiet(): void {
  if (pending.length > pendingAtLastTurn && heldTurns < MAX_HELD_TURNS) {
    pendingAtLastTurn = pending.length;
    heldTurns++;
    setImmediate(writeWhenQuiet);
    return;
  }
  const batch = pending;
  pending = [];
  for (const { res, api, reply } of batch) {
    try {
      write(res, api, reply);
    } catch {
      // An answer node refuses (a bad header value) costs its own connection, not the burst or the process.
      res.destroy();
    }
  }
}

function write(res: ServerResponse, api: ApiName, { status, json, headers }: Reply): void {
  // A connection can be answered twice in one turn (a long poll woken as its client leaves): the first wins.
  if (res.headersSent || res.destroyed) return;
  // As a flat [name, value, ...] list, which node reads without enumerating an object's keys.
  const fields: (string | number)[] = ['content-type', CONTENT_TYPES[api], 'content-length', Buffer.byteLength(json)];
  if (headers) for (const [name, value] of Object.entries(headers)) fields.push(name, value);
  res.writeHead(status, fields);
  res.end(json);
}

/** Any thrown value as the error body the spec of `api` defines; an unexpected one becomes a 500. */
export function renderError(api: ApiName, error: unknown): Reply {
  if (error instanceof OAuthError) {
    const headers = error.status === 401 ? { 'www-authenticate': 'Basic realm="oauth2"' } : undefined;
    return reply(error.status, oauthError(error.code, error.message), { ...headers, 'cache-control': 'no-store' });
  }
  if (api === 'management') return renderManagementError(error);
  if (api === 'auth' && (error instanceof ApiError || error instanceof SizeLimitError)) {
    return renderError(api, new OAuthError(400, 'invalid_request', error.message));
  }
  if (error instanceof ApiError)
    return reply(error.status, errorResponse(error.code, error.message, error.details), error.headers);
  if (error instanceof SizeLimitError) {
    return reply(413, sizeLimitErrorResponse(error));
  }
  if (error instanceof InternalError) return reply(500, internalServerErrorResponse(error.code, error.message));
  return reply(500, internalServerErrorResponse('INTERNAL_SERVER_ERROR', 'Internal server error'));
}

function renderManagementError(error: unknown): Reply {
  if (error instanceof ApiError) {
    const list = (error.details.errors as Violation[] | undefined) ?? [];
    return reply(error.status, managementError(error.message, list), error.headers);
  }
  if (error instanceof ManagementFailure) return reply(error.status, managementError(error.message));
  if (error instanceof SizeLimitError) return reply(400, managementError(`${error.message}: ${error.detail}`));
  if (error instanceof InternalError) return reply(500, managementError(error.message));
  return reply(500, managementError('Internal server error'));
}
