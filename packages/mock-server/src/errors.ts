// Every failure the emulator answers on purpose is one of the classes below, thrown by meaning (a
// NotFound, an Unauthorized), not by status; only a Refused carries one, the status its operation's
// spec documents for the case (the engine's handlers refuse a conflict or a taken name with their
// operation's 409 or 422). errorReply, at the end, is the one place that turns each into the
// status, headers and body that the spec of the API it happened in defines: ErrorResponse,
// SizeLimitErrorResponse and InternalServerErrorResponse (event streams), ManagementError (management
// API), the RFC 6749 error (token endpoint) and EmulatorError (the emulator's own API, /_emulator/*).
import { jsonReply, type Reply } from './http/replies.js';
import type { SpecName } from './spec/bundles.js';

/** The `details.code` values the emulator can send; each must be listed in the spec's `info.x-error-codes`. */
export const EMITTED_ERROR_CODES = [
  'INVALID_JSON',
  'UNSUPPORTED_CONTENT_TYPE',
  'INVALID_REQUEST',
  'INVALID_TOPIC_ID',
  'SCHEMA_MISMATCH',
  'NUMBER_OUT_OF_RANGE',
  'BATCH_TOO_LARGE',
  'UNKNOWN_MESSAGE_ID',
  'CONFLICTING_OFFSETS',
  'UNAUTHORIZED',
  'INVALID_TOKEN',
  'TOKEN_EXPIRED',
  'FORBIDDEN',
  'TOPIC_NOT_FOUND',
  'NOT_FOUND',
  'METHOD_NOT_ALLOWED',
  'RATE_LIMITED',
] as const;
export type ErrorCode = (typeof EMITTED_ERROR_CODES)[number];

export const INTERNAL_ERROR_CODES = ['TIMEOUT', 'INTERNAL_SERVER_ERROR'] as const;
export type InternalErrorCode = (typeof INTERNAL_ERROR_CODES)[number];

export type OAuthErrorCode = 'invalid_request' | 'invalid_client' | 'unsupported_grant_type';

/** One violation of a request schema, as listed in `details.errors` / ManagementError `errors`. */
export interface Violation {
  pointer: string;
  message: string;
}

/** The `details` fields the event-streams spec defines beside `code`. */
export interface ErrorDetails {
  errors?: Violation[];
  field?: string;
  position?: number;
  max_messages?: number;
}

/** A failure answered on purpose; anything else thrown is a bug, answered as a 500. */
export abstract class EmulatorError extends Error {}

/** A failure with a `details.code` of the event-streams ErrorResponse. */
export abstract class CodedError extends EmulatorError {
  abstract readonly code: ErrorCode;
  readonly details: ErrorDetails = {};
}

type InvalidRequestCode = Extract<
  ErrorCode,
  | 'INVALID_JSON'
  | 'UNSUPPORTED_CONTENT_TYPE'
  | 'INVALID_REQUEST'
  | 'INVALID_TOPIC_ID'
  | 'SCHEMA_MISMATCH'
  | 'NUMBER_OUT_OF_RANGE'
  | 'BATCH_TOO_LARGE'
  | 'UNKNOWN_MESSAGE_ID'
  | 'CONFLICTING_OFFSETS'
>;

/** The request is malformed, or breaks the spec's schema or a rule of the operation. */
export class InvalidRequest extends CodedError {
  constructor(
    readonly code: InvalidRequestCode,
    message: string,
    readonly details: ErrorDetails = {},
  ) {
    super(message);
  }
}

/** No usable bearer token: none sent, or one unknown, revoked or expired. */
export class Unauthorized extends CodedError {
  constructor(
    readonly code: Extract<ErrorCode, 'UNAUTHORIZED' | 'INVALID_TOKEN' | 'TOKEN_EXPIRED'>,
    message: string,
  ) {
    super(message);
  }
}

/**
 * The caller's workspace was deleted by another emulator on the same Redis, whose announcement has not
 * reached this one yet: Redis refused the write (its liveness key is gone). Answered as a deleted
 * workspace's credentials are: a 401 (the token endpoint's `invalid_client`); the emulator API, which
 * names workspaces, answers the 404 of one not there.
 */
export class WorkspaceGone extends Unauthorized {
  constructor(readonly workspaceId: number) {
    super('INVALID_TOKEN', 'The access token is invalid or was revoked');
  }
}

/**
 * A group commit whose only failures were those of workspaces gone (WorkspaceGone): the requests of
 * those workspaces are refused, the others' changes are committed and answered as they were.
 */
export class WorkspacesGone extends Error {
  constructor(readonly workspaceIds: ReadonlySet<number>) {
    super(`Workspaces ${[...workspaceIds].join(', ')} were deleted by another emulator`);
  }
}

