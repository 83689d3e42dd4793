// The message store of a data dir: messages live in SQLite and are read from it. In memory there are
// only a few numbers per topic (next sequence, first retained one, last time), rebuilt at open from the
// last row of each topic: reopening a million messages reads a handful of rows.
import type { StatementSync } from 'node:sqlite';
import { IdFormatter, sequenceOf } from '../message-ids.js';
import type { MessageStore, ReadResult, StoredMessage } from '../message-store.js';
import type { DataDir } from './data-dir.js';

interface TopicLog {
  retentionMs: number;
  /** No message below it remains: sequences below were purged or expired, and deleted. */
  firstSequence: number;
  nextSequence: number;
  lastTime: number;
  /** Formats the ids of new messages (reads use their own: they are at other sequences). */
  readonly newIds: IdFormatter;
}

interface TopicRow {
  topic_id: number;
  retention_ms: number;
  first_sequence: number;
  last_time: number;
}

interface MessageRow {
  sequence: number;
  time: number;
  payload: string;
}

/** node:sqlite types rows loosely (any column may be any SQLite value); these statements' columns are fixed. */
const rowsOf = <Row>(rows: unknown[]) => rows as Row[];
const rowOf = <Row>(row: unknown) => row as Row | undefined;

export class SqliteMessageStore implements MessageStore {
  private readonly topics = new Map<number, TopicLog>();
  private readonly insert: StatementSync;
  private readonly firstFrom: StatementSync;
  private readonly last: StatementSync;
  private readonly page: StatementSync;
  private readonly deleteBefore: StatementSync;
  private readonly saveTopic: StatementSync;
  private readonly deleteTopic: StatementSync;

  constructor(
    private readonly dataDir: DataDir,
    private readonly clock: () => number = Date.now,
  ) {
    const { db } = dataDir;
    this.insert = db.prepare('INSERT INTO messages (topic_id, sequence, time, payload) VALUES (?, ?, ?, ?)');
    this.firstFrom = db.prepare(
      'SELECT sequence, time FROM messages WHERE topic_id = ? AND sequence >= ? ORDER BY sequence LIMIT 1',
    );
    this.last = db.prepare('SELECT sequence, time FROM messages WHERE topic_id = ? ORDER BY sequence DESC LIMIT 1');
    this.page = db.prepare(
      'SELECT sequence, time, payload FROM messages WHERE topic_id = ? AND sequence >= ? ORDER BY sequence LIMIT ?',
    );
    this.deleteBefore = db.prepare('DELETE FROM messages WHERE topic_id = ? AND sequence < ?');
    this.saveTopic = db.prepare(
      'INSERT OR REPLACE INTO message_topics (topic_id, retention_ms, first_sequence, last_time) VALUES (?, ?, ?, ?)',
    );
    this.deleteTopic = db.prepare('DELETE FROM message_topics WHERE topic_id = ?');
    for (const row of rowsOf<TopicRow>(db.prepare('SELECT * FROM message_topics').all())) this.reopen(row);
  }

  addTopic(topicId: number, retentionMs: number): void {
    const log = { retentionMs, firstSequence: 1, nextSequence: 1, lastTime: 0, newIds: new IdFormatter() };
    this.save(topicId, log);
    this.topics.set(topicId, log);
  }

  setRetention(topicId: number, retentionMs: number): void {
    const log = this.log(topicId);
    log.retentionMs = retentionMs;
    this.save(topicId, log);
  }

  removeTopic(topicId: number): void {
    const log = this.log(topicId);
    this.dataDir.write();
    this.deleteBefore.run(topicId, log.nextSequence);
    this.deleteTopic.run(topicId);
    this.topics.delete(topicId);
  }

  append(topicId: number, payload: string): string {
    const log = this.log(topicId);
    // Times never go backwards within a topic, so since_time reads stay in publish order.
    const time = Math.max(this.clock(), log.lastTime);
    const sequence = log.nextSequence;
    this.dataDir.write();
    this.insert.run(topicId, sequence, time, payload);
    log.lastTime = time;
    log.nextSequence = sequence + 1;
    return log.newIds.format(sequence);
  }

  readOldest(topicId: number, limit: number): ReadResult {
    return this.read(topicId, this.retained(topicId).firstSequence, limit);
  }

  readAfter(topicId: number, messageId: string, limit: number): ReadResult | undefined {
    const log = this.retained(topicId);
    const sequence = sequenceOf(messageId);
    // Sequences from the first retained one to the newest are all there: only whole prefixes are deleted.
    if (sequence < log.firstSequence || sequence >= log.nextSequence) return undefined;
    return this.read(topicId, sequence + 1, limit);
  }

  readSince(topicId: number, timeMs: number, limit: number): ReadResult {
    return this.read(topicId, this.firstAtOrAfter(topicId, this.retained(topicId), timeMs), limit);
  }

  purge(topicId: number): void {
    const log = this.log(topicId);
    this.deleteUpTo(topicId, log, log.nextSequence);
  }

  private reopen(row: TopicRow): void {
    const last = rowOf<MessageRow>(this.last.get(row.topic_id));
    this.topics.set(row.topic_id, {
      retentionMs: row.retention_ms,
      firstSequence: row.first_sequence,
      nextSequence: Math.max(row.first_sequence, (last?.sequence ?? 0) + 1),
      lastTime: Math.max(row.last_time, last?.time ?? 0),
      newIds: new IdFormatter(),
    });
  }

  private read(topicId: number, fromSequence: number, limit: number): ReadResult {
    // One row past the batch tells whether more follow.
    const rows = rowsOf<MessageRow>(this.page.all(topicId, fromSequence, limit + 1));
    const ids = new IdFormatter();
    const messages: StoredMessage[] = [];
    for (const row of rows.slice(0, limit)) {
      messages.push({ id: ids.format(row.sequence), payload: row.payload, time: row.time });
    }
    return { messages, hasMore: rows.length > limit };
  }

  /** The topic with its expired messages deleted: a message is retained while it is younger than the retention. */
  private retained(topicId: number): TopicLog {
    const log = this.log(topicId);
    const cutoff = this.clock() - log.retentionMs + 1;
    const oldest = rowOf<MessageRow>(this.firstFrom.get(topicId, log.firstSequence));
    if (oldest && oldest.time < cutoff) this.deleteUpTo(topicId, log, this.firstAtOrAfter(topicId, log, cutoff));
    return log;
  }

  /**
   * The first sequence whose message is at or after `time`, by binary search over the sequences (times
   * never go backwards within a topic): about twenty index lookups for a million messages, where a scan
   * by time would read them all.
   */
  private firstAtOrAfter(topicId: number, log: TopicLog, time: number): number {
    let low = log.firstSequence;
    let high = log.nextSequence;
    while (low < high) {
      const middle = Math.floor((low + high) / 2);
      const found = rowOf<MessageRow>(this.firstFrom.get(topicId, middle));
      if (found && found.time < time) low = found.sequence + 1;
      else high = middle;
    }
    return low;
  }

  private deleteUpTo(topicId: number, log: TopicLog, sequence: number): void {
    this.dataDir.write();
    this.deleteBefore.run(topicId, sequence);
    log.firstSequence = sequence;
    this.save(topicId, log);
  }

  private save(topicId: number, log: TopicLog): void {
    this.dataDir.write();
    this.saveTopic.run(topicId, log.retentionMs, log.firstSequence, log.lastTime);
  }

  private log(topicId: number): TopicLog {
    const log = this.topics.get(topicId);
    if (!log) throw new Error(`Topic ${topicId} is not in the store`);
    return log;
  }
}
