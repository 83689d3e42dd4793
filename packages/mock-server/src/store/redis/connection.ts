// The connections of one emulator to the Redis it shares with others, one server or a Redis Cluster:
// commands go on one connection per server (scripts run in the order they are sent, which is the order
// of the emulator's writes), subscriptions on another. They reconnect on their own after a loss;
// meanwhile every command fails at once (no offline queue), so a request answers a 500 instead of
// waiting for a Redis that may not come back.
import { randomBytes } from 'node:crypto';
import { createClient, createCluster, ErrorReply, type RedisArgument } from '@redis/client';
import { StoreUnavailable, WorkspaceGone } from '../../errors.js';
import type { Logger } from '../../logger.js';
import { ifLive, type LiveScriptName, SCRIPTS, type ScriptName } from './scripts.js';
import { clusterUrl, redactedUrl } from './url.js';

/** Refused at start: Redis cannot be reached, or holds another version's data under the prefix. */
export class RedisStorageError extends Error {}

/** Raised with every change of the keys' layout (scripts.ts): another version's data is refused, not misread. */
const LAYOUT_VERSION = '3';

/** Between reconnection attempts once connected: quick at first, then once a second until Redis is back. */
const reconnectDelay = (retries: number) => Math.min(25 * 2 ** retries, 1000);

/**
 * The names of the keys (and channels) of one shared state, all under its prefix. A hash tag (`{...}`)
 * puts what one script touches in one cluster slot: a topic's fields, messages and wake-up channel; and
 * every resource type's items and order with the types, counters and the change channel (one slot for
 * all resources, so a snapshot or restore of several types stays one atomic script).
 */
export class RedisKeys {
  readonly layout: string;
  readonly starting: string;
  /** What every resource key starts with (scripts.ts TYPE_KEYS builds a type's keys from it too). */
  readonly resources: string;
  readonly types: string;
  readonly counters: string;
  readonly positions: string;
  /** The changes to the domain's types and the catch-up markers (feed.ts). */
  readonly changes: string;

  constructor(readonly prefix: string) {
    this.layout = `${prefix}layout`;
    this.starting = `${prefix}starting`;
    this.resources = `${prefix}{resources}`;
    this.types = `${this.resources}types`;
    this.counters = `${this.resources}counters`;
    this.positions = `${this.resources}positions`;
    this.changes = `${this.resources}changes`;
  }

  topic(topicId: number): string {
    return `${this.prefix}{topic:${topicId}}fields`;
  }

  messages(topicId: number): string {
    return `${this.prefix}{topic:${topicId}}messages`;
  }

  /** The channel of the topic's appends, heard only by emulators whose consumers wait on it. */
  appended(topicId: number): string {
    return `${this.prefix}{topic:${topicId}}appended`;
  }

  items(type: string): string {
    return `${this.resources}items:${type}`;
  }

  order(type: string): string {
    return `${this.resources}order:${type}`;
  }
}

type Listener = (message: string) => void;
type Send = (command: RedisArgument[]) => Promise<unknown>;
type ScriptCall = (keys: string[], args: RedisArgument[]) => Promise<unknown>;

/** What is used of a node-redis client or cluster: both have these, and the scripts of scripts.ts by name. */
interface Link extends Record<ScriptName | LiveScriptName, ScriptCall> {
  sSubscribe(channel: string, listener: Listener): Promise<void>;
  sUnsubscribe(channel: string, listener: Listener): Promise<void>;
  on(event: string, listener: (...args: unknown[]) => void): unknown;
  connect(): Promise<unknown>;
  readonly isReady: boolean;
  close(): Promise<void>;
  destroy(): void;
}

/** One server: a client for commands, another for subscriptions. A cluster: both in one (node-redis's). */
interface Links {
  commands: Link;
  subscriptions: Link;
  /** Sends a command (on a cluster, to the shard of its first key). */
  send(firstKey: string, command: RedisArgument[]): Promise<unknown>;
  /** A sender of commands to each server that holds keys: one server, or each master of a cluster. */
  servers(): Promise<Send[]>;
  /** The events a connection that is lost and back emits (with the connection's own description). */
  lostEvent: string;
  backEvent: string;
}

