/**
 * What the client reports to an optional `logger`. Events carry the method and the path template
 * (`/api/v1/topics/{topic_id}/publish`), never a URL, a header, a body, a token or a secret.
 */
export type LogEvent =
  /** One attempt of a request got an answer (`status`) or none (`error`). */
  | {
      type: 'request';
      method: string;
      path: string;
      attempt: number;
      status?: number;
      error?: 'network' | 'timeout';
      durationMs: number;
    }
  /** The request is sent again after `waitMs`; `reason` says why (`429`, `500`, `network`, `timeout`, `401`). */
  | { type: 'retry'; method: string; path: string; attempt: number; waitMs: number; reason: string }
  /** A token provider obtained a token: the first one, one to replace an expiring one, or one after a 401. */
  | { type: 'token'; reason: 'first' | 'expiring' | 'rejected'; expiresInSeconds: number }
  /** A consumer saved its checkpoint. */
  | { type: 'checkpoint'; topicId: number; messageId: string }
  /** A consumer's checkpoint is no longer retained (400 UNKNOWN_MESSAGE_ID); `resumeFrom` says where it goes on. */
  | { type: 'checkpoint-expired'; topicId: number; messageId: string; resumeFrom: 'since-time' | 'oldest' };

/** Receives the client's log events, e.g. `(event) => pino.debug(event)`; must not throw. */
export type Logger = (event: LogEvent) => void;
