// The change feed: one Redis channel per shared state, on which every emulator announces, from the
// scripts that make them, its changes to the domain's types and its appends; each emulator applies the
// others'. Redis delivers a channel's messages in the order it ran their PUBLISH, so a marker this
// emulator publishes comes back after every change announced before it: that is `catchUp`.
//
// Announcements, one line each: `c<origin> <Change as JSON>`, `a<origin> <topic id>`, `r<origin> `
// (reload everything), `m<origin> <marker number>`.
import { setTimeout as delay } from 'node:timers/promises';
import type { Logger } from 'pino';
import { StoreUnavailable } from '../../errors.js';
import type { Follower, SharedState } from '../storage.js';
import { type RedisConnection, Script, unavailable } from './connection.js';
import type { Change } from './resources.js';
import { END_START } from './scripts.js';

/** How long a start may hold the mark: one that crashed while starting holds the others up no longer. */
const START_MARK_MS = 30_000;
const START_WAIT_MS = 60_000;
const START_POLL_MS = 25;
const endStart = new Script(END_START);

interface Waiting {
  marker: number;
  resolve: () => void;
  reject: (error: Error) => void;
}

export class RedisFeed implements SharedState {
  private follower: Follower | undefined;
  private markers = 0;
  private waiting: Waiting[] = [];
  /** While the follower reloads, announcements wait here, then apply in order on top of what it read. */
  private reloading: Promise<void> | undefined;
  private queued: string[] = [];

  private constructor(
    private readonly redis: RedisConnection,
    private readonly logger: Logger,
  ) {}

  static async start(redis: RedisConnection, logger: Logger): Promise<RedisFeed> {
    const feed = new RedisFeed(redis, logger);
    try {
      await redis.subscriber.subscribe(redis.keys.channel, feed.receive);
    } catch (error) {
      await redis.close();
      throw error;
    }
    // While either connection is away, announcements may be missed, and a catch-up cannot complete.
    let away = false;
    for (const client of [redis.client, redis.subscriber]) {
      client.on('error', () => {
        away = true;
        feed.failWaiting(new StoreUnavailable('the connection to Redis was lost'));
      });
      client.on('ready', () => {
        if (!away || !redis.client.isReady || !redis.subscriber.isReady) return;
        away = false;
        feed.reload();
      });
    }
    return feed;
  }

  follow(follower: Follower): Promise<void> {
    this.follower = follower;
    return this.reloadWith(follower);
  }

  catchUp(): Promise<void> {
    if (!this.redis.subscriber.isReady) {
      return Promise.reject(new StoreUnavailable('the change feed is not connected'));
    }
    const marker = ++this.markers;
    return new Promise((resolve, reject) => {
      this.waiting.push({ marker, resolve, reject });
      this.redis.send(['PUBLISH', this.redis.keys.channel, `m${this.redis.origin} ${marker}`]).catch((error) => {
        this.waiting = this.waiting.filter((waiting) => waiting.marker !== marker);
        reject(unavailable(error));
      });
    });
  }

  async startAlone(): Promise<() => Promise<void>> {
    const { starting } = this.redis.keys;
    const mark = ['SET', starting, this.redis.origin, 'NX', 'PX', String(START_MARK_MS)];
    const deadline = Date.now() + START_WAIT_MS;
    while ((await this.redis.send(mark)) !== 'OK') {
      if (Date.now() > deadline) {
        throw new StoreUnavailable(`another emulator has been starting on this state for ${START_WAIT_MS} ms`);
      }
      await delay(START_POLL_MS);
    }
    // A mark that expired may be another emulator's by now: END_START leaves that one.
    return async () => {
      await this.redis.run(endStart, [starting], [this.redis.origin]);
    };
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
      case 'a':
        if (!mine) this.follower?.appended(Number(rest));
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
