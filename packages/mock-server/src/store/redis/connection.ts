// The connections of one emulator to the Redis it shares with others: one for commands (scripts run on
// it in the order they are sent, which is the order of the emulator's writes) and one subscribed to the
// change feed. Both reconnect on their own after a loss; meanwhile every command fails at once (no
// offline queue), so a request answers a 500 instead of waiting for a Redis that may not come back.
import { hash, randomBytes } from 'node:crypto';
import { createClient, ErrorReply, type RedisArgument } from '@redis/client';
import type { Logger } from 'pino';
import { StoreUnavailable } from '../../errors.js';
import { redactedUrl } from './url.js';

/** Refused at start: Redis cannot be reached, or holds another version's data under the prefix. */
export class RedisStorageError extends Error {}

/** Raised with every change of the keys' layout (scripts.ts): another version's data is refused, not misread. */
const LAYOUT_VERSION = '1';

/** Between reconnection attempts once connected: quick at first, then once a second until Redis is back. */
const reconnectDelay = (retries: number) => Math.min(25 * 2 ** retries, 1000);

/** The names of the keys (and the channel) of one shared state, all under its prefix. */
export class RedisKeys {
  readonly types: string;
  readonly counters: string;
  readonly positions: string;
  readonly layout: string;
  readonly channel: string;
  readonly starting: string;

  constructor(readonly prefix: string) {
    this.types = `${prefix}types`;
    this.counters = `${prefix}counters`;
    this.positions = `${prefix}positions`;
    this.layout = `${prefix}layout`;
    this.channel = `${prefix}changes`;
    this.starting = `${prefix}starting`;
  }

  topic(topicId: number): string {
    return `${this.prefix}topic:${topicId}`;
  }

  messages(topicId: number): string {
    return `${this.prefix}messages:${topicId}`;
  }

  // The two below are also built by the scripts that reach types by prefix (scripts.ts TYPE_KEYS).
  items(type: string): string {
    return `${this.prefix}items:${type}`;
  }

  order(type: string): string {
    return `${this.prefix}order:${type}`;
  }
}

/** A Lua script, run by its digest (Redis keeps loaded scripts until it restarts). */
export class Script {
  readonly sha: string;

  constructor(readonly source: string) {
    this.sha = hash('sha1', source);
  }
}

type Client = ReturnType<typeof createClient>;

export class RedisConnection {
  /** Names this emulator in what it announces, so it skips its own announcements. */
  readonly origin = randomBytes(6).toString('base64url');
  /** Writes sent and not yet confirmed; `commit` waits for them. */
  private unconfirmed: Promise<unknown>[] = [];

  private constructor(
    readonly client: Client,
    readonly subscriber: Client,
    readonly keys: RedisKeys,
    /** True when the prefix held no state before this start. */
    readonly created: boolean,
    private readonly replyTimeoutMs: number,
  ) {}

  /** Connects both clients; refuses (RedisStorageError) when Redis cannot be reached or holds another layout. */
  static async open(url: string, prefix: string, logger: Logger, replyTimeoutMs = 5000): Promise<RedisConnection> {
    const where = redactedUrl(url);
    let connected = false;
    const connect = async (name: string) => {
      let client: Client;
      try {
        client = createClient({
          url,
          disableOfflineQueue: true,
          socket: {
            // At start a failure is final (the emulator exits with it); once running, Redis is waited for.
            reconnectStrategy: (retries, cause) => (connected ? reconnectDelay(retries) : cause),
          },
        });
      } catch (error) {
        throw new RedisStorageError(`Cannot use Redis at ${where}: ${(error as Error).message}`);
      }
      let lost = false;
      client.on('error', (error: Error) => {
        if (!connected || lost) return;
        lost = true;
        logger.error({ err: error }, `lost the ${name} connection to Redis at ${where}; reconnecting`);
      });
      client.on('ready', () => {
        if (!lost) return;
        lost = false;
        logger.warn(`the ${name} connection to Redis at ${where} is back`);
      });
      try {
        await client.connect();
      } catch (error) {
        client.destroy();
        throw new RedisStorageError(`Cannot connect to Redis at ${where}: ${(error as Error).message}`);
      }
      return client;
    };
    const client = await connect('command');
    let subscriber: Client;
    try {
      subscriber = await connect('change feed');
    } catch (error) {
      client.destroy();
      throw error;
    }
    connected = true;
    const keys = new RedisKeys(prefix);
    try {
      const created = (await client.sendCommand<string | null>(['SET', keys.layout, LAYOUT_VERSION, 'NX'])) === 'OK';
      const layout = created ? LAYOUT_VERSION : String(await client.sendCommand(['GET', keys.layout]));
      if (layout !== LAYOUT_VERSION) {
        throw new RedisStorageError(
          `Redis at ${where} holds state of another version of platform-api-mock under the prefix ${prefix} ` +
            `(layout ${layout}; this version uses ${LAYOUT_VERSION}): use another prefix or database`,
        );
      }
      return new RedisConnection(client, subscriber, keys, created, replyTimeoutMs);
    } catch (error) {
      client.destroy();
      subscriber.destroy();
      throw error instanceof RedisStorageError ? error : new RedisStorageError(`Redis at ${where}: ${error}`);
    }
  }

