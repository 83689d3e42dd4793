// The change feed. The changes to the domain's types go on one sharded channel per shared state, on
// which every emulator announces them, from the scripts that make them; each emulator applies the
// others'. Redis delivers a channel's messages in the order it ran their SPUBLISH, so a marker this
// emulator publishes comes back after every change announced before it: that is `catchUp`.
//
// A topic's appends go on a channel of the topic's own, once per script (one per topic per turn, see
// messages.ts): an emulator listens to it only while its consumers wait on the topic (and a while
// after, for the consumer that comes back at once), so an append costs the emulators without such
// consumers nothing.
//
// Announcements on the change channel, one line each: `c<origin> <Change as JSON>`, `r<origin> `
// (reload everything), `m<origin> <marker number>`. On a topic's channel: `<origin>`.
import { setTimeout as delay } from 'node:timers/promises';
import { StoreUnavailable } from '../../errors.js';
import type { Logger } from '../../logger.js';
import type { Follower, SharedState } from '../shared-state.js';
import { type RedisConnection, unavailable } from './connection.js';
import type { Change } from './resources.js';

/** How long a start may hold the mark: one that crashed while starting holds the others up no longer. */
const START_MARK_MS = 30_000;
const START_WAIT_MS = 60_000;
const START_POLL_MS = 25;
/**
 * A topic's channel is left once no consumer has waited on it for between one and two of these: a
 * consumer that polls again and again subscribes once.
 */
const WATCH_LINGER_MS = 10_000;

interface Waiting {
  marker: number;
  resolve: () => void;
  reject: (error: Error) => void;
}

interface Watch {
  /** Settles once subscribed: an append after that is heard. */
  subscribed: Promise<void>;
  listener: (message: string) => void;
  /** Waited on since the last sweep. */
  used: boolean;
}

export class RedisFeed implements SharedState {
  private follower: Follower | undefined;
  private markers = 0;
  private waiting: Waiting[] = [];
  /** While the follower reloads, announcements wait here, then apply in order on top of what it read. */
  private reloading: Promise<void> | undefined;
  private queued: string[] = [];
  /** The topics this emulator's consumers wait on (or did a moment ago), by id. */
  private readonly watched = new Map<number, Watch>();
  private readonly sweeper: NodeJS.Timeout;

  private constructor(
    private readonly redis: RedisConnection,
    private readonly logger: Logger,
  ) {
    this.sweeper = setInterval(() => this.sweep(), WATCH_LINGER_MS).unref();
  }

  static async start(redis: RedisConnection, logger: Logger): Promise<RedisFeed> {
    const feed = new RedisFeed(redis, logger);
    try {
      await redis.subscribe(redis.keys.changes, feed.receive);
    } catch (error) {
      await feed.close();
      throw error;
    }
    // While a connection is away, announcements may be missed, and a catch-up cannot complete.
    redis.watchConnections(
      () => feed.failWaiting(new StoreUnavailable('the connection to Redis was lost')),
      () => {
        feed.reload();
        // An append announced meanwhile may be missed: the waiting consumers read again.
        for (const topicId of feed.watched.keys()) feed.follower?.appended(topicId);
      },
    );
    return feed;
  }

  follow(follower: Follower): Promise<void> {
    this.follower = follower;
    return this.reloadWith(follower);
  }

  catchUp(): Promise<void> {
    if (!this.redis.ready) {
      return Promise.reject(new StoreUnavailable('the change feed is not connected'));
    }
    const marker = ++this.markers;
    const { changes } = this.redis.keys;
    return new Promise((resolve, reject) => {
      this.waiting.push({ marker, resolve, reject });
      this.redis.send(changes, ['SPUBLISH', changes, `m${this.redis.origin} ${marker}`]).catch((error) => {
        this.waiting = this.waiting.filter((waiting) => waiting.marker !== marker);
        reject(unavailable(error));
      });
    });
  }

  watch(topicId: number): Promise<void> | undefined {
    const watch = this.watched.get(topicId);
    if (watch) {
      watch.used = true;
      return watch.subscribed;
    }
    const { origin } = this.redis;
    const listener = (message: string) => {
      if (message !== origin) this.follower?.appended(topicId);
    };
    const subscribed = this.redis.subscribe(this.redis.keys.appended(topicId), listener).catch((error: unknown) => {
      this.watched.delete(topicId);
      throw unavailable(error);
    });
    this.watched.set(topicId, { subscribed, listener, used: true });
    return subscribed;
  }

