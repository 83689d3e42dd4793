// A topic's message schema, the platform's format (a list of TopicSchemaField): its field types, what a
// value of each scalar type is and its TypeScript type, and how deep fields nest. The emulator's
// message check (mock-server src/spec/topic-schema.ts) and the client's `platform-api typegen` both
// read them from here.
import type { components } from '@platform-api/spec/types/management';
import { isDate, isDateTime } from './date-time.js';

/** A field of a topic's message schema, as the management spec describes it. */
export type TopicSchemaField = components['schemas']['TopicSchemaField'];
export type TopicFieldType = TopicSchemaField['type'];
/** The types whose values hold no fields: `object` holds `properties`, `array` holds elements of its `of`. */
export type TopicScalarType = Exclude<TopicFieldType, 'object' | 'array'>;

/** Fields nest at most this deep (`properties` within `properties`), as the management spec documents. */
export const MAX_FIELD_DEPTH = 32;

export interface TopicScalar {
  /** Whether a message's value is one of this type, as the platform checks a published message. */
  accepts(value: unknown): boolean;
  /** The TypeScript type of such a value in a message parsed from JSON. */
  typescript: 'string' | 'number' | 'boolean';
}

/** Each scalar type of the format. An optional field may also be absent or null, whatever its type. */
export const TOPIC_SCALARS: Readonly<Record<TopicScalarType, TopicScalar>> = {
  string: { accepts: (value) => typeof value === 'string', typescript: 'string' },
  integer: { accepts: Number.isInteger, typescript: 'number' },
  // JSON.parse reads a number past a double's range (1e400) as Infinity: refused, as by ajv's strictNumbers.
  number: { accepts: (value) => Number.isFinite(value), typescript: 'number' },
  boolean: { accepts: (value) => typeof value === 'boolean', typescript: 'boolean' },
  date: { accepts: (value) => typeof value === 'string' && isDate(value), typescript: 'string' },
  date_time: { accepts: (value) => typeof value === 'string' && isDateTime(value), typescript: 'string' },
};
