// What a handler gets: the request, its validated parameters, the caller's API key and the emulator's state.
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { ApiKey, Scope } from '../domain/credentials.js';
import type { EmulatorState } from '../domain/state.js';
import type { TopicEntry } from '../domain/topics.js';
import { InvalidRequest } from '../errors.js';
import { readBody } from '../http/body.js';
import type { Reply } from '../http/replies.js';
import type { Operation } from '../spec/bundles.js';
import { describeViolations, violations } from '../spec/validators.js';

/** undefined: the client went away and nothing is to be sent. ANSWERED_LATER: see `complete`. */
export type Outcome = Reply | undefined | Promise<Reply | undefined> | typeof ANSWERED_LATER;

/** What a handler returns once it has arranged, through ctx.complete, to answer later (withJsonBody). */
export const ANSWERED_LATER = Symbol('answered later');

export interface Context {
  req: IncomingMessage;
  res: ServerResponse;
  operation: Operation;
  /** Path and query parameters, validated and coerced to their schema types. */
  params: Record<string, any>;
  /** The caller's API key (operations that take a bearer token). */
  key: ApiKey | undefined;
  /** Answers the request with what `work` returns, or the error it throws; for work after `handle` returned. */
  complete(work: () => Outcome): void;
}

export interface RouteHandler {
  /** The right the caller's API key needs (see ApiKey in the management spec). */
  scope?: Scope;
  handle(ctx: Context): Outcome;
}

/** Request bodies other than messages are small; this bounds what is read for them. */
export const SMALL_BODY_LIMIT = 64 * 1024;

/** The media type of a Content-Type header, without its parameters, in lower case. */
export function mediaType(contentType: string): string {
  return contentType.split(';', 1)[0]!.trim().toLowerCase();
}

export function isJsonContentType(contentType: string | undefined): boolean {
  // The exact header nearly every client sends is decided without parsing (a publish-path hot spot).
  return (
    contentType === 'application/json' || (contentType !== undefined && mediaType(contentType) === 'application/json')
  );
}

export interface JsonBody {
  value: unknown;
  /** The body as received, for storing a message unchanged. */
  text: string;
  /** The same, as the bytes received. */
  bytes: Buffer;
}

/**
 * Reads and parses the JSON body, then answers the request with `then(body)`: 400 for a wrong
 * Content-Type (before anything is read), an empty body or bad JSON; 413 past `limit`.
 */
export function withJsonBody(ctx: Context, limit: number, what: string, then: (body: JsonBody) => Outcome): Outcome {
  const contentType = ctx.req.headers['content-type'];
  if (!isJsonContentType(contentType)) {
    throw new InvalidRequest(
      'UNSUPPORTED_CONTENT_TYPE',
      `Content-Type must be application/json, not ${contentType ?? 'absent'}`,
    );
  }
  readBody(
    ctx.req,
    limit,
    what,
    (bytes) => ctx.complete(() => then(parseJson(bytes))),
    (error) =>
      ctx.complete(() => {
        throw error;
      }),
  );
  return ANSWERED_LATER;
}

function parseJson(bytes: Buffer): JsonBody {
  const text = bytes.toString('utf8');
  try {
    return { value: JSON.parse(text), text, bytes };
  } catch (error) {
    // Only a failed parse can be an empty body, so well-formed bodies are not scanned twice.
    if (text.trim() === '') throw new InvalidRequest('INVALID_REQUEST', 'A JSON request body is required');
    throw new InvalidRequest('INVALID_JSON', `The body is not valid JSON: ${(error as Error).message}`);
  }
}

/** Checks a parsed body against the operation's request-body schema from the spec. */
export function validateBody(state: EmulatorState, ctx: Context, value: unknown): void {
  const validate = state.validators.for(ctx.operation).body;
  if (validate && !validate(value)) {
    const list = violations(validate.errors);
    throw new InvalidRequest('INVALID_REQUEST', describeViolations('Request body', list), { errors: list });
  }
}

/** withJsonBody for a small body that must match the operation's request-body schema. */
export function withValidJson(state: EmulatorState, ctx: Context, then: (value: any) => Outcome): Outcome {
  return withJsonBody(ctx, SMALL_BODY_LIMIT, 'request body', ({ value }) => {
    validateBody(state, ctx, value);
    return then(value);
  });
}

/** The topic named by the `topic_id` parameter. */
export function topicOr404(state: EmulatorState, ctx: Context): TopicEntry {
  return state.topics.require(ctx.params.topic_id);
}