function links(url: string, connected: () => boolean): Links {
  // At start a failure is final (the emulator exits with it); once running, Redis is waited for.
  const socket = {
    reconnectStrategy: (retries: number, cause: Error) => (connected() ? reconnectDelay(retries) : cause),
  };
  // No per-command timeout of node-redis's: it bounds only the wait to be sent (with no offline queue, a
  // command is sent or refused at once), and costs each command an AbortSignal whose timer fires
  // later anyway; the wait for the reply is bounded by `answered`.
  const commandOptions = { timeout: 0 };
  const cluster = clusterUrl(url);
  if (cluster) {
    const { nodes, ...credentials } = cluster;
    // The nodes the cluster names take their options from the defaults, not from the seeds' URLs.
    const tls = nodes.some((node) => node.startsWith('rediss:'));
    const client = createCluster({
      rootNodes: nodes.map((node) => ({ url: node })),
      defaults: { ...credentials, disableOfflineQueue: true, socket: tls ? { ...socket, tls } : socket },
      commandOptions,
      scripts: SCRIPTS,
    });
    return {
      commands: client as unknown as Link,
      subscriptions: client as unknown as Link,
      send: (firstKey, command) => client.sendCommand(firstKey, false, command),
      servers: () =>
        Promise.all(
          client.masters.map(async (master) => {
            const node = await client.nodeClient(master);
            return (command: RedisArgument[]) => node.sendCommand(command);
          }),
        ),
      lostEvent: 'node-error',
      backEvent: 'node-ready',
    };
  }
  const client = createClient({ url, disableOfflineQueue: true, socket, commandOptions, scripts: SCRIPTS });
  return {
    commands: client as unknown as Link,
    subscriptions: client.duplicate() as unknown as Link,
    send: (_, command) => client.sendCommand(command),
    servers: async () => [(command) => client.sendCommand(command)],
    lostEvent: 'error',
    backEvent: 'ready',
  };
}

/** What the connections of one emulator's states share: its links to Redis, and which of them are lost. */
class SharedLinks {
  /** The connections lost and not back yet (one server: its two clients; a cluster: its nodes' clients). */
  readonly lost = new Set<unknown>();
  readonly lostListeners = new Set<(error: unknown) => void>();
  readonly backListeners = new Set<() => void>();
  private listening = false;

  constructor(
    readonly links: Links,
    /** How long a request waits for Redis's answer before it fails (StoreUnavailable). */
    readonly replyTimeoutMs: number,
  ) {}

  linkList(): Link[] {
    const { commands, subscriptions } = this.links;
    return commands === subscriptions ? [commands] : [commands, subscriptions];
  }

  /** Listens to the links' losses and returns once, whoever watches first. */
  listen(): void {
    if (this.listening) return;
    this.listening = true;
    const { lostEvent, backEvent } = this.links;
    this.linkList().forEach((link, index) => {
      // A cluster's own errors (a failed discovery of its nodes) come with its nodes' losses.
      if (lostEvent !== 'error') link.on('error', () => {});
      // A cluster names the node (its client) that was lost or is back; one server's clients, their index.
      link.on(lostEvent, (error, node = index) => {
        if (this.lost.has(node)) return;
        this.lost.add(node);
        for (const listener of this.lostListeners) listener(error);
      });
      link.on(backEvent, (node = index) => {
        if (!this.lost.delete(node) || this.lost.size > 0) return;
        for (const listener of this.backListeners) listener();
      });
    });
  }
}

/**
 * What keeps a workspace's state from writing once another emulator deleted the workspace: its
 * liveness key (in the workspace's slot), checked in the script of every write, and who is told.
 */
export interface Liveness {
  key: string;
  workspaceId: number;
  /** A write was refused: the workspace is deleted, whether or not its announcement has come. */
  gone(): void;
}

/**
 * One state in Redis (the default tenant's, or a workspace's environment's, under a prefix of its own)
 * over the links of the emulator: a workspace's state costs no connection of its own.
 */
export class RedisConnection {
  /** Names this emulator in what it announces, so it skips its own announcements. */
  readonly origin = randomBytes(6).toString('base64url');
  /** True when the prefix held no state before this start. */
  created = false;
  /** Writes sent and not yet confirmed; `commit` waits for them. */
  private unconfirmed: Promise<unknown>[] = [];
  /** What this state watches of the connections: let go when it closes. */
  private readonly watching: (() => void)[] = [];
  /** Called before any command is sent: writes held for the rest of the turn go first (messages.ts). */
  private beforeSend: (() => void) | undefined;

  private constructor(
    private readonly shared: SharedLinks,
    readonly keys: RedisKeys,
    /** The emulator's own state, which closes the links; a workspace's leaves them to it. */
    readonly ownsLinks: boolean,
    /** A workspace's state: its scripts and writes run only while it is live. */
    private readonly liveness?: Liveness,
  ) {}