  /** Leaves the channels when the links stay open (a workspace's state), then closes the state. */
  async close(): Promise<void> {
    clearInterval(this.sweeper);
    if (!this.redis.ownsLinks) {
      const { keys } = this.redis;
      const leave = (channel: string, listener: (message: string) => void) =>
        // Not waited for: a Redis that does not answer would hold the close; a channel still heard is harmless.
        this.redis.unsubscribe(channel, listener).catch(() => {});
      leave(keys.changes, this.receive);
      for (const [topicId, { listener }] of this.watched) leave(keys.appended(topicId), listener);
      this.watched.clear();
    }
    await this.redis.close();
  }

  async startAlone(): Promise<() => Promise<void>> {
    const { starting } = this.redis.keys;
    const mark = ['SET', starting, this.redis.origin, 'NX', 'PX', String(START_MARK_MS)];
    const deadline = Date.now() + START_WAIT_MS;
    while ((await this.redis.write(starting, mark)) !== 'OK') {
      if (Date.now() > deadline) {
        throw new StoreUnavailable(`another emulator has been starting on this state for ${START_WAIT_MS} ms`);
      }
      await delay(START_POLL_MS);
    }
    // A mark that expired may be another emulator's by now: END_START leaves that one.
    return async () => {
      await this.redis.run('endStart', [starting], [this.redis.origin]);
    };
  }

  async alone(): Promise<boolean> {
    const { starting, changes } = this.redis.keys;
    if ((await this.redis.send(starting, ['GET', starting])) !== this.redis.origin) return false;
    // Every running emulator listens to the change channel (this one included), from before its start.
    return (await this.redis.listeners(changes)) === 1;
  }

  private readonly receive = (message: string): void => {
    if (this.reloading) this.queued.push(message);
    else this.apply(message);
  };

  private apply(message: string): void {
    const space = message.indexOf(' ');
    const origin = message.slice(1, space);
    const rest = message.slice(space + 1);
    const mine = origin === this.redis.origin;
    switch (message[0]) {
      case 'm':
        if (mine) this.passed(Number(rest));
        return;
      case 'c':
        if (!mine) {
          const { type, id, item } = JSON.parse(rest) as Change;
          this.follower?.changed(type, id, item);
        }
        return;
      case 'r':
        if (!mine) this.reload();
        return;
    }
  }

  /** Leaves the channels of the topics no consumer has waited on since the last sweep. */
  private sweep(): void {
    for (const [topicId, watch] of this.watched) {
      if (watch.used || this.follower?.waiting(topicId)) {
        watch.used = false;
        continue;
      }
      this.watched.delete(topicId);
      this.redis.unsubscribe(this.redis.keys.appended(topicId), watch.listener).catch(() => {
        // Best effort: a channel still heard only wakes this topic's consumers now and then.
      });
    }
  }

  /** Every marker up to this one has come back. */
  private passed(marker: number): void {
    const index = this.waiting.findIndex((waiting) => waiting.marker > marker);
    const passed = index < 0 ? this.waiting : this.waiting.slice(0, index);
    this.waiting = index < 0 ? [] : this.waiting.slice(index);
    for (const waiting of passed) waiting.resolve();
  }

  private failWaiting(error: Error): void {
    const waiting = this.waiting;
    this.waiting = [];
    for (const each of waiting) each.reject(error);
  }

  private reload(): void {
    const follower = this.follower;
    if (!follower || this.reloading) return;
    this.reloadWith(follower).catch((error: unknown) => {
      // Redis went away again: its return starts another reload.
      this.logger.error({ err: error }, 'could not re-read the shared state from Redis');
    });
  }

  private reloadWith(follower: Follower): Promise<void> {
    const reloading = follower.reload().finally(() => {
      this.reloading = undefined;
      const queued = this.queued;
      this.queued = [];
      for (const message of queued) this.receive(message);
    });
    this.reloading = reloading;
    return reloading;
  }
}
