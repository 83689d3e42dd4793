import type { Client, FetchOptions, FetchResponse } from 'openapi-fetch';
import { ApiError, type MergedErrorBodies } from './errors.js';
import type { components, operations, paths } from './generated/event-streams.js';
import type { eventStreamsServers } from './generated/servers.js';
import { errorOf } from './options.js';

export type EventStreamsDataCenter = keyof typeof eventStreamsServers;
export type Message = components['schemas']['Message'];
export type Payload = components['schemas']['PublishMessageRequest'];

/**
 * openapi-fetch's POST with `init` typed by the path alone (openapi-fetch infers it from the
 * argument), so that TypeScript also rejects misspelt optional fields of a request body.
 */
type CheckedPost = <Path extends keyof paths>(
  url: Path,
  init: Omit<FetchOptions<paths[Path]['post']>, 'parseAs'>,
) => Promise<FetchResponse<paths[Path]['post'], {}, `${string}/${string}`>>;

/** The openapi-fetch client of the event-streams API. */
export type EventStreamsRawClient = Omit<Client<paths>, 'POST'> & { POST: CheckedPost };

/** Error bodies of the event-streams API by status: ErrorResponse, 413 SizeLimitErrorResponse, 500 InternalServerErrorResponse. */
export type EventStreamsErrorBodies = MergedErrorBodies<operations[keyof operations]>;

/** An error answer of the event-streams API; `is(413)` etc. narrow `body`. */
export class EventStreamsError extends ApiError<EventStreamsErrorBodies> {
  override readonly name: string = 'EventStreamsError';
}

export const CONSUME_PATH = '/api/v1/topics/{topic_id}/consume';
export const PUBLISH_PATH = '/api/v1/topics/{topic_id}/publish';
export const BATCH_PUBLISH_PATH = '/api/v1/batch/topics/{topic_id}/publish';

/** The EventStreamsError of a POST to `path` that got an error answer; `now` dates a RETRY-AFTER given as an HTTP date. */
export function eventStreamsError(
  path: keyof paths,
  response: Response,
  body: unknown,
  now: () => number,
): EventStreamsError {
  return errorOf(EventStreamsError, { method: 'POST', path }, response, body, now);
}
