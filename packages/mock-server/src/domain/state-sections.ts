// The hand-written state in the state document (engine/state.ts): topics with their retained messages,
// and API clients with their API keys. The bootstrap key's client is kept through every load and reset
// and is not in the document; access tokens are not state (a load revokes those of the keys it replaces).
//
//   topics: [ { id, name, schema, retention, ..., messages: [ <payload>, ... ] } ]
//   api_clients: [ { id, name, auth_type, ... } ]
//   api_keys: [ { id, api_client_id, name, client_id, secret (or secret_sha256), scopes, ... } ]
//
// Every field the spec's Topic, ApiClient and ApiKey give a default to may be left out, ids too (they
// count on from the highest given). Messages are published again on load, in order: they get new ids
// and the load's time.
import { randomBytes } from 'node:crypto';
import type { Ajv2020, ValidateFunction } from 'ajv/dist/2020.js';
import { isObject } from '../engine/schema.js';
import { StateError, type StateSection } from '../engine/state.js';
import { IsoTimeFormatter } from '../spec/date-time.js';
import { compileTopicSchema, type MessageValidator, type TopicSchemaField } from '../spec/topic-schema.js';
import { violations } from '../spec/validators.js';
import type { JsonObject } from '../store/resource-store.js';
import {
  ALL_SCOPES,
  type ApiClient,
  type ApiKey,
  type Credentials,
  MASKED_SECRET,
  UNMODELLED_CLIENT_FIELDS,
} from './credentials.js';
import { DEFAULT_RETENTION_SECONDS, MAX_TOPICS, type Topic, type Topics } from './topics.js';

/** A validator of one of the management spec's component schemas; StateError names the entry at fault. */
function schemaCheck(ajv: Ajv2020, schemaName: string): (where: string, value: unknown) => void {
  let validate: ValidateFunction | undefined;
  return (where, value) => {
    validate ??= ajv.compile({ $ref: `urn:platform-api:management#/components/schemas/${schemaName}` });
    if (validate(value)) return;
    const problems = violations(validate.errors).map((v) => `${v.pointer} ${v.message}`);
    throw new StateError(`${where}: ${problems.join('; ')}`);
  };
}

function listOf(part: JsonObject, key: string): JsonObject[] {
  const list = part[key] ?? [];
  if (!Array.isArray(list)) throw new StateError(`${key} must be a list`);
  list.forEach((entry, index) => {
    if (!isObject(entry)) throw new StateError(`${key}[${index}] must be an object`);
  });
  return list as JsonObject[];
}

/** Ids as given (positive integers, unique), and the next ones for the entries without. */
function assignIds(key: string, entries: JsonObject[], taken: Set<number>): number[] {
  const given = new Set(taken);
  entries.forEach((entry, index) => {
    if (entry.id === undefined) return;
    if (!Number.isSafeInteger(entry.id) || (entry.id as number) < 1)
      throw new StateError(`${key}[${index}]: id must be a positive integer`);
    if (given.has(entry.id as number)) throw new StateError(`${key}[${index}]: id ${entry.id} is taken`);
    given.add(entry.id as number);
  });
  let next = Math.max(0, ...given) + 1;
  return entries.map((entry) => (entry.id === undefined ? next++ : (entry.id as number)));
}

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

export function credentialSection(credentials: Credentials, ajv: Ajv2020): StateSection {
  const checkClient = schemaCheck(ajv, 'ApiClient');
  const checkKey = schemaCheck(ajv, 'ApiKey');
  return {
    keys: ['api_clients', 'api_keys'],
    export() {
      const { clients, keys } = credentials.exportState();
      return {
        ...(clients.length > 0 ? { api_clients: clients } : {}),
        ...(keys.length > 0 ? { api_keys: keys } : {}),
      };
    },
    prepare(part) {
      const reserved = credentials.reserved();
      const { now } = reserved;
      const clientEntries = listOf(part, 'api_clients');
      const clientIds = assignIds('api_clients', clientEntries, reserved.clientIds);
      const clients = clientEntries.map((entry, index) => {
        const client = {
          description: null,
          project_id: null,
          auth_type: 'oauth2',
          email: null,
          mtls_enabled: null,
          validation_formula: null,
          cert_bundle_ids: null,
          created_at: now,
          updated_at: now,
          ...entry,
          id: clientIds[index],
        };
        // Checked as answered: with the fields the emulator does not model.
        checkClient(`api_clients[${index}]`, { ...UNMODELLED_CLIENT_FIELDS, ...client });
        return client as unknown as ApiClient;
      });
      const authTypes = new Map(clients.map((client) => [client.id, client.auth_type]));
      const keyEntries = listOf(part, 'api_keys');
      const keyIds = assignIds('api_keys', keyEntries, reserved.keyIds);
      const clientIdsTaken = new Set(reserved.keyClientIds);
      const keys = keyEntries.map((entry, index) => {
        const where = `api_keys[${index}]`;
        // A secret as text (a hand-written seed) or as its digest (an export): a document need not authenticate.
        const { secret: givenSecret, secret_sha256, ...fields } = entry;
        const secret = secret_sha256 === undefined ? (givenSecret ?? randomBytes(24).toString('base64url')) : undefined;
        const key = {
          active: true,
          active_since: now,
          ip_allow_list: [],
          scopes: [...ALL_SCOPES],
          topic_ids: null,
          client_id: randomBytes(10).toString('hex'),
          created_at: now,
          updated_at: now,
          ...fields,
          id: keyIds[index],
        } as JsonObject;
        const authType = authTypes.get(key.api_client_id as number);
        // Checked as answered: with its client's auth_type and the masked secret.
        checkKey(where, { ...key, auth_type: authType ?? 'oauth2', auth_token: MASKED_SECRET });
        if (authType === undefined) throw new StateError(`${where}: api_client_id names no API client of the document`);
        if (givenSecret !== undefined && secret_sha256 !== undefined)
          throw new StateError(`${where}: give secret or secret_sha256, not both`);
        if (secret_sha256 !== undefined && (typeof secret_sha256 !== 'string' || !/^[\w-]{43}$/.test(secret_sha256)))
          throw new StateError(`${where}: secret_sha256 must be a SHA-256 digest in base64url`);
        if (secret !== undefined && (typeof secret !== 'string' || secret === ''))
          throw new StateError(`${where}: secret must be a string`);
        if (clientIdsTaken.has(key.client_id as string))
          throw new StateError(`${where}: client_id ${key.client_id} is taken`);
        clientIdsTaken.add(key.client_id as string);
        return secret === undefined
          ? { ...(key as unknown as ApiKey), secret_sha256: secret_sha256 as string }
          : { ...(key as unknown as ApiKey), secret: secret as string };
      });
      return () => credentials.replaceState(clients, keys);
    },
  };
}