/** The caller's API key lacks the right (its scopes or topics). */
export class Forbidden extends CodedError {
  readonly code = 'FORBIDDEN';
}

/** What the request names does not exist: a topic, an API client or key, an operation. */
export class NotFound extends CodedError {
  constructor(
    message: string,
    readonly code: Extract<ErrorCode, 'TOPIC_NOT_FOUND' | 'NOT_FOUND'> = 'NOT_FOUND',
  ) {
    super(message);
  }
}

/** A workspace the emulator does not serve: never made, or deleted. */
export const noWorkspace = (workspaceId: number) => new NotFound(`No workspace ${workspaceId}`);

/** The path exists in the specs, with other methods: the `Allow` header lists them. */
export class MethodNotAllowed extends CodedError {
  readonly code = 'METHOD_NOT_ALLOWED';

  constructor(
    method: string,
    readonly allowed: readonly string[],
  ) {
    super(`This path has no ${method} operation; it allows ${allowed.join(', ')}`);
  }
}

/** Over the per-key rate limit; the caller may retry after `retryAfterSeconds`. */
export class RateLimited extends CodedError {
  readonly code = 'RATE_LIMITED';

  constructor(readonly retryAfterSeconds: number) {
    super(`Rate limit exceeded, retry in ${retryAfterSeconds} seconds`);
  }
}

/** A fault injected for a client test, with the status and code the test asked for. */
export class InjectedFault extends CodedError {
  constructor(
    readonly status: number,
    readonly code: ErrorCode,
    readonly retryAfterSeconds?: number,
  ) {
    super(`Injected fault (${status})`);
  }
}

/** A limit or uniqueness rule of the workspace refuses the change (the 21st topic, a taken name). */
export class Unprocessable extends EmulatorError {}

/**
 * A management request refused with the status its operation documents for the case: the resource
 * engine's state conflicts and missing references (409, 422 or 400, as each operation's spec says).
 */
export class Refused extends EmulatorError {
  constructor(
    readonly status: number,
    message: string,
    readonly violations: readonly Violation[] = [],
  ) {
    super(message);
  }
}

/** The request or one message of it is over the size limit. */
export class PayloadTooLarge extends EmulatorError {
  constructor(
    readonly maxSize: number,
    readonly currentSize: number,
    readonly detail: string,
  ) {
    super('Payload size too large');
  }
}

/** A server-side failure: injected as a fault, the shared store unavailable, or the stand-in for a bug. */
export class InternalFault extends EmulatorError {
  constructor(
    readonly code: InternalErrorCode,
    message: string,
  ) {
    super(message);
  }
}

/**
 * The shared state store (Redis) did not answer, or refused a write: the operation did not happen (or
 * its answer could not be confirmed), so it is answered as a 500 that a client may retry.
 */
export class StoreUnavailable extends InternalFault {
  constructor(reason: string) {
    super('INTERNAL_SERVER_ERROR', `The emulator's state store (Redis) is unavailable: ${reason}`);
  }
}

/** An RFC 6749 section 5.2 error of the token endpoint. */
export class OAuthError extends EmulatorError {
  constructor(
    readonly code: OAuthErrorCode,
    message: string,
    /** The client's Authorization header did not authenticate it: 401 with a Basic challenge (RFC 6749 5.2). */
    readonly basicAuthFailed = false,
  ) {
    super(message);
  }
}

const UNEXPECTED = new InternalFault('INTERNAL_SERVER_ERROR', 'Internal server error');

/** Any thrown value as the status, headers and error body the spec of `api` defines; a bug becomes a 500. */
export function errorReply(api: SpecName, thrown: unknown): Reply {
  const error = thrown instanceof EmulatorError ? thrown : UNEXPECTED;
  if (api === 'emulator') return emulatorApiReply(error);
  if (error instanceof OAuthError) return oauthReply(error);
  if (api === 'auth') return tokenEndpointReply(error);
  if (api === 'management') return managementReply(error);
  return eventStreamsReply(error);
}

function statusOf(error: CodedError | Unprocessable): number {
  if (error instanceof InjectedFault) return error.status;
  if (error instanceof InvalidRequest) return 400;
  if (error instanceof Unauthorized) return 401;
  if (error instanceof Forbidden) return 403;
  if (error instanceof NotFound) return 404;
  if (error instanceof MethodNotAllowed) return 405;
  if (error instanceof RateLimited) return 429;
  return 422;
}

function headersOf(error: CodedError): Record<string, string> | undefined {
  if (error instanceof MethodNotAllowed) return { allow: error.allowed.join(', ') };
  const seconds = error instanceof RateLimited || error instanceof InjectedFault ? error.retryAfterSeconds : undefined;
  return seconds === undefined ? undefined : { 'retry-after': String(seconds) };
}

