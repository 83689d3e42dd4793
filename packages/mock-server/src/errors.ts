// Every error body the emulator sends is built here, one function per shape of the specs:
// ErrorResponse, SizeLimitErrorResponse and InternalServerErrorResponse (event-streams),
// ManagementError (management API) and the RFC 6749 error of the token endpoint.

/** The `details.code` values the emulator can send; each must be listed in the spec's `info.x-error-codes`. */
export const EMITTED_ERROR_CODES = [
  'INVALID_JSON',
  'UNSUPPORTED_CONTENT_TYPE',
  'INVALID_REQUEST',
  'INVALID_TOPIC_ID',
  'SCHEMA_MISMATCH',
  'BATCH_TOO_LARGE',
  'UNKNOWN_MESSAGE_ID',
  'CONFLICTING_OFFSETS',
  'UNAUTHORIZED',
  'INVALID_TOKEN',
  'TOKEN_EXPIRED',
  'FORBIDDEN',
  'TOPIC_NOT_FOUND',
  'NOT_FOUND',
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

/** A failed request; `api` decides the body shape it is rendered in. */
export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly code: ErrorCode,
    message: string,
    readonly details: Record<string, unknown> = {},
    readonly headers: Record<string, string> = {},
  ) {
    super(message);
  }
}

/** 413: the request or one message of it is over the size limit. */
export class SizeLimitError extends Error {
  constructor(
    readonly maxSize: number,
    readonly currentSize: number,
    readonly detail: string,
  ) {
    super('Payload size too large');
  }
}

/** 500 with the InternalServerErrorResponse shape (only injected as a fault, or an unexpected bug). */
export class InternalError extends Error {
  constructor(
    readonly code: InternalErrorCode,
    message: string,
  ) {
    super(message);
  }
}

/** An RFC 6749 section 5.2 error of the token endpoint. */
export class OAuthError extends Error {
  constructor(
    readonly status: 400 | 401,
    readonly code: OAuthErrorCode,
    message: string,
  ) {
    super(message);
  }
}

export function errorResponse(code: ErrorCode, message: string, details: Record<string, unknown> = {}) {
  return { error: { message, details: { ...details, code } } };
}

export function sizeLimitErrorResponse(error: SizeLimitError) {
  return { error: error.message, details: error.detail, max_size: error.maxSize, current_size: error.currentSize };
}

export function internalServerErrorResponse(code: InternalErrorCode, message: string) {
  return { error: { message, details: { code } } };
}

export function managementError(message: string, violations: Violation[] = []) {
  return violations.length === 0
    ? { message }
    : { message, errors: violations.map((v) => ({ field: v.pointer, message: v.message })) };
}

export function oauthError(code: OAuthErrorCode, description: string) {
  return { error: code, error_description: description };
}