  /** Connects; refuses (RedisStorageError) when Redis cannot be reached or holds another layout. */
  static async open(url: string, prefix: string, logger: Logger, replyTimeoutMs = 5000): Promise<RedisConnection> {
    const where = redactedUrl(url);
    let connected = false;
    let made: Links;
    try {
      made = links(url, () => connected);
    } catch (error) {
      throw new RedisStorageError(`Cannot use Redis at ${where}: ${(error as Error).message}`);
    }
    const shared = new SharedLinks(made, replyTimeoutMs);
    const connection = new RedisConnection(shared, new RedisKeys(prefix), true);
    const destroy = () => {
      for (const link of shared.linkList()) link.destroy();
    };
    // Listened to before connecting: an 'error' no one listens to would end the process.
    connection.watchConnections(
      (error) => {
        if (connected) logger.error({ err: error }, `lost a connection to Redis at ${where}; reconnecting`);
      },
      () => logger.warn(`the connections to Redis at ${where} are back`),
    );
    try {
      for (const link of shared.linkList()) await link.connect();
    } catch (error) {
      destroy();
      throw new RedisStorageError(`Cannot connect to Redis at ${where}: ${(error as Error).message}`);
    }
    connected = true;
    try {
      await connection.checkLayout(where);
      return connection;
    } catch (error) {
      destroy();
      throw error instanceof RedisStorageError ? error : new RedisStorageError(`Redis at ${where}: ${error}`);
    }
  }

  /** The state under `prefix` (a workspace's environment's), over this one's links; it fails once not live. */
  async scoped(prefix: string, liveness: Liveness): Promise<RedisConnection> {
    const connection = new RedisConnection(this.shared, new RedisKeys(prefix), false, liveness);
    await connection.checkLayout('this Redis');
    return connection;
  }

  /** Marks a new state with this version's layout; refuses one of another layout. */
  private async checkLayout(where: string): Promise<void> {
    const { layout: key, prefix } = this.keys;
    this.created = (await this.write(key, ['SET', key, LAYOUT_VERSION, 'NX'])) === 'OK';
    const layout = this.created ? LAYOUT_VERSION : String(await this.send(key, ['GET', key]));
    if (layout !== LAYOUT_VERSION) {
      throw new RedisStorageError(
        `Redis at ${where} holds state of another version of platform-api-mock under the prefix ${prefix} ` +
          `(layout ${layout}; this version uses ${LAYOUT_VERSION}): use another prefix or database`,
      );
    }
  }

  /** Every connection is up (none lost, or every lost one back). */
  get ready(): boolean {
    return this.shared.lost.size === 0;
  }

  /**
   * `lost` once when a connection is lost (announcements may be missed meanwhile), `back` once every
   * lost one is back; until this state closes.
   */
  watchConnections(lost: (error: unknown) => void, back: () => void): void {
    const { lostListeners, backListeners } = this.shared;
    lostListeners.add(lost);
    backListeners.add(back);
    this.watching.push(() => {
      lostListeners.delete(lost);
      backListeners.delete(back);
    });
    this.shared.listen();
  }

  /**
   * Runs a script (a workspace's state, its IfLive form); a failure to reach Redis (or a write it
   * refuses) is a StoreUnavailable, a script's own error is kept, a workspace deleted is WorkspaceGone.
   */
  run(script: ScriptName, keys: string[], args: RedisArgument[]): Promise<unknown> {
    const { liveness } = this;
    return liveness
      ? this.runScript(ifLive(script), [...keys, liveness.key], args)
      : this.runScript(script, keys, args);
  }

  /** A command that changes a key (`firstKey`'s slot): in a workspace's state, in a script, only while it is live. */
  write(firstKey: string, command: RedisArgument[]): Promise<unknown> {
    const { liveness } = this;
    return liveness ? this.runScript('commandIfLive', [firstKey, liveness.key], command) : this.send(firstKey, command);
  }

  private async runScript(script: ScriptName | LiveScriptName, keys: string[], args: RedisArgument[]) {
    this.beforeSend?.();
    try {
      return await this.answered(this.shared.links.commands[script](keys, args));
    } catch (error) {
      if (isNoTopic(error)) throw error;
      if (this.liveness && isGone(error)) {
        this.liveness.gone();
        throw new WorkspaceGone(this.liveness.workspaceId);
      }
      throw unavailable(error);
    }
  }

  /** A command (on a cluster, sent to the shard of `firstKey`) whose failure is a StoreUnavailable; a change of a key goes by `write`. */
  async send(firstKey: string, command: RedisArgument[]): Promise<unknown> {
    this.beforeSend?.();
    return this.guarded(this.shared.links.send(firstKey, command));
  }

