// The contract between the resource engine and its hand-written handlers (`op: custom`), types only
// (and `typed`, which only types): the request a handler is given, what it may use of the engine
// (Workspace) and of the domain, what it answers, and the families of handlers whose state the domain
// keeps. The engine, handlers.ts and custom/ import it; it imports neither, so they form no import circle.

import type { operations as ManagementOperations } from '@platform-api/spec/types/management';
import type { Awaitable } from '../awaitable.js';
import type { Scope } from '../domain/model.js';
import type { DomainState } from '../domain/state.js';
import type { HandlerName, HandlerOperations } from '../generated/handlers.js';
import type { ResourceTypeName } from '../generated/resource-types.js';
import type { SchemaChecks } from '../spec/checks.js';
import type { JsonBodyOf, NumericIds, ParametersOf } from '../spec/operation-types.js';
import type { JsonObject, ResourceStore, StoredItem } from '../store/resource-store.js';
import type { AnswerData } from './answers.js';
import type { StateSection } from './sections.js';
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
 * A request to an engine operation as the pipeline hands it over (pipeline/management.ts), checked against the
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

/** A workspace's id and name, as its details answer them. */
export interface WorkspaceIdentity {
  id: number;
  name: string;
}

/** What the URLs an engine answers carry to name its tenant (tenants/url-scope.ts). */
export interface TenantUrls {
  /** The query that names the tenant: `workspace=ID&environment=NAME`. */
  readonly query: string;
  /** The key of a connection's OAuth URL: the same each time, and its tenant's alone. */
  oauthKey(connectionId: string): string;
}

/** What a hand-written handler may use of the engine. */
export interface Workspace {
  /** The workspace made at run time this engine serves; undefined for the emulator's own. */
  readonly identity: WorkspaceIdentity | undefined;
  /** What its URLs to be opened without credentials carry. */
  readonly urls: TenantUrls;
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
  /** The emulator's domain, for the families whose state it keeps; an engine started without one throws. */
  readonly domain: Domain;
}

/**
 * What the engine's families reach of the domain state, which keeps their state in indexes of its own
 * (the token endpoint and every bearer token check read the API keys; publish and consume the topics).
 */
export type Domain = Pick<DomainState, 'credentials' | 'topics' | 'messages'>;

/** A body that is not JSON (a package's zip file), answered with its content type. */
export interface FileBody {
  contentType: string;
  bytes: Uint8Array;
}

export type HandlerResult = AnswerData | { body: unknown } | { file: FileBody };
export type Handler = (workspace: Workspace, op: EngineOperation, request: CheckedRequest) => Promise<HandlerResult>;

type ManagementOperation = ManagementOperations[keyof ManagementOperations];

/** The operation's JSON body; undefined too where the spec lets the client leave it out. */
type RequestBodyOf<Op extends ManagementOperation> = undefined extends Op['requestBody']
  ? JsonBodyOf<Op & { requestBody: NonNullable<Op['requestBody']> }> | undefined
  : JsonBodyOf<Op>;

/**
 * A request to one of the management operations `Ids` (a union of requests for several), its parameters
 * and body typed from the generated operation types.
 */
export type OperationRequest<Ids extends keyof ManagementOperations> = Ids extends unknown
  ? {
      params: ParametersOf<ManagementOperations[Ids]>;
      body: NumericIds<RequestBodyOf<ManagementOperations[Ids]>>;
      /** The body's bytes when it is not JSON (a package's zip file). */
      bytes?: Uint8Array;
      host?: string;
    }
  : never;

/** A handler of the operations `Ids`, seeing their parameters and body as the spec types them. */
export type OperationHandler<Ids extends keyof ManagementOperations> = (
  workspace: Workspace,
  op: EngineOperation,
  request: OperationRequest<Ids>,
) => Promise<HandlerResult>;

declare const serves: unique symbol;

/** A handler that says which operations it was written for (`typed`), so that tsc holds it to them. */
export type TypedHandler<Ids extends keyof ManagementOperations> = OperationHandler<Ids> & { readonly [serves]: Ids };

/**
 * The handler registered under `Name`: it takes a request of every operation the spec attaches it to
 * (src/generated/handlers.ts), and one `typed` for other operations fails tsc, even when their
 * requests have the same shape.
 */
export type HandlerFor<Name extends HandlerName> = OperationHandler<HandlerOperations[Name]> & {
  readonly [serves]?: HandlerOperations[Name];
};

/** Every hand-written handler the spec names, each typed by its operations: a missing or unknown one fails tsc. */
export type HandlerRegistry = { readonly [Name in HandlerName]: HandlerFor<Name> };

/**
 * A handler of the operations `Id` (an operationId the spec does not have fails tsc), seeing their
 * parameters and body as the spec types them (the pipeline checked both against the same spec), and
 * registered only under a name the spec attaches to those operations.
 */
export function typed<Id extends keyof ManagementOperations>(handle: OperationHandler<Id>): TypedHandler<Id> {
  return handle as TypedHandler<Id>;
}

/** A check of a request before its body is read (the item its path names exists: 404 before a 400 for the body). */
export type Precheck = (workspace: Workspace, op: EngineOperation, params: Readonly<JsonObject>) => Awaitable<void>;

/** What a family's state section is made with. */
export interface SectionContext {
  /** The engine's checks of the management spec's component schemas. */
  checks: SchemaChecks;
  clock: () => number;
}

/**
 * Handlers of the resource types whose state the domain keeps (topics, API clients and keys): the right their
 * operations need, the checks that come before the body, and the family's part of the state document.
 * Their operations are the engine's in every mode (Prism never answers them).
 */
export interface Family {
  /** The types the family keeps: not in the engine's store, nor under `resources` in the state document. */
  types: readonly TypeName[];
  /** The right the caller's API key needs for every operation of the family (ApiKey.scopes). */
  scope: Scope;
  handlers: Partial<HandlerRegistry>;
  /** By handler name (one the spec does not attach fails tsc). */
  prechecks: { readonly [Name in HandlerName]?: Precheck };
  section(domain: Domain, context: SectionContext): StateSection;
}
