// Replies, and the queue that holds them until a turn of the event loop reads no new request.
import type { ServerResponse } from 'node:http';
import type { ApiName } from '../spec/bundles.js';

export interface Reply {
  status: number;
  /** The body as JSON text. */
  json: string;
  headers?: Record<string, string>;
}

export const jsonReply = (status: number, value: unknown, headers?: Record<string, string>): Reply => ({
  status,
  json: JSON.stringify(value),
  headers,
});

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
