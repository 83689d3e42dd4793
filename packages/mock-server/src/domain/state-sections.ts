// The topics' part of the state document (engine/state.ts): each topic with its retained messages.
//
//   topics: [ { id, name, schema, retention, ..., messages: [ <payload>, ... ] } ]
//
// Every field the spec's Topic gives a default to may be left out, ids too (they count on from the
// highest given). Messages are published again on load, in order: they get new ids and the load's time.
import type { Ajv2020 } from 'ajv/dist/2020.js';
import { assignIds, listOf, StateError, type StateSection, schemaCheck } from '../engine/sections.js';
import { IsoTimeFormatter } from '../spec/date-time.js';
import { compileTopicSchema, type MessageValidator, type TopicSchemaField } from '../spec/topic-schema.js';
import type { JsonObject } from '../store/resource-store.js';
import { MAX_TOPICS, type Topic, type Topics } from './topics.js';

const DEFAULT_RETENTION_SECONDS = 604800;

/** The topic's message validator; StateError for a schema the emulator refuses (too deep). */
function compiled(where: string, schema: TopicSchemaField[]): MessageValidator {
  try {
    return compileTopicSchema(schema);
  } catch (error) {
    throw new StateError(`${where}.schema: ${(error as Error).message}`);
  }
}

export function topicSection(topics: Topics, ajv: Ajv2020, clock: () => number): StateSection {
  const check = schemaCheck(ajv, 'Topic');
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
        } as JsonObject;
        check(where, topic);
        const { name } = topic as unknown as Topic;
        if (names.has(name)) throw new StateError(`${where}: a topic named '${name}' is already in the document`);
        names.add(name);
        const validate = compiled(where, topic.schema as TopicSchemaField[]);
        if (!Array.isArray(messages)) throw new StateError(`${where}.messages must be a list of messages`);
        const payloads = messages.map((message, at) => {
          const mismatch = validate(message);
          if (mismatch)
            throw new StateError(`${where}.messages[${at}]: ${mismatch.field} ${mismatch.message}`.replace(/ +/g, ' '));
          return JSON.stringify(message);
        });
        return { topic: topic as unknown as Topic, validate, messages: payloads };
      });
      return () => topics.replaceAll(prepared);
    },
  };
}
