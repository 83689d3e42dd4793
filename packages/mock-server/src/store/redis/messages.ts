// The message store on Redis: every topic's messages and counters live in Redis (scripts.ts), none
// here, so any number of emulators append to and read one sequence per topic. A script assigns the
// sequences of an append atomically: ids are given once, in one order, whichever emulator asks.
import { NotFound } from '../../errors.js';
import { IdFormatter, sequenceOf } from '../message-ids.js';
import type { MessageStore, ReadResult, StoredMessage } from '../message-store.js';
import { isNoTopic, type RedisConnection, Script } from './connection.js';
import { ADD_TOPIC, APPEND, PURGE, READ, SET_RETENTION } from './scripts.js';

const addTopic = new Script(ADD_TOPIC);
const setRetention = new Script(SET_RETENTION);
const append = new Script(APPEND);
const read = new Script(READ);
const purge = new Script(PURGE);

/** An XRANGE entry as the READ script returns it: `<sequence>-0` and its fields t (time) and p (payload). */
type Entry = [string, [string, string, string, string]];

export class RedisMessageStore implements MessageStore {
  /** An append's announcement, per topic: other emulators wake their consumers waiting on it. */
  private readonly announcements = new Map<number, string>();

  constructor(
    private readonly redis: RedisConnection,
    private readonly clock: () => number = Date.now,
  ) {}

  async addTopic(topicId: number, retentionMs: number): Promise<void> {
    await this.redis.run(addTopic, this.keys(topicId), [String(retentionMs)]);
  }

  async setRetention(topicId: number, retentionMs: number): Promise<void> {
    await this.onTopic(topicId, this.redis.run(setRetention, [this.redis.keys.topic(topicId)], [String(retentionMs)]));
  }

  async removeTopic(topicId: number): Promise<void> {
    await this.redis.send(['DEL', ...this.keys(topicId)]);
  }

  async append(topicId: number, payload: string, utf8?: Uint8Array): Promise<string> {
    // The bytes as received, when there, go to Redis without being encoded again.
    const [id] = await this.appendBatch(topicId, [
      utf8 ? Buffer.from(utf8.buffer, utf8.byteOffset, utf8.length) : payload,
    ]);
    return id as string;
  }

  /** One script for the whole batch: one round trip, and its messages take consecutive ids. */
  async appendBatch(topicId: number, payloads: (string | Buffer)[]): Promise<string[]> {
    const { channel } = this.redis.keys;
    const args = [String(this.clock()), channel, this.announcement(topicId), ...payloads];
    const first = Number(await this.onTopic(topicId, this.redis.run(append, this.keys(topicId), args)));
    const ids = new IdFormatter();
    return payloads.map((_, i) => ids.format(first + i));
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
    await this.onTopic(topicId, this.redis.run(purge, this.keys(topicId), []));
  }

  private async read(
    topicId: number,
    mode: 'oldest' | 'after' | 'since',
    from: number,
    limit: number,
  ): Promise<ReadResult | undefined> {
    const args = [String(this.clock()), mode, String(from), String(limit)];
    const entries = (await this.onTopic(topicId, this.redis.run(read, this.keys(topicId), args))) as Entry[] | null;
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

  private announcement(topicId: number): string {
    let text = this.announcements.get(topicId);
    if (text === undefined) {
      text = `a${this.redis.origin} ${topicId}`;
      this.announcements.set(topicId, text);
    }
    return text;
  }
}
