// Topics of the workspace: their fields (spec schema Topic), compiled message validators and the
// consumers waiting for their next message. The fields are written through to the resource store,
// which rebuilds them at start; the messages are the message store's. With a store shared by several
// emulators (Redis), the topics follow the changes the others announce, and their appends wake the
// consumers waiting here.

import { type Awaitable, after } from '../awaitable.js';
import { NotFound, Unprocessable } from '../errors.js';
import { IsoTimeFormatter } from '../spec/date-time.js';
import { compileTopicSchema, type MessageValidator } from '../spec/topic-schema.js';
import { appendAll, type MessageStore } from '../store/message-store.js';
import { StoredRecords } from '../store/records.js';
import type { ResourceStore, StoredItem } from '../store/resource-store.js';
import type { Topic, TopicChange, TopicCreation } from './model.js';

interface TopicEntry {
  topic: Topic;
  validate: MessageValidator;
  /** Called (and forgotten) on the next append: long-polling consumers, and the emulator API's message streams. */
  waiters: Set<() => void>;
  /** How many of the waiters are consumers of the platform's API (`consume_messages`). */
  consumers: number;
  /**
   * Counts the wake-ups. A consumer whose read found nothing compares it with the count before its
   * read: with a shared store, another emulator's append can be announced while the read is on its way.
   */
  wakes: number;
}

export const MAX_TOPICS = 20;
/** Seconds a topic keeps its messages when created without a retention (TopicCreateRequest's default). */
export const DEFAULT_RETENTION_SECONDS = 604800;
export class Topics {
  /** A cache of the stored topics, with what each needs besides: its compiled schema, its waiting consumers. */
  private readonly entries = new Map<number, TopicEntry>();
  private readonly records: StoredRecords<Topic>;
  private readonly times = new IsoTimeFormatter();

  constructor(
    private readonly store: MessageStore,
    resources: ResourceStore,
    private readonly clock: () => number,
    /** With a shared store: hears of the others' appends to a topic from when it settles (SharedState.watch). */
    private readonly watchShared?: (topicId: number) => Promise<void> | undefined,
  ) {
    this.records = new StoredRecords(resources, 'emulator:topic');
  }

  /**
   * Rebuilds the topics from the resource store, at start (the message store has its own state), and
   * after a shared store came back: a topic gone meanwhile wakes its waiting consumers (they get a 404).
   */
  async load(): Promise<void> {
    const gone = new Map(this.entries);
    for (const topic of await this.records.all()) {
      this.put(topic);
      gone.delete(topic.id);
    }
    for (const entry of gone.values()) this.forget(entry);
  }

  /** A change another emulator made to a topic (shared store): applied here, nothing is written. */
  applyChange(type: string, id: string, item: StoredItem | undefined): void {
    if (type !== this.records.type) return;
    if (item) this.put(this.records.recordOf(item));
    else {
      const entry = this.entries.get(Number(id));
      if (entry) this.forget(entry);
    }
  }

  /** Another emulator appended to the topic (shared store). */
  appended(topicId: number): void {
    const entry = this.entries.get(topicId);
    if (entry) this.wake(entry);
  }

  /**
   * A consumer will read the topic and wait if it finds nothing: with a shared store, the others'
   * appends wake it once this settles (at once when undefined), so it reads after that.
   */
  watch(entry: TopicEntry): Awaitable<void> {
    return this.watchShared?.(entry.topic.id);
  }

  /** Whether anything waits on the topic's next append now (a consumer, a message stream). */
  waiting(topicId: number): boolean {
    return (this.entries.get(topicId)?.waiters.size ?? 0) > 0;
  }

  /** How many consumers of the platform's API long-poll the topic now. */
  waitingConsumers(topicId: number): number {
    return this.entries.get(topicId)?.consumers ?? 0;
  }

  list(): Topic[] {
    return [...this.entries.values()].map((e) => e.topic);
  }

  get(id: number): TopicEntry | undefined {
    return this.entries.get(id);
  }

  require(id: number): TopicEntry {
    const entry = this.entries.get(id);
    if (!entry) throw new NotFound(`Topic ${id} was not found`, 'TOPIC_NOT_FOUND');
    return entry;
  }

