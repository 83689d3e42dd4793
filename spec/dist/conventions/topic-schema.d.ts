import type { components } from '@platform-api/spec/types/management';
/** A field of a topic's message schema, as the management spec describes it. */
export type TopicSchemaField = components['schemas']['TopicSchemaField'];
export type TopicFieldType = TopicSchemaField['type'];
/** The types whose values hold no fields: `object` holds `properties`, `array` holds elements of its `of`. */
export type TopicScalarType = Exclude<TopicFieldType, 'object' | 'array'>;
/** Fields nest at most this deep (`properties` within `properties`), as the management spec documents. */
export declare const MAX_FIELD_DEPTH = 32;
export interface TopicScalar {
    /** Whether a message's value is one of this type, as the platform checks a published message. */
    accepts(value: unknown): boolean;
    /** The TypeScript type of such a value in a message parsed from JSON. */
    typescript: 'string' | 'number' | 'boolean';
}
/** Each scalar type of the format. An optional field may also be absent or null, whatever its type. */
export declare const TOPIC_SCALARS: Readonly<Record<TopicScalarType, TopicScalar>>;
