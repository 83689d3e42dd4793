// The contract between the resource engine and its hand-written handlers (`op: custom`), types only:
// the request a handler is given, what it may use of the engine (Workspace), and what it answers. The
// engine, handlers.ts and custom/ import it; it imports neither, so they form no import circle.
import type { ResourceTypeName } from '../generated/resource-types.js';
import type { JsonObject, ResourceStore, StoredItem } from '../store/resource-store.js';
import type { AnswerData } from './answers.js';
import type { ValueContext } from './values.js';
import type { EngineOperation, ResourceType, SpecTypeName } from './vocabulary.js';

/**
 * A resource type as hand-written code names it: by a name the bundled spec declares (a name it does
 * not declare, a typo, fails tsc; RESOURCE_TYPES has them all), or by one the engine read from the spec
 * (ResourceType.name).
 */
export type TypeName = ResourceTypeName | SpecTypeName | CounterName;

/** Counters of ids the handlers keep besides the types' own (Workspace.store.nextId): member invitations'. */
export type CounterName = 'member_invitation';

/**
 * A request to an engine operation as the pipeline hands it over (dispatch.ts), checked against the
 * spec: the path and query parameters coerced to their schema types, the body read and checked as every
 * operation's is.
 */
export interface CheckedRequest {
  params: Readonly<JsonObject>;
  /** The JSON body, valid against the operation's schema; undefined when the operation takes none or it was left out. */
  body: unknown;
  /** The body's bytes when it is not JSON (a package's zip file). */
  bytes?: Uint8Array;
  /** The request's Host header, for answers that name a URL of the emulator itself. */
  host?: string;
}

/** What a hand-written handler may use of the engine. */
export interface Workspace {
  readonly store: ResourceStore<TypeName>;
  readonly values: ValueContext;
  /** Every resource type, for handlers that read or write items of types besides their operation's. */
  readonly types: ReadonlyMap<string, ResourceType>;
  itemOf(op: EngineOperation, params: Readonly<JsonObject>): Promise<StoredItem>;
  /** A singleton's value: the stored one, else its defaults. */
  singleton(op: EngineOperation, params: Readonly<JsonObject>): Promise<JsonObject>;
  /** Why an item (complete) does not match its type's schema, or undefined when it does. */
  itemProblems(typeName: TypeName, value: JsonObject): string | undefined;
  /** The parent item named in the path (404 when it does not exist), for a sub-collection's operation. */
  parentOf(op: EngineOperation, params: Readonly<JsonObject>): Promise<StoredItem>;
  create(op: EngineOperation, fields: JsonObject, parent: StoredItem | undefined): Promise<JsonObject>;
  update(op: EngineOperation, item: StoredItem, fields: JsonObject): Promise<JsonObject>;
  /** Deletes the item with its sub-collections and what `on_delete` ties to it (`force`: also what `restrict`s). */
  delete(op: EngineOperation, item: StoredItem, force?: boolean): Promise<void>;
}

/** A body that is not JSON (a package's zip file), answered with its content type. */
export interface FileBody {
  contentType: string;
  bytes: Uint8Array;
}

export type HandlerResult = AnswerData | { body: unknown } | { file: FileBody };
export type Handler = (workspace: Workspace, op: EngineOperation, request: CheckedRequest) => Promise<HandlerResult>;
