// The contract between the core and the hand-written handlers, typed from the operation types that
// openapi-typescript generates from the bundled specs (@platform-api/spec/types). A handler sees its
// operation's parameters and JSON body as the spec types them; the core has checked both against the
// same spec at run time, and reads the body (size limit, Content-Type, JSON) before the handler sees it.
import type { IncomingHttpHeaders } from 'node:http';
import type { operations as AuthOperations } from '@platform-api/spec/types/auth';
import type { operations as EventStreamsOperations } from '@platform-api/spec/types/event-streams';
import type { Scope } from '../domain/credentials.js';
import type { Reply } from '../http/replies.js';

/**
 * The operations answered by hand-written handlers: every event-streams and token operation. The
 * management operations are the resource engine's (Prism's in `--mode prism`, but for the families whose
 * state the domain keeps), their handlers typed from the same generated operations (engine/contract.ts).
 */
export type StatefulOperationId = keyof EventStreamsOperations | keyof AuthOperations;

type Operations = EventStreamsOperations & AuthOperations;

/** What the spec declares of one operation, as openapi-typescript writes it. */
export interface OperationTypes {
  parameters: { path?: unknown; query?: unknown };
  requestBody?: { content: object };
}

type PathParameters<Op extends OperationTypes> = Op['parameters'] extends { path: infer P } ? P : unknown;
type QueryParameters<Op extends OperationTypes> = [NonNullable<Op['parameters']['query']>] extends [never]
  ? unknown
  : NonNullable<Op['parameters']['query']>;

/** Path and query parameters of the operation, validated and coerced to their schema types. */
export type ParametersOf<Op extends OperationTypes> = Readonly<PathParameters<Op> & QueryParameters<Op>>;

/** The operation's JSON request body (under any `application/json...` media type); never when it takes none. */
export type JsonBodyOf<Op extends OperationTypes> = Op['requestBody'] extends { content: infer Content }
  ? { [Media in keyof Content]: Media extends `application/json${string}` ? Content[Media] : never }[keyof Content]
  : never;

/** The body as received, beside its parsed value: a message is stored exactly as it was sent. */
export interface ReceivedBody {
  text: string;
  bytes: Buffer;
}

/** How the core reads a JSON body before handing it to the handler. */
export interface JsonBodyRule {
  /** Names the body in a 413's detail ("The message is larger than ..."); default 'request body'. */
  what?: string;
  /** Most bytes accepted; default SMALL_BODY_LIMIT. */
  limit?: number;
  /** Runs on the parsed value before the spec's schema does, for a rule with an error of its own. */
  precheck?(value: unknown): void;
}

/** The reply follows once the body is read (see HandlerRequest.readJson). */
export const PENDING = Symbol('pending');

/**
 * A handler's result: the reply, a promise of it, undefined when the client left, or PENDING (also
 * through a promise, for a handler that reads the body once something else has settled).
 */
export type Outcome = Reply | undefined | Promise<Reply | undefined | typeof PENDING> | typeof PENDING;

export interface HandlerRequestOf<Op extends OperationTypes> {
  readonly params: ParametersOf<Op>;
  readonly headers: IncomingHttpHeaders;
  /**
   * Reads the body, checks that it is JSON that matches the operation's request schema, then responds
   * with what `then` returns. Return its result: PENDING.
   */
  readJson(rule: JsonBodyRule, then: (body: JsonBodyOf<Op>, received: ReceivedBody) => Outcome): Outcome;
  /** The body as received, whatever its Content-Type (at most SMALL_BODY_LIMIT bytes); none with a Content-Encoding. */
  readBytes(): Promise<Buffer>;
  /** Calls `listener` if the client disconnects before the reply; returns the function that stops that. */
  onClientGone(listener: () => void): () => void;
}

export interface HandlerOf<Op extends OperationTypes> {
  /** The right the caller's API key needs (see ApiKey in the management spec). */
  scope?: Scope;
  handle(request: HandlerRequestOf<Op>): Outcome;
}

export type Handler<Id extends StatefulOperationId> = HandlerOf<Operations[Id]>;
export type HandlerRequest<Id extends StatefulOperationId> = HandlerRequestOf<Operations[Id]>;
export type JsonBody<Id extends StatefulOperationId> = JsonBodyOf<Operations[Id]>;

/** A handler as the core holds it, whatever its operation: its types were checked where it was written. */
export type AnyHandler = HandlerOf<OperationTypes>;
export type AnyHandlerRequest = HandlerRequestOf<OperationTypes>;

/** One handler per stateful operation: a missing one, or one for an operation the spec lacks, fails tsc. */
export type Handlers = { [Id in StatefulOperationId]: Handler<Id> };

/** Request bodies other than messages are small; this bounds what is read for them. */
export const SMALL_BODY_LIMIT = 64 * 1024;
