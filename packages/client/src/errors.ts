/** The JSON body of one response object of the generated types (undefined when it has none). */
type BodyOf<Response> = Response extends { content: infer Content } ? Content[keyof Content] : undefined;

/**
 * The error bodies of a generated operation, keyed by HTTP status (4xx and 5xx only),
 * e.g. `ErrorBodies<operations['publish_message']>[413]` is the SizeLimitErrorResponse.
 */
export type ErrorBodies<Operation> = Operation extends { responses: infer Responses }
  ? {
      [Status in keyof Responses as Status extends number
        ? `${Status}` extends `4${string}` | `5${string}`
          ? Status
          : never
        : never]: BodyOf<Responses[Status]>;
    }
  : never;

/** Status-to-body maps of several operations merged into one (the union of the bodies per status). */
export type MergedErrorBodies<Operation> = {
  [Status in Operation extends unknown ? keyof ErrorBodies<Operation> : never]: Operation extends unknown
    ? Status extends keyof ErrorBodies<Operation>
      ? ErrorBodies<Operation>[Status]
      : never
    : never;
};

/** Where a failed request went; used only to word the message (never the URL or headers). */
export interface RequestLabel {
  method: string;
  /** The OpenAPI path template, e.g. `/api/v1/topics/{topic_id}/publish`. */
  path: string;
}

/**
 * An HTTP error answer of the API: the status, the parsed body typed per status, and for 429
 * the wait the server asked for. `is(status)` narrows `body` to that status's schema.
 *
 * `Bodies` maps statuses to body types. The helpers throw the subclasses EventStreamsError
 * (ErrorResponse, SizeLimitErrorResponse for 413, InternalServerErrorResponse for 500) and
 * TokenError (OAuth errors of the token endpoint); `instanceof` picks the typed one.
 * The message carries the method, the path template, the status and the body's code or text,
 * never headers, tokens or secrets.
 */
export class ApiError<
  Bodies extends object = Record<number, unknown>,
  Status extends keyof Bodies & number = keyof Bodies & number,
> extends Error {
  override readonly name: string = 'ApiError';
  readonly status: Status;
  readonly body: Bodies[Status];
  /** For 429: milliseconds the server asked to wait (RETRY-AFTER), when it sent a valid value. */
  readonly retryAfterMs: number | undefined;
  /**
   * The raw answer (its body already read into `body`): headers such as a request id. Not
   * enumerable, so that Node's printing of the error (console.log, an uncaught throw) shows the
   * message, the stack, `status` and `body`, not the Response's internals (some 70 lines).
   */
  declare readonly response: Response | undefined;

  // Takes any status and body: they come from the wire; the class's type parameters describe them.
  constructor(label: RequestLabel, status: number, body: unknown, retryAfterMs?: number, response?: Response) {
    super(`${label.method} ${label.path} failed with ${status}${describe(body)}`);
    this.status = status as Status;
    this.body = body as Bodies[Status];
    this.retryAfterMs = retryAfterMs;
    Object.defineProperty(this, 'response', { value: response, enumerable: false });
  }

  /** True when the status is `status`; narrows `body` to that status's schema. */
  is<Which extends Status>(status: Which): this is ApiError<Bodies, Which> {
    return this.status === status;
  }
}

// The code and text of the known error bodies: ErrorResponse / InternalServerErrorResponse
// ({ error: { message, details: { code } } }), SizeLimitErrorResponse and OAuth errors
// ({ error: string, details / error_description }), and the management API's { message }.
function describe(body: unknown): string {
  if (typeof body === 'string') return body ? `: ${body.slice(0, 200)}` : '';
  if (typeof body !== 'object' || body === null) return '';
  const { error, details, error_description, message } = body as Record<string, unknown>;
  if (typeof error === 'string') return `: ${[error, details ?? error_description].filter(Boolean).join(' - ')}`;
  // The management API's ManagementError: { message, errors }.
  if (typeof message === 'string' && error === undefined) return `: ${message.slice(0, 200)}`;
  if (typeof error === 'object' && error !== null) {
    const { message, details: inner } = error as { message?: unknown; details?: { code?: unknown } };
    return `: ${[inner?.code, message].filter(Boolean).join(' - ')}`;
  }
  return '';
}

/** One message of a publishBatch call that was not stored. */
export interface BatchFailure {
  /** 0-based position in the `payloads` passed to publishBatch. */
  position: number;
  /** The server's reason, `no result entry`, an HTTP error, or `not sent` (a later batch). */
  reason: string;
}

/**
 * publishBatch gave up: `failures` lists every position without a stored message id (in input
 * order) and `messageIds` has the ids of the positions that were stored, so that only the
 * failed positions need to be sent again. `cause` is the ApiError when a request failed as a whole.
 *
 * After a 500 the positions of that request are listed with the 500 as reason, but the platform
 * does not say whether they were stored (see the README).
 */
export class PublishBatchError extends Error {
  override readonly name = 'PublishBatchError';
  readonly failures: readonly BatchFailure[];
  readonly messageIds: readonly (string | undefined)[];

  constructor(failures: BatchFailure[], messageIds: (string | undefined)[], attempts: number, cause?: unknown) {
    const listed = failures.slice(0, 5).map((f) => `#${f.position}: ${f.reason}`);
    if (failures.length > listed.length) listed.push(`and ${failures.length - listed.length} more`);
    super(
      `${failures.length} of ${messageIds.length} messages were not stored (attempts per batch: ${attempts}): ${listed.join('; ')}`,
      { cause },
    );
    this.failures = failures;
    this.messageIds = messageIds;
  }
}

/**
 * No HTTP answer came back: the connection failed or was lost (`cause` is the fetch error), after
 * the retries the request was allowed. For publish, the platform may still have stored the message.
 */
export class ConnectionError extends Error {
  override readonly name: string = 'ConnectionError';
  readonly method: string;
  /** The OpenAPI path template of the request. */
  readonly path: string;

  constructor(label: RequestLabel, cause: unknown, reason = cause instanceof Error ? cause.message : String(cause)) {
    super(`${label.method} ${label.path} got no answer: ${reason}`, { cause });
    this.method = label.method;
    this.path = label.path;
  }
}

/** An attempt got no answer within `timeoutMs` (the client's or the request's `timeoutMs`). */
export class TimeoutError extends ConnectionError {
  override readonly name: string = 'TimeoutError';
  readonly timeoutMs: number;

  constructor(label: RequestLabel, timeoutMs: number) {
    super(label, undefined, `no response within ${timeoutMs} ms`);
    this.timeoutMs = timeoutMs;
  }
}

/**
 * A message is larger than the platform accepts (`x-platform-limits.maxMessageBytes`, bytes of its
 * JSON): refused before anything was sent. `position` is its index in a publishBatch call.
 */
export class PayloadTooLargeError extends RangeError {
  override readonly name = 'PayloadTooLargeError';
  readonly size: number;
  readonly maxSize: number;
  readonly position: number | undefined;

  constructor(size: number, maxSize: number, position?: number) {
    const which = position === undefined ? 'The message' : `Message ${position}`;
    super(`${which} is ${size} bytes of JSON; the platform accepts at most ${maxSize}`);
    this.size = size;
    this.maxSize = maxSize;
    this.position = position;
  }
}
