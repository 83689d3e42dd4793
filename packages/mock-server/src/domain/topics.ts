// Topics of the workspace: their fields (spec schema Topic), compiled message validators and the
// consumers waiting for their next message.
import type { Ajv2020 } from 'ajv/dist/2020.js';
import { NotFound, Unprocessable } from '../errors.js';
import { IsoTimeFormatter } from '../spec/date-time.js';
import { compileTopicSchema, type MessageValidator, type TopicSchemaField } from '../spec/topic-schema.js';
import { type Awaitable, after, appendAll, type MessageStore } from '../store/message-store.js';

export interface Topic {
  id: number;
  name: string;
  description: string | null;
  schema: TopicSchemaField[];
  retention: number;
  created_at: string;
  updated_at: string;
}

export interface TopicInput {
  name?: string;
  description?: string | null;
  schema?: TopicSchemaField[];
  retention?: number;
}

interface TopicEntry {
  topic: Topic;
  validate: MessageValidator;
  /** Called (and forgotten) on the next append: long-polling consumers. */
  waiters: Set<() => void>;
}

export const MAX_TOPICS = 20;
const DEFAULT_RETENTION_SECONDS = 604800;

export class Topics {
  private readonly entries = new Map<number, TopicEntry>();
  private readonly times = new IsoTimeFormatter();
  private nextId = 1;

  constructor(
    private readonly store: MessageStore,
    private readonly ajv: Ajv2020,
    private readonly clock: () => number,
  ) {}

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
  create(input: Required<Pick<TopicInput, 'name' | 'schema'>> & TopicInput): Awaitable<Topic> {
    if (this.entries.size >= MAX_TOPICS) throw new Unprocessable(`A workspace holds at most ${MAX_TOPICS} topics`);
    this.assertNameFree(input.name);
    const now = this.times.format(this.clock());
    const topic: Topic = {
      id: this.nextId++,
      name: input.name,
      description: input.description ?? null,
      schema: input.schema,
      retention: input.retention ?? DEFAULT_RETENTION_SECONDS,
      created_at: now,
      updated_at: now,
    };
    const validate = compileTopicSchema(this.ajv, topic.schema);
    return after(this.store.addTopic(topic.id, topic.retention * 1000), () => {
      this.entries.set(topic.id, { topic, validate, waiters: new Set() });
      return topic;
    });
  }

  /** The change applies once the store has the new retention. */
  update(entry: TopicEntry, input: TopicInput): Awaitable<Topic> {
    if (input.name !== undefined && input.name !== entry.topic.name) this.assertNameFree(input.name);
    const topic: Topic = {
      ...entry.topic,
      ...input,
      updated_at: this.times.format(this.clock()),
    };
    const validate = input.schema ? compileTopicSchema(this.ajv, topic.schema) : entry.validate;
    const stored =
      input.retention === undefined ? undefined : this.store.setRetention(topic.id, topic.retention * 1000);
    return after(stored, () => {
      entry.validate = validate;
      entry.topic = topic;
      return topic;
    });
  }

  /** Unlisted at once; its waiting consumers get a 404. */
  delete(entry: TopicEntry): Awaitable<void> {
    this.entries.delete(entry.topic.id);
    const removed = this.store.removeTopic(entry.topic.id);
    this.wake(entry);
    return removed;
  }

  /** The topic's retained messages (JSON text), oldest first. */
  async readAll(id: number): Promise<string[]> {
    const { messages } = await this.store.readOldest(id, Number.MAX_SAFE_INTEGER);
    return messages.map((message) => message.payload);
  }

  /** Compiles a topic's message schema (throws on a schema ajv cannot compile). */
  compile(schema: TopicSchemaField[]): MessageValidator {
    return compileTopicSchema(this.ajv, schema);
  }

  /**
   * Replaces every topic (their waiting consumers get a 404) with these, checked by the caller, and
   * publishes each one's messages in order; new ids continue after the highest held.
   */
  async replaceAll(topics: { topic: Topic; validate: MessageValidator; messages: string[] }[]): Promise<void> {
    for (const entry of [...this.entries.values()]) await this.delete(entry);
    for (const { topic, validate, messages } of topics) {
      await this.store.addTopic(topic.id, topic.retention * 1000);
      this.entries.set(topic.id, { topic, validate, waiters: new Set() });
      await appendAll(this.store, topic.id, messages);
    }
    this.nextId = Math.max(0, ...this.entries.keys()) + 1;
  }

  /** Wakes every consumer waiting on the topic; each re-reads from its own offset. */
  wake(entry: TopicEntry): void {
    if (entry.waiters.size === 0) return;
    const waiters = [...entry.waiters];
    entry.waiters.clear();
    for (const waiter of waiters) waiter();
  }

  /** At shutdown: every waiting consumer gets its answer now. */
  wakeAll(): void {
    for (const entry of this.entries.values()) this.wake(entry);
  }

  private assertNameFree(name: string): void {
    for (const { topic } of this.entries.values()) {
      if (topic.name === name) throw new Unprocessable(`A topic named '${name}' already exists`);
    }
  }
}

export type { TopicEntry };
