// The options of startMockServer, and the limits they resolve to with the spec's defaults.
import { positiveInteger } from '@platform-api/spec/conventions';
import type { Limits } from './domain/limits.js';
import { platformLimits, type Specs } from './spec/bundles.js';
import type { MessageStore } from './store/message-store.js';
import type { Durability } from './store/sqlite/data-dir.js';

export type LogLevel = 'silent' | 'error' | 'warn' | 'info' | 'debug';

export interface MockServerOptions {
  /** Default '127.0.0.1'. */
  host?: string;
  /**
   * The token the fleet-level calls of the emulator API need (`Authorization: Bearer <token>`): making,
   * listing, reading and deleting workspaces, and naming another tenant's state. Default: none on
   * loopback, a new one (`MockServer.adminToken`) when `host` is beyond it.
   */
  adminToken?: string;
  /** Default 0: a free port. */
  port?: number;
  /** Client ID of the bootstrap API key (every right); generated when absent. */
  clientId?: string;
  clientSecret?: string;
  /** Lifetime of access tokens; default 3600. */
  tokenTtlSeconds?: number;
  limits?: {
    /** Largest consume batch_size (larger requests are reduced to it); default 50. */
    maxBatchSize?: number;
    /** Largest message, in bytes of JSON; default 1048576. */
    maxMessageBytes?: number;
    /** Most messages in one batch publish; default 100. */
    maxBatchMessages?: number;
    /** Requests per minute per API key on the event-streams API; default off. */
    rateLimitPerMinute?: number;
  };
  /** Milliseconds since the epoch; token expiry and retention use it. Default Date.now. */
  clock?: () => number;
  /**
   * Answered requests of the platform's APIs kept in the request journal (`/_emulator/requests`),
   * the oldest dropped first; 0 turns the journal off. Default 10,000.
   */
  journalSize?: number;
  /** Default 'silent'. Per-request lines are logged at 'debug'. */
  logLevel?: LogLevel;
  /** Folder of the rendered docs served under /docs/; default the built @platform-api/docs package. */
  docsDir?: string;
  /** Folder of the built web console served under /_emulator/console/; default the built @platform-api/console package. */
  consoleDir?: string;
  /**
   * Folder of the bundled specs (`event-streams.json`, `auth.json`, `management.json`) to serve; default the
   * installed @platform-api/spec. The spec author's live loop (`npm run dev`) serves the bundles it just made.
   */
  specDir?: string;
  /** Where messages are kept; default a new in-memory store using `clock`. Not with `dataDir` or `redisUrl`. */
  store?: MessageStore;
  /**
   * 'engine' (default): the resource engine answers every management operation that is not hand-written
   * (the spec annotates each with `x-resource`); 'prism': Prism answers them, from the spec's examples.
   */
  mode?: 'engine' | 'prism';
  /** A state document (see the README) loaded at start. */
  seed?: unknown;
  /** A float in [0, 1), like Math.random (the default); the resource engine's UUIDs come from it. */
  random?: () => number;
  /**
   * A directory for a SQLite database that keeps every piece of state across restarts and crashes
   * (created when missing, locked while the emulator runs). Default none: everything in memory.
   */
  dataDir?: string;
  /**
   * With `dataDir`: 'full' (default) answers a change only once it is on disk (fsync); 'relaxed'
   * once it is written, which survives a crash of the emulator but not of the machine.
   */
  durability?: Durability;
  /**
   * `redis://HOST:PORT[/DB]`, or a Redis Cluster by some of its nodes (`redis+cluster://HOST:PORT,HOST:PORT`):
   * every piece of state lives in this Redis, shared by every emulator given the same URL and prefix
   * (see the README and SCALING.md). Not with `store` or `dataDir`.
   */
  redisUrl?: string;
  /** With `redisUrl`: the prefix of every key (and channel); default 'platform-api-mock:'. */
  redisPrefix?: string;
  /**
   * With `redisUrl`: how long a request waits for Redis to answer before it is answered 500 (a Redis
   * paused or cut off without closing its connection); default 5000 ms.
   */
  redisReplyTimeoutMs?: number;
}

export const DEFAULT_JOURNAL_SIZE = 10_000;
export const DEFAULT_REDIS_PREFIX = 'platform-api-mock:';
export const DEFAULT_REDIS_REPLY_TIMEOUT_MS = 5000;

export function resolveLimits(specs: Specs, given: NonNullable<MockServerOptions['limits']>): Limits {
  const spec = platformLimits(specs);
  const maxBatchSize = positiveInteger('limits.maxBatchSize', given.maxBatchSize ?? spec.consumeBatchSizeMax);
  return {
    maxBatchSize,
    defaultBatchSize: Math.min(spec.consumeBatchSizeDefault, maxBatchSize),
    maxMessageBytes: positiveInteger('limits.maxMessageBytes', given.maxMessageBytes ?? spec.maxMessageBytes),
    maxBatchMessages: positiveInteger('limits.maxBatchMessages', given.maxBatchMessages ?? spec.maxBatchMessages),
    rateLimitPerMinute:
      given.rateLimitPerMinute === undefined
        ? undefined
        : positiveInteger('limits.rateLimitPerMinute', given.rateLimitPerMinute),
  };
}