  /** The topic is listed once the store has it. */
  create(input: TopicCreation): Awaitable<Topic> {
    if (this.entries.size >= MAX_TOPICS) throw new Unprocessable(`A workspace holds at most ${MAX_TOPICS} topics`);
    this.assertNameFree(input.name);
    // Before the topic takes an id: a refused schema leaves no gap in the ids.
    const validate = compileTopicSchema(input.schema);
    return after(this.records.nextId(), (id) => {
      const now = this.times.format(this.clock());
      const topic: Topic = {
        id,
        name: input.name,
        description: input.description ?? null,
        schema: input.schema,
        retention: input.retention ?? DEFAULT_RETENTION_SECONDS,
        created_at: now,
        updated_at: now,
      };
      return after(this.store.addTopic(topic.id, topic.retention * 1000), () => {
        this.entries.set(topic.id, newEntry(topic, validate));
        this.records.put(topic);
        return topic;
      });
    });
  }

  /** The change applies once the store has the new retention. */
  update(entry: TopicEntry, input: TopicChange): Awaitable<Topic> {
    if (input.name !== undefined && input.name !== entry.topic.name) this.assertNameFree(input.name);
    const topic: Topic = {
      ...entry.topic,
      ...input,
      updated_at: this.times.format(this.clock()),
    };
    const validate = input.schema ? compileTopicSchema(topic.schema) : entry.validate;
    const stored =
      input.retention === undefined ? undefined : this.store.setRetention(topic.id, topic.retention * 1000);
    return after(stored, () => {
      entry.validate = validate;
      entry.topic = topic;
      this.records.put(topic);
      return topic;
    });
  }

  /** Unlisted at once; its waiting consumers get a 404. */
  delete(entry: TopicEntry): Awaitable<void> {
    this.records.delete(entry.topic.id);
    const removed = this.store.removeTopic(entry.topic.id);
    this.forget(entry);
    return removed;
  }

  /** The topic's retained messages (JSON text), oldest first. */
  async readAll(id: number): Promise<string[]> {
    const { messages } = await this.store.readOldest(id, Number.MAX_SAFE_INTEGER);
    return messages.map((message) => message.payload);
  }

  /**
   * Replaces every topic (their waiting consumers get a 404) with these, checked by the caller, and
   * publishes each one's messages in order; new ids continue after the highest of them.
   */
  async replaceAll(topics: { topic: Topic; validate: MessageValidator; messages: string[] }[]): Promise<void> {
    for (const entry of [...this.entries.values()]) await this.delete(entry);
    // The stored topics and their id counter are replaced together (the type's own restore).
    await this.records.replaceAll(topics.map(({ topic }) => topic));
    for (const { topic, validate, messages } of topics) {
      await this.store.addTopic(topic.id, topic.retention * 1000);
      this.entries.set(topic.id, newEntry(topic, validate));
      await appendAll(this.store, topic.id, messages);
    }
  }

  /** Wakes every consumer waiting on the topic; each re-reads from its own offset. */
  wake(entry: TopicEntry): void {
    entry.wakes++;
    if (entry.waiters.size === 0) return;
    const waiters = [...entry.waiters];
    entry.waiters.clear();
    for (const waiter of waiters) waiter();
  }

  /** At shutdown: every waiting consumer gets its answer now. */
  wakeAll(): void {
    for (const entry of this.entries.values()) this.wake(entry);
  }

  /** Adds the topic, or updates its entry in place (waiting consumers keep waiting on it). */
  private put(topic: Topic): void {
    const entry = this.entries.get(topic.id);
    if (!entry) {
      this.entries.set(topic.id, newEntry(topic, compileTopicSchema(topic.schema)));
      return;
    }
    if (JSON.stringify(topic.schema) !== JSON.stringify(entry.topic.schema)) {
      entry.validate = compileTopicSchema(topic.schema);
    }
    entry.topic = topic;
  }

  private forget(entry: TopicEntry): void {
    this.entries.delete(entry.topic.id);
    this.wake(entry);
  }

  private assertNameFree(name: string): void {
    for (const { topic } of this.entries.values()) {
      if (topic.name === name) throw new Unprocessable(`A topic named '${name}' already exists`);
    }
  }
}

export type { TopicEntry };

function newEntry(topic: Topic, validate: MessageValidator): TopicEntry {
  return { topic, validate, waiters: new Set(), consumers: 0, wakes: 0 };
}