  private async guarded<T>(reply: Promise<T>): Promise<T> {
    try {
      return await this.answered(reply);
    } catch (error) {
      throw unavailable(error);
    }
  }

  /**
   * The command's answer, or a StoreUnavailable once Redis has not answered for replyTimeoutMs: a Redis
   * paused or cut off keeps its connection open, and node-redis waits without limit (its per-command
   * `timeout` only bounds the wait to be sent). The command stays sent: Redis may still apply it when it
   * resumes (as after any 500, the outcome is unknown).
   */
  private answered<T>(reply: Promise<T>): Promise<T> {
    let timer: NodeJS.Timeout | undefined;
    const late = new Promise<never>((_, reject) => {
      timer = setTimeout(
        () => reject(new StoreUnavailable(`Redis did not answer within ${this.shared.replyTimeoutMs} ms`)),
        this.shared.replyTimeoutMs,
      );
    });
    return Promise.race([reply, late]).finally(() => clearTimeout(timer));
  }

  /** `first` runs before every command sent from now on. */
  sendFirst(first: () => void): void {
    this.beforeSend = first;
  }

  /** Listens to a sharded channel (a cluster subscribes on the channel's shard); settles once subscribed. */
  subscribe(channel: string, listener: Listener): Promise<void> {
    return this.shared.links.subscriptions.sSubscribe(channel, listener);
  }

  unsubscribe(channel: string, listener: Listener): Promise<void> {
    return this.shared.links.subscriptions.sUnsubscribe(channel, listener);
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

  /**
   * Deletes every key whose name starts with `prefix`, which holds a hash tag: all of them are in one
   * slot, so on a cluster one shard holds them, and each batch is one command.
   */
  async deleteUnder(prefix: string): Promise<void> {
    const send: Send = (command) => this.send(prefix, command);
    await scan(send, prefix, (keys) => send(['UNLINK', ...keys]));
  }

  /** The names of every key that starts with `prefix`, on every server (each master of a cluster). */
  async keysUnder(prefix: string): Promise<string[]> {
    this.beforeSend?.();
    const found: string[] = [];
    for (const server of await this.guarded(this.shared.links.servers())) {
      await scan(
        (command) => this.guarded(server(command)),
        prefix,
        (keys) => found.push(...keys),
      );
    }
    return found;
  }

  /**
   * How many connections listen to the sharded channel: summed over every server, as a cluster routes
   * PUBSUB SHARDNUMSUB to any node and only the channel's shard counts its listeners.
   */
  async listeners(channel: string): Promise<number> {
    const servers = await this.guarded(this.shared.links.servers());
    const counts = await Promise.all(
      servers.map(async (server) => {
        const [, count] = (await this.guarded(server(['PUBSUB', 'SHARDNUMSUB', channel]))) as [string, number];
        return Number(count);
      }),
    );
    return counts.reduce((sum, count) => sum + count, 0);
  }

  async close(): Promise<void> {
    await Promise.allSettled(this.unconfirmed);
    for (const stop of this.watching.splice(0)) stop();
    if (this.ownsLinks) await Promise.all(this.shared.linkList().map(closeLink));
  }
}

/** Calls `batch` with each batch of the keys that start with `prefix` on the server `send` reaches. */
async function scan(send: Send, prefix: string, batch: (keys: string[]) => unknown): Promise<void> {
  const pattern = `${prefix.replace(/[*?[\]\\]/g, '\\$&')}*`;
  let cursor = '0';
  do {
    const [next, keys] = (await send(['SCAN', cursor, 'MATCH', pattern, 'COUNT', '1000'])) as [string, string[]];
    if (keys.length > 0) await batch(keys);
    cursor = next;
  } while (cursor !== '0');
}

/** Graceful when connected (pending replies are read), at once otherwise. */
async function closeLink(link: Link): Promise<void> {
  if (!link.isReady) {
    link.destroy();
    return;
  }
  try {
    await link.close();
  } catch {
    link.destroy();
  }
}

/** The errors a script raised on purpose (redis.error_reply in scripts.ts). */
export const isNoTopic = (error: unknown) => error instanceof ErrorReply && error.message.startsWith('NOTOPIC ');
const isGone = (error: unknown) => error instanceof ErrorReply && error.message.startsWith('GONE ');

export function unavailable(error: unknown): StoreUnavailable {
  return error instanceof StoreUnavailable ? error : new StoreUnavailable((error as Error).message);
}
