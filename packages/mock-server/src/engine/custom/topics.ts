// Topic management (/api/event_streams/topics and the legacy /pubsub/topics forms, same behaviour),
// served by the engine from the domain's topics, which publish and consume read: create, list, get,
// update, delete and purge. A topic's schema is compiled for its messages (too deep: 400), its
// retention is the message store's; deleting a topic drops its messages and answers its waiting
// consumers (404), purging drops its messages and keeps the topic.
//
// Their part of the state document (topics) is here too:
//
//   topics: [ { id, name, schema, retention, ..., messages: [ <payload>, ... ] } ]
//
// Every field the spec's Topic gives a default to may be left out, ids too (they count on from the
// highest given). Messages are published again on load, in order: they get new ids and the load's time.
import type { Topic } from '../../domain/model.js';
import { DEFAULT_RETENTION_SECONDS, MAX_TOPICS, type Topics } from '../../domain/topics.js';
import type { SchemaChecks } from '../../spec/checks.js';
import { IsoTimeFormatter } from '../../spec/date-time.js';
import { compileTopicSchema, type MessageValidator, type TopicSchemaField } from '../../spec/topic-schema.js';
import { type Family, typed } from '../contract.js';
import { listPage } from '../listing.js';
import { assignIds, listOf, type RecordCheck, StateError, type StateSection, schemaCheck } from '../sections.js';

export const topicsFamily = {
  types: ['topic'],
  scope: 'topics:manage',
  handlers: {
    // TopicList documents `data` and `count`; the answer has always named the page served too.
    'topics.list': typed<'list_topics'>(async ({ domain }, op, { params }) => {
      const { items = [], page } = listPage(op.operation, params, domain.topics.list());
      return { body: { data: items, count: page?.total, page: page?.number, per_page: page?.size } };
    }),
    'topics.create': typed<'create_topic'>(async ({ domain }, _op, { body }) => ({
      item: await domain.topics.create(body),
    })),
    'topics.get': typed<'get_topic'>(async ({ domain }, _op, { params }) => ({
      item: domain.topics.require(params.topic_id).topic,
    })),
    'topics.update': typed<'update_topic'>(async ({ domain: { topics } }, _op, { params, body }) => ({
      item: await topics.update(topics.require(params.topic_id), body),
    })),
    'topics.delete': typed<'delete_topic'>(async ({ domain: { topics } }, _op, { params }) => {
      await topics.delete(topics.require(params.topic_id));
      return {};
    }),
    'topics.purge': typed<'purge_topic'>(async ({ domain: { topics, messages } }, _op, { params }) => {
      await messages.purge(topics.require(params.topic_id).topic.id);
      return {};
    }),
  },
  // The topic the path names exists before the body is read: a 404 comes before a 400 for the body.
  prechecks: {
    'topics.update': ({ domain }, _op, params) => void domain.topics.require(Number(params.topic_id)),
  },
  section: ({ topics }, { checks, clock }) => topicSection(topics, checks, clock),
} satisfies Family;

/** The topic's message validator; StateError for a schema the emulator refuses (too deep). */
function compiled(where: string, schema: TopicSchemaField[]): MessageValidator {
  try {
    return compileTopicSchema(schema);
  } catch (error) {
    throw new StateError(`${where}.schema: ${(error as Error).message}`);
  }
}

export function topicSection(topics: Topics, checks: SchemaChecks, clock: () => number): StateSection {
  const check: RecordCheck<Topic> = schemaCheck(checks, 'Topic');
  const times = new IsoTimeFormatter();
  return {
    keys: ['topics'],
    async export() {
      const list = [];
      for (const topic of topics.list()) {
        const read = await topics.readAll(topic.id);
        list.push({ ...structuredClone(topic), messages: read.map((payload) => JSON.parse(payload) as unknown) });
      }
      return list.length > 0 ? { topics: list } : {};
    },
    prepare(part) {
      const entries = listOf(part, 'topics');
      if (entries.length > MAX_TOPICS) throw new StateError(`topics: a workspace holds at most ${MAX_TOPICS} topics`);
      const ids = assignIds('topics', entries, new Set());
      const now = times.format(clock());
      const names = new Set<string>();
      const prepared = entries.map((entry, index) => {
        const where = `topics[${index}]`;
        const { messages = [], ...fields } = entry;
        const topic = {
          description: null,
          retention: DEFAULT_RETENTION_SECONDS,
          created_at: now,
          updated_at: now,
          ...fields,
          id: ids[index],
        };
        check(where, topic);
        const { name } = topic;
        if (names.has(name)) throw new StateError(`${where}: a topic named '${name}' is already in the document`);
        names.add(name);
        const validate = compiled(where, topic.schema);
        if (!Array.isArray(messages)) throw new StateError(`${where}.messages must be a list of messages`);
        const payloads = messages.map((message, at) => {
          const mismatch = validate(message);
          if (mismatch)
            throw new StateError(`${where}.messages[${at}]: ${mismatch.field} ${mismatch.message}`.replace(/ +/g, ' '));
          return JSON.stringify(message);
        });
        return { topic, validate, messages: payloads };
      });
      return () => topics.replaceAll(prepared);
    },
  };
}