  /** Runs a script; a failure to reach Redis (or a write it refuses) is a StoreUnavailable, a script's own error is kept. */
  async run(script: Script, keys: string[], args: RedisArgument[]): Promise<unknown> {
    const rest = [String(keys.length), ...keys, ...args];
    try {
      try {
        return await this.answered(['EVALSHA', script.sha, ...rest]);
      } catch (error) {
        // Loaded once per Redis process: after its restart, the first run sends the source again.
        if (!(error instanceof ErrorReply && error.message.startsWith('NOSCRIPT'))) throw error;
        return await this.answered(['EVAL', script.source, ...rest]);
      }
    } catch (error) {
      throw scriptError(error) ?? unavailable(error);
    }
  }

  /** A command whose failure is a StoreUnavailable. */
  async send(command: RedisArgument[]): Promise<unknown> {
    try {
      return await this.answered(command);
    } catch (error) {
      throw unavailable(error);
    }
  }

  /**
   * The command's answer, or a StoreUnavailable once Redis has not answered for replyTimeoutMs: a Redis
   * paused or cut off keeps its connection open, and node-redis waits without limit. The command stays
   * sent: Redis may still apply it when it resumes (as after any 500, the outcome is unknown).
   */
  private answered(command: RedisArgument[]): Promise<unknown> {
    let timer: NodeJS.Timeout | undefined;
    const late = new Promise<never>((_, reject) => {
      timer = setTimeout(
        () => reject(new StoreUnavailable(`Redis did not answer within ${this.replyTimeoutMs} ms`)),
        this.replyTimeoutMs,
      );
    });
    return Promise.race([this.client.sendCommand(command), late]).finally(() => clearTimeout(timer));
  }

  /**
   * A write the emulator does not wait for (the domain writes through): `commit` settles once it is
   * confirmed, and fails if it failed. Writes are confirmed in order, as they were sent on one connection.
   */
  unwaited(write: Promise<unknown>): Promise<void> {
    const confirmed = write.then(() => undefined);
    this.unconfirmed.push(confirmed);
    // Its failure is reported by commit; this only keeps it from being an unhandled rejection.
    confirmed.catch(() => {});
    return confirmed;
  }

  /** Settles once every write so far is confirmed by Redis; undefined when none is waiting. */
  commit(): Promise<void> | undefined {
    if (this.unconfirmed.length === 0) return undefined;
    const writes = this.unconfirmed;
    this.unconfirmed = [];
    return Promise.all(writes).then(() => undefined);
  }

  async close(): Promise<void> {
    await Promise.allSettled(this.unconfirmed);
    await Promise.all([this.client, this.subscriber].map(closeClient));
  }
}

/** Graceful when connected (pending replies are read), at once otherwise. */
async function closeClient(client: Client): Promise<void> {
  if (!client.isReady) {
    client.destroy();
    return;
  }
  try {
    await client.close();
  } catch {
    client.destroy();
  }
}

/** The error a script raised on purpose (redis.error_reply in scripts.ts). */
export const isNoTopic = (error: unknown) => error instanceof ErrorReply && error.message.startsWith('NOTOPIC ');

function scriptError(error: unknown): ErrorReply | undefined {
  return isNoTopic(error) ? (error as ErrorReply) : undefined;
}

export function unavailable(error: unknown): StoreUnavailable {
  return error instanceof StoreUnavailable ? error : new StoreUnavailable((error as Error).message);
}
