// Turns an injected fault into the error the operation's spec declares for that status.
import type { Limits } from './context.js';
import {
  ApiError,
  EMITTED_ERROR_CODES,
  type ErrorCode,
  INTERNAL_ERROR_CODES,
  InternalError,
  type InternalErrorCode,
  OAuthError,
  SizeLimitError,
} from './errors.js';
import type { FaultSpec } from './faults.js';
import { ManagementFailure } from './reply.js';
import type { Operation } from './spec.js';

const DEFAULT_CODES: Record<number, ErrorCode> = {
  400: 'INVALID_REQUEST',
  401: 'INVALID_TOKEN',
  403: 'FORBIDDEN',
  404: 'TOPIC_NOT_FOUND',
  429: 'RATE_LIMITED',
};

/** Why the fault cannot be answered as the operation's spec requires, or undefined when it can. */
export function faultProblem(operation: Operation | undefined, fault: FaultSpec): string | undefined {
  if (!operation) return 'Unknown operation: use an operationId of the specs';
  if (fault.retryAfter !== undefined && !(Number.isSafeInteger(fault.retryAfter) && fault.retryAfter >= 0)) {
    return `retryAfter must be a whole number of seconds, not ${JSON.stringify(fault.retryAfter)}`;
  }
  if (!operation.responses[String(fault.status)] || fault.status < 400) {
    return `${operation.operationId} declares no ${fault.status} error response`;
  }
  if (operation.api !== 'event-streams' || fault.code === undefined) return undefined;
  const allowed: readonly string[] = fault.status === 500 ? INTERNAL_ERROR_CODES : EMITTED_ERROR_CODES;
  return allowed.includes(fault.code) ? undefined : `code must be one of ${allowed.join(', ')}`;
}

export function faultError(operation: Operation, fault: FaultSpec, limits: Limits): Error {
  const message = `Injected fault (${fault.status})`;
  const retryAfter = { 'retry-after': String(fault.retryAfter ?? 1) };
  if (operation.api === 'auth') {
    return fault.status === 401
      ? new OAuthError(401, 'invalid_client', message)
      : new OAuthError(400, 'invalid_request', message);
  }
  if (fault.status === 500)
    return new InternalError((fault.code as InternalErrorCode) ?? 'INTERNAL_SERVER_ERROR', message);
  if (fault.status === 413) return new SizeLimitError(limits.maxMessageBytes, limits.maxMessageBytes + 1, message);
  if (operation.api === 'management' && fault.status !== 429) return new ManagementFailure(fault.status, message);
  const code = (fault.code as ErrorCode | undefined) ?? DEFAULT_CODES[fault.status] ?? 'INVALID_REQUEST';
  return new ApiError(fault.status, code, message, {}, fault.status === 429 ? retryAfter : {});
}