function eventStreamsReply(error: EmulatorError): Reply {
  if (error instanceof CodedError) {
    return jsonReply(
      statusOf(error),
      { error: { message: error.message, details: { ...error.details, code: error.code } } },
      headersOf(error),
    );
  }
  if (error instanceof PayloadTooLarge) {
    return jsonReply(413, {
      error: error.message,
      details: error.detail,
      max_size: error.maxSize,
      current_size: error.currentSize,
    });
  }
  return internalServerErrorReply(error);
}

/** What a 500 says: the fault itself, or nothing of an error no fault describes (a defect). */
const failureOf = (error: EmulatorError): InternalFault => (error instanceof InternalFault ? error : UNEXPECTED);

/** InternalServerErrorResponse; any failure without a shape of its own in the event-streams spec is one. */
function internalServerErrorReply(error: EmulatorError): Reply {
  const { code, message } = failureOf(error);
  return jsonReply(500, { error: { message, details: { code } } });
}

/** A deleted workspace's client, as an unknown one is answered; 401 (RFC 6749 5.2 allows it whatever the client sent). */
const GONE_CLIENT = new OAuthError('invalid_client', 'Client authentication failed', true);

/** The token endpoint declares only OAuth errors: a refused request is an `invalid_request`, a failure a `server_error`. */
function tokenEndpointReply(error: EmulatorError): Reply {
  if (error instanceof MethodNotAllowed) {
    return jsonReply(405, { error: 'invalid_request', error_description: error.message }, headersOf(error));
  }
  if (error instanceof WorkspaceGone) return oauthReply(GONE_CLIENT);
  if (error instanceof CodedError) {
    return oauthReply(new OAuthError('invalid_request', error.message));
  }
  const { message } = failureOf(error);
  return jsonReply(500, { error: 'server_error', error_description: message }, { 'cache-control': 'no-store' });
}

function oauthReply(error: OAuthError): Reply {
  const challenge = error.basicAuthFailed ? { 'www-authenticate': 'Basic realm="oauth2"' } : undefined;
  return jsonReply(
    error.basicAuthFailed ? 401 : 400,
    { error: error.code, error_description: error.message },
    { ...challenge, 'cache-control': 'no-store' },
  );
}

/**
 * The violations as ManagementError's `errors`: messages by field, a nested field as `parent.child` and an
 * array item as `items.0` (the platform's form); a violation of the whole body is listed under `base`.
 */
function errorsByField(violations: readonly Violation[]): Record<string, string[]> {
  const byField: Record<string, string[]> = Object.create(null);
  for (const { pointer, message } of violations) {
    const field = pointer.split('/').filter(Boolean).join('.') || 'base';
    byField[field] = [...(byField[field] ?? []), message];
  }
  return byField;
}

/** A body that is not JSON (or not UTF-8, which JSON is), as ManagementError names it: under `body`. */
const NOT_JSON: readonly Violation[] = [{ pointer: '/body', message: 'is not valid JSON' }];

/** ManagementError: the message, and for a request that breaks the schema its messages by field. */
function managementReply(error: EmulatorError): Reply {
  if (error instanceof Refused) {
    const body =
      error.violations.length === 0
        ? { message: error.message }
        : { message: error.message, errors: errorsByField(error.violations) };
    return jsonReply(error.status, body);
  }
  if (error instanceof CodedError || error instanceof Unprocessable) {
    const violations =
      error instanceof CodedError ? (error.details.errors ?? (error.code === 'INVALID_JSON' ? NOT_JSON : [])) : [];
    const body =
      violations.length === 0
        ? { message: error.message }
        : { message: error.message, errors: errorsByField(violations) };
    return jsonReply(statusOf(error), body, error instanceof CodedError ? headersOf(error) : undefined);
  }
  return jsonReply(500, { message: error instanceof InternalFault ? error.message : UNEXPECTED.message });
}

/** A 401 of the emulator API names its scheme (RFC 9110 11.6.1): the admin token, a bearer token. */
const ADMIN_CHALLENGE = { 'www-authenticate': 'Bearer realm="platform-api-mock"' };

/** EmulatorError: the message, and for a request that breaks its schema the violations by JSON pointer. */
function emulatorApiReply(error: EmulatorError): Reply {
  if (error instanceof WorkspaceGone) return emulatorApiReply(noWorkspace(error.workspaceId));
  if (error instanceof PayloadTooLarge) return jsonReply(413, { message: `${error.message}: ${error.detail}` });
  if (error instanceof Refused) return jsonReply(error.status, { message: error.message });
  if (error instanceof CodedError) {
    const errors = error.details.errors ?? [];
    const body = errors.length === 0 ? { message: error.message } : { message: error.message, errors };
    return jsonReply(statusOf(error), body, error instanceof Unauthorized ? ADMIN_CHALLENGE : headersOf(error));
  }
  return jsonReply(500, { message: failureOf(error).message });
}
