// The message store on Redis: every topic's messages and counters live in Redis (scripts.ts), none
// here, so any number of emulators append to and read one sequence per topic. A script assigns the
// sequences of an append atomically: ids are given once, in one order, whichever emulator asks.
//
// The appends made together go together: those to one topic in one script (one round trip, one
// announcement), sent as soon as the code that made them returns (the emulator takes a turn's request
// bodies in one go, http/body.ts, so that is all the turn's publishes), and before any other command (so
// this emulator's writes reach Redis in the order it made them). Scripts are not held back while others are
// on their way: Redis runs those that reach it while it syncs its file in its next turn, under one
// sync. Each request's answer waits for the script that stored its messages: acknowledged means stored.
import { NotFound } from '../../errors.js';
import { IdFormatter, sequenceOf } from '../message-ids.js';
import type { MessageStore, ReadResult, StoredMessage } from '../message-store.js';
import { isNoTopic, type RedisConnection } from './connection.js';

/** An XRANGE entry as the READ script returns it: `<sequence>-0` and its fields t (time) and p (payload). */
type Entry = [string, [string, string, string, string]];

/** The appends to one topic held until the code that made them returns, and the requests waiting for their ids. */
interface HeldAppends {
  /** Each message's time, then its payload. */
  timedPayloads: (string | Buffer)[];
  requests: { count: number; resolve: (first: number) => void; reject: (error: unknown) => void }[];
}

export class RedisMessageStore implements MessageStore {
  /** By topic id, in the order of their first append. */
  private held = new Map<number, HeldAppends>();
  private scheduled = false;

  constructor(
    private readonly redis: RedisConnection,
    private readonly clock: () => number = Date.now,
  ) {
    redis.sendFirst(() => this.sendHeld());
  }

  async addTopic(topicId: number, retentionMs: number): Promise<void> {
    await this.redis.run('addTopic', this.keys(topicId), [String(retentionMs)]);
  }

  async setRetention(topicId: number, retentionMs: number): Promise<void> {
    await this.onTopic(
      topicId,
      this.redis.run('setRetention', [this.redis.keys.topic(topicId)], [String(retentionMs)]),
    );
  }

  async removeTopic(topicId: number): Promise<void> {
    await this.redis.write(this.redis.keys.topic(topicId), ['DEL', ...this.keys(topicId)]);
  }

  async append(topicId: number, payload: string, utf8?: Uint8Array): Promise<string> {
    // The bytes as received, when there, go to Redis without being encoded again.
    const [id] = await this.appendBatch(topicId, [
      utf8 ? Buffer.from(utf8.buffer, utf8.byteOffset, utf8.length) : payload,
    ]);
    return id as string;
  }

  /** Held with the others made together to the topic; its messages take consecutive ids. */
  appendBatch(topicId: number, payloads: (string | Buffer)[]): Promise<string[]> {
    let held = this.held.get(topicId);
    if (!held) {
      held = { timedPayloads: [], requests: [] };
      this.held.set(topicId, held);
    }
    // Stamped now, as received: the script keeps each message's time.
    const now = String(this.clock());
    for (const payload of payloads) held.timedPayloads.push(now, payload);
    const first = new Promise<number>((resolve, reject) => {
      held.requests.push({ count: payloads.length, resolve, reject });
    });
    this.schedule();
    return first.then((first) => {
      const ids = new IdFormatter();
      return payloads.map((_, i) => ids.format(first + i));
    });
  }

  /**
   * Sends the held appends once the code that made them returns: not a turn later (setImmediate), as
   * node-redis writes a command another turn after it is given.
   */
  private schedule(): void {
    if (this.scheduled) return;
    this.scheduled = true;
    queueMicrotask(() => {
      this.scheduled = false;
      this.sendHeld();
    });
  }

  /**
   * One script per topic for the appends held, each request then given its share of the ids (or the
   * script's failure: after the reply timeout, `run`'s, the messages may still be stored once Redis
   * answers, as after any 500).
   */
  private sendHeld(): void {
    if (this.held.size === 0) return;
    const held = this.held;
    this.held = new Map();
    for (const [topicId, { timedPayloads, requests }] of held) {
      const keys = [...this.keys(topicId), this.redis.keys.appended(topicId)];
      this.onTopic(topicId, this.redis.run('append', keys, [this.redis.origin, ...timedPayloads])).then(
        (first) => {
          let next = Number(first);
          for (const request of requests) {
            request.resolve(next);
            next += request.count;
          }
        },
        (error: unknown) => {
          for (const request of requests) request.reject(error);
        },
      );
    }
  }

  readOldest(topicId: number, limit: number): Promise<ReadResult> {
    return this.read(topicId, 'oldest', 0, limit) as Promise<ReadResult>;
  }

  readAfter(topicId: number, messageId: string, limit: number): Promise<ReadResult | undefined> {
    const sequence = sequenceOf(messageId);
    if (sequence < 0) return Promise.resolve(undefined);
    return this.read(topicId, 'after', sequence, limit);
  }

  readSince(topicId: number, timeMs: number, limit: number): Promise<ReadResult> {
    return this.read(topicId, 'since', timeMs, limit) as Promise<ReadResult>;
  }

  async purge(topicId: number): Promise<void> {
    await this.onTopic(topicId, this.redis.run('purge', this.keys(topicId), []));
  }

  private async read(
    topicId: number,
    mode: 'oldest' | 'after' | 'since',
    from: number,
    limit: number,
  ): Promise<ReadResult | undefined> {
    const args = [String(this.clock()), mode, String(from), String(limit)];
    const entries = (await this.onTopic(topicId, this.redis.run('read', this.keys(topicId), args))) as Entry[] | null;
    if (!entries) return undefined;
    const ids = new IdFormatter();
    const messages: StoredMessage[] = [];
    for (const [entryId, fields] of entries.slice(0, limit)) {
      messages.push({ id: ids.format(Number.parseInt(entryId, 10)), payload: fields[3], time: Number(fields[1]) });
    }
    return { messages, hasMore: entries.length > limit };
  }

  /**
   * A topic the store does not have fails as in the other engines, as a 404: here it is no bug, but
   * another emulator that deleted the topic before this one heard of it.
   */
  private async onTopic<T>(topicId: number, result: Promise<T>): Promise<T> {
    try {
      return await result;
    } catch (error) {
      if (!isNoTopic(error)) throw error;
      throw new NotFound(`Topic ${topicId} is not in the store: it was deleted`, 'TOPIC_NOT_FOUND');
    }
  }

  private keys(topicId: number): string[] {
    return [this.redis.keys.topic(topicId), this.redis.keys.messages(topicId)];
  }
}
