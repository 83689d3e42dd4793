import type { components, operations, paths } from '@platform-api/spec/types/event-streams';
import type { Client, FetchOptions, FetchResponse } from 'openapi-fetch';
import { ApiError, type MergedErrorBodies } from './errors.js';
import type { EventStreamsErrorCodes } from './generated/error-codes.js';
import type { eventStreamsServers } from './generated/servers.js';
import type { Logger } from './log.js';
import { errorOf, type RequestOptions } from './options.js';
import type { RetryPolicy } from './retry.js';

export type EventStreamsDataCenter = keyof typeof eventStreamsServers;
export type Message = components['schemas']['Message'];
export type Payload = components['schemas']['PublishMessageRequest'];

/** A consumed message whose payload has the type `T` (see `events.topic<T>()` and `platform-api typegen`). */
export type TypedMessage<T> = Omit<Message, 'payload'> & { payload: T };

/**
 * openapi-fetch's POST with `init` typed by the path alone (openapi-fetch infers it from the
 * argument), so that TypeScript also rejects misspelt optional fields of a request body.
 */
type CheckedPost = <Path extends keyof paths>(
  url: Path,
  init: Omit<FetchOptions<paths[Path]['post']>, 'parseAs'> & Omit<RequestOptions, 'signal'>,
) => Promise<FetchResponse<paths[Path]['post'], object, `${string}/${string}`>>;

/** The openapi-fetch client of the event-streams API. */
export type EventStreamsRawClient = Omit<Client<paths>, 'POST'> & { POST: CheckedPost };

/** A `details.code` of the event-streams API (`info.x-error-codes`), all of them or those of one status. */
export type EventStreamsErrorCode<Status extends number = number> = {
  [Code in keyof EventStreamsErrorCodes]: EventStreamsErrorCodes[Code] extends Status ? Code : never;
}[keyof EventStreamsErrorCodes];

type ErrorResponse = components['schemas']['ErrorResponse'];

/** An ErrorResponse whose `details.code` is one of the codes documented for its status. */
export type CodedErrorResponse<Code extends string> = Omit<ErrorResponse, 'error'> & {
  error: Omit<ErrorResponse['error'], 'details'> & { details: { code: Code; [key: string]: unknown } };
};

type WithCodes<Bodies> = {
  [Status in keyof Bodies]: Bodies[Status] extends ErrorResponse
    ? [EventStreamsErrorCode<Status & number>] extends [never]
      ? Bodies[Status]
      : CodedErrorResponse<EventStreamsErrorCode<Status & number>>
    : Bodies[Status];
};

/**
 * Error bodies of the event-streams API by status: ErrorResponse (with `details.code` typed from
 * `x-error-codes`), 413 SizeLimitErrorResponse, 500 InternalServerErrorResponse.
 */
export type EventStreamsErrorBodies = WithCodes<MergedErrorBodies<operations[keyof operations]>>;

/** An error answer of the event-streams API; `is(413)` etc. narrow `body`. */
export class EventStreamsError extends ApiError<EventStreamsErrorBodies> {
  override readonly name: string = 'EventStreamsError';
}

export const CONSUME_PATH = '/api/v1/topics/{topic_id}/consume';
export const PUBLISH_PATH = '/api/v1/topics/{topic_id}/publish';
export const BATCH_PUBLISH_PATH = '/api/v1/batch/topics/{topic_id}/publish';

/** What the helpers (publish, consume, publishBatch, subscribe) share. */
export interface Helpers {
  client: EventStreamsRawClient;
  retry: RetryPolicy;
  /** The client's timeout per attempt (0: none). */
  timeoutMs: number;
  logger: Logger | undefined;
  limits: { maxMessageBytes: number; maxBatchMessages: number };
}

/** The EventStreamsError of a POST to `path` that got an error answer; `now` dates a RETRY-AFTER given as an HTTP date. */
export function eventStreamsError(
  path: keyof paths,
  response: Response,
  body: unknown,
  now: () => number,
): EventStreamsError {
  return errorOf(EventStreamsError, { method: 'POST', path }, response, body, now);
}
