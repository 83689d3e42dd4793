// An endpoint: the declaration of how one operation of the four APIs is served. The pipeline
// (pipeline.ts) runs every request the same way: route, admit (bearer token, rate limit, injected
// fault), check the parameters, catch up with a shared store, check the caller's right, `precheck`,
// read and check the body as `body` says, validate it, then `handle` the request, each refusal mapped
// to its API's error shape in one place (errors.ts). A hand-written endpoint is typed from the
// operation types openapi-typescript generates from the bundled specs: its parameters and body are its
// operation's, which the pipeline checked against the same spec at run time, and its operationId is
// part of its type, so an endpoint attached to another operation fails tsc.
import type { IncomingHttpHeaders, IncomingMessage, ServerResponse } from 'node:http';
import type { operations as AuthOperations } from '@platform-api/spec/types/auth';
import type { operations as EmulatorOperations } from '@platform-api/spec/types/emulator';
import type { operations as EventStreamsOperations } from '@platform-api/spec/types/event-streams';
import type { Awaitable } from '../awaitable.js';
import type { Scope } from '../domain/model.js';
import type { Reply } from '../http/replies.js';
import type { JsonBodyOf, OperationTypes, ParametersOf } from '../spec/operation-types.js';
import type { Tenant } from '../tenants/tenant.js';

/** Request bodies other than messages are small; this bounds what is read for them. */
export const SMALL_BODY_LIMIT = 64 * 1024;

/** How much of a body is read: past the limit, a 413 (a 400 where the operation declares none). */
interface BodySize {
  /** Most bytes accepted, a number or the tenant's limit; default SMALL_BODY_LIMIT. */
  readonly limit?: number | ((tenant: Tenant) => number);
  /** Names the body in the 413's detail ("The message is larger than ..."); default 'request body'. */
  readonly what?: string;
}

/** No body is read; whatever is sent is discarded once the answer is written. */
export interface NoBody {
  readonly kind: 'none';
}

/**
 * A JSON body: Content-Type, charset and Content-Encoding are checked before it is read, then its size,
 * its UTF-8, its JSON, and the operation's request schema.
 */
export interface JsonBody extends BodySize {
  readonly kind: 'json';
  /** The spec's `required: false`: an empty or blank body is none, whatever the headers say. */
  readonly optional?: boolean;
  /** A rule with an error of its own, checked on the parsed value (and the text it was parsed from) before the schema is. */
  beforeSchema?(value: unknown, tenant: Tenant, text: string): void;
}

/** The body as sent, whatever its Content-Type; refused with a Content-Encoding (none is decoded). */
export interface BytesBody extends BodySize {
  readonly kind: 'bytes';
}

/** The body as UTF-8 text, whatever its Content-Type (a state document in JSON or YAML). */
export interface TextBody extends BodySize {
  readonly kind: 'text';
}

export type BodyRule = NoBody | JsonBody | BytesBody | TextBody;

export const NO_BODY: NoBody = Object.freeze({ kind: 'none' });

/**
 * What `handle` gets as `request.body` for its rule: the JSON value as its operation types it, the
 * bytes, the text; unknown for an endpoint of any rule (one the engine's spec makes).
 */
export type BodyOf<Op extends OperationTypes, Rule extends BodyRule> = [BodyRule] extends [Rule]
  ? unknown
  : Rule extends JsonBody
    ? Rule extends { optional: true }
      ? JsonBodyOf<Op> | undefined
      : JsonBodyOf<Op>
    : Rule extends BytesBody
      ? Buffer
      : Rule extends TextBody
        ? string
        : undefined;

/** The node:http exchange, for an endpoint that writes its own answer (an event stream, Prism's). */
export interface Exchange {
  readonly req: IncomingMessage;
  readonly res: ServerResponse;
}

/** A request as `precheck` sees it: its body not read yet. */
export interface RequestHead<Op extends OperationTypes = OperationTypes> {
  /** Path and query parameters, validated and coerced; requests to the same target share them. */
  readonly params: ParametersOf<Op>;
  readonly headers: IncomingHttpHeaders;
  /** The state the request reads and changes, and what goes with it. */
  readonly tenant: Tenant;
  /** Calls `listener` if the client disconnects before the answer; returns the function that stops that. */
  onClientGone(listener: () => void): () => void;
  readonly exchange: Exchange;
}

export interface EndpointRequest<Op extends OperationTypes = OperationTypes, Body = unknown> extends RequestHead<Op> {
  readonly body: Body;
  /** A JSON or text body as received (a message is stored exactly as it was sent); '' for others. */
  readonly bodyText: string;
  /** The bytes received; empty when no body was read. */
  readonly bodyBytes: Buffer;
  /**
   * Admits the request to the tenant its body names (the token endpoint's client ID; the one it has
   * when it names none): it is journaled there, and that tenant's fault for the operation applies.
   */
  admitTo(tenant: Tenant): void;
}

/** Returned instead of a reply: the endpoint wrote its answer itself (an event stream, Prism), or the client left. */
export const NO_REPLY = Symbol('no reply');

export type Answer = Reply | typeof NO_REPLY;

/** What an endpoint declares; `endpoint()` adds its operationId. */
export interface Declaration<Op extends OperationTypes, Rule extends BodyRule, Found> {
  /** The right the caller's API key needs (ApiKey.scopes in the management spec). */
  readonly scope?: Scope;
  /** The topic the request is about, which the key must have (ApiKey.topic_ids) besides the scope. */
  topicOf?(params: ParametersOf<Op>): number;
  /**
   * With a store shared by several emulators, whether the request first waits for the changes the
   * others announced: always, or when the topic it names is not known here (an event-streams call).
   */
  readonly catchUp?: 'always' | 'unknown-topic';
  readonly body: Rule;
  /**
   * Checks that come before the body is read (the item the path names exists: a 404 before a 400 for
   * the body); what it finds is handed to `handle`.
   */
  precheck?(request: RequestHead<Op>): Awaitable<Found>;
  handle(request: EndpointRequest<Op, BodyOf<Op, Rule>>, found: Found): Awaitable<Answer>;
}

export interface Endpoint<
  Op extends OperationTypes = OperationTypes,
  Rule extends BodyRule = BodyRule,
  Found = unknown,
  Id extends string = string,
> extends Declaration<Op, Rule, Found> {
  readonly operationId: Id;
}

/** An endpoint as the pipeline holds it, whatever its operation: its types were checked where it was written. */
export type AnyEndpoint = Endpoint;

/** The operations served by hand-written endpoints: every event-streams, token and emulator API operation. */
type HandWritten = EventStreamsOperations & AuthOperations & EmulatorOperations;
export type HandWrittenOperationId = keyof HandWritten;

/** The endpoint of `operationId`, typed from its operation. */
export function endpoint<Id extends HandWrittenOperationId, Rule extends BodyRule, Found = undefined>(
  operationId: Id,
  declaration: Declaration<HandWritten[Id], Rule, Found>,
): Endpoint<HandWritten[Id], Rule, Found, Id> {
  return { ...declaration, operationId };
}

/** One endpoint per operation of `Ids`: a missing one, or one written for another operation, fails tsc. */
export type Endpoints<Ids extends HandWrittenOperationId> = {
  [Id in Ids]: Endpoint<HandWritten[Id], BodyRule, unknown, Id>;
};

/** The platform's hand-written operations: the event-streams API and the token endpoint. */
export type PlatformEndpoints = Endpoints<keyof EventStreamsOperations | keyof AuthOperations>;
/** The emulator API, /_emulator/*. */
export type EmulatorEndpoints = Endpoints<keyof EmulatorOperations>;
