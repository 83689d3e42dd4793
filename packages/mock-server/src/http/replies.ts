// Replies, and the queue that holds them until a turn of the event loop reads no new request.
import type { ServerResponse } from 'node:http';
import type { SpecName } from '../spec/bundles.js';

export interface Reply {
  status: number;
  /** The body as JSON text. */
  json: string;
  headers?: Record<string, string>;
  /** A body that is not JSON (a zip file), written instead of `json`, with its own content type. */
  file?: { contentType: string; bytes: Uint8Array };
}

export const jsonReply = (status: number, value: unknown, headers?: Record<string, string>): Reply => ({
  status,
  json: JSON.stringify(value),
  headers,
});

export const CONTENT_TYPES: Readonly<Record<SpecName, string>> = {
  'event-streams': 'application/json; charset=utf-8',
  auth: 'application/json',
  management: 'application/json',
  emulator: 'application/json',
};

/**
 * One server's replies are held until a turn of the event loop reads no new request, then written
 * together, the way Redis writes its replies before it sleeps: each reply written to a sleeping
 * client costs a wake-up, so a burst wakes a client once rather than once per reply (BENCHMARKS.md).
 * The hold is short: one more turn (a non-blocking poll) per turn that brought new replies, at most
 * MAX_HELD_TURNS.
 *
 * `commit` runs before the held replies are written, and they are written once what it returns has
 * settled: with a durable store, the changes they acknowledge or show are stored by then, all of them
 * in one commit (group commit). When it fails, none of them is written. A failure `answerFailure`
 * answers (a shared store out of reach, which the emulator recovers from; a workspace deleted by another
 * emulator, whose requests alone are refused, by their `owner`) replaces each by its error reply (or
 * keeps it); any other cuts their connections and is thrown on, which ends the process: what is in
 * memory no longer matches what is stored, and a restart recovers what was committed.
 */
export class HeldReplies<Owner = void> {
  private held: HeldReply<Owner>[] = [];
  private heldAtLastTurn = 0;
  private heldTurns = 0;

  constructor(
    private readonly commit: () => Promise<void> | undefined = () => undefined,
    /** The reply, in the API's shape, that stands for each held one when the commit failed this way; else undefined. */
    private readonly answerFailure: (held: HeldReply<Owner>, error: unknown) => Reply | undefined = () => undefined,
  ) {}

  /** `owner`: whose request it answers (a tenant), for `answerFailure`. */
  respond(res: ServerResponse, api: SpecName, reply: Reply, owner: Owner): void {
    if (this.held.length === 0) {
      this.heldAtLastTurn = 0;
      this.heldTurns = 0;
      setImmediate(this.writeWhenQuiet);
    }
    this.held.push({ res, api, reply, owner });
  }

  private readonly writeWhenQuiet = (): void => {
    if (this.held.length > this.heldAtLastTurn && this.heldTurns < MAX_HELD_TURNS) {
      this.heldAtLastTurn = this.held.length;
      this.heldTurns++;
      setImmediate(this.writeWhenQuiet);
      return;
    }
    const replies = this.held;
    this.held = [];
    let durable: Promise<void> | undefined;
    try {
      durable = this.commit();
    } catch (error) {
      this.failed(replies, error);
      return;
    }
    if (!durable) writeAll(replies);
    else {
      durable.then(
        () => writeAll(replies),
        (error: unknown) => this.failed(replies, error),
      );
    }
  };

  private failed(replies: HeldReply<Owner>[], error: unknown): void {
    const answered = replies.map((held) => ({ ...held, reply: this.answerFailure(held, error) }));
    if (answered.every((held): held is HeldReply<Owner> => held.reply !== undefined)) {
      writeAll(answered);
      return;
    }
    cut(replies);
    throw error;
  }
}

export interface HeldReply<Owner> {
  res: ServerResponse;
  api: SpecName;
  reply: Reply;
  owner: Owner;
}

function writeAll(replies: HeldReply<unknown>[]): void {
  for (const { res, api, reply } of replies) {
    try {
      write(res, api, reply);
    } catch {
      // A reply node refuses (a bad header value) costs its own connection, not the burst or the process.
      res.destroy();
    }
  }
}

/** No reply of the burst is written: a client whose change may not be stored sees its connection cut. */
function cut(replies: HeldReply<unknown>[]): void {
  for (const { res } of replies) res.destroy();
}

const MAX_HELD_TURNS = 2;

function write(res: ServerResponse, api: SpecName, { status, json, headers, file }: Reply): void {
  // A connection can be answered twice in one turn (a long poll woken as its client leaves): the first wins.
  if (res.headersSent || res.destroyed) return;
  // As a flat [name, value, ...] list, which node reads without enumerating an object's keys.
  const fields: (string | number)[] = file
    ? ['content-type', file.contentType, 'content-length', file.bytes.byteLength]
    : ['content-type', CONTENT_TYPES[api], 'content-length', Buffer.byteLength(json)];
  if (headers) for (const [name, value] of Object.entries(headers)) fields.push(name, value);
  res.writeHead(status, fields);
  res.end(file ? file.bytes : json);
}
