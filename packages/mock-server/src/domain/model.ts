// The records of the domain, typed from the management spec's generated types (its components): the
// topics, API clients and API keys the domain keeps, less what only their answers carry.
import type { components } from '@platform-api/spec/types/management';
import type { NumericIds } from '../spec/operation-types.js';

type Schemas = components['schemas'];

/** A topic, as the management spec's Topic schema has it. */
export type Topic = Schemas['Topic'];
export type TopicCreation = Schemas['TopicCreateRequest'];
export type TopicChange = Schemas['TopicUpdateRequest'];

/** A right of an API key (ApiKey.scopes). */
export type Scope = Schemas['ApiKeyScopes'][number];
export const ALL_SCOPES: readonly Scope[] = [
  'event_streams:publish',
  'event_streams:consume',
  'topics:manage',
  'api_clients:manage',
];

/**
 * Fields of an API client that the platform answers and the emulator does not model: it keeps no logos
 * or policies, and no clients migrated from the older forms. A seed may set them.
 */
export const UNMODELLED_CLIENT_FIELDS = {
  is_legacy: false,
  logo: null,
  logo_2x: null,
  api_policies: [],
} as const;

type UnmodelledField = keyof typeof UNMODELLED_CLIENT_FIELDS;

/**
 * An API client as the domain keeps it: the management spec's ApiClient, but for the fields the
 * emulator does not model (answered with their defaults unless a seed set them), what is read from
 * the state when it is answered (its keys, their counts, its collections) and the token it does not
 * keep; it keeps the ids of the API collections it was given (`api_collections` when answered).
 */
export type ApiClient = Omit<
  Schemas['ApiClient'],
  UnmodelledField | 'active_api_keys_count' | 'total_api_keys_count' | 'api_token' | 'api_keys' | 'api_collections'
> &
  Partial<Pick<Schemas['ApiClient'], UnmodelledField>> &
  NumericIds<Pick<Schemas['ApiClientCreateRequest'], 'api_collection_ids'>>;

/**
 * An API key as the domain keeps it: the management spec's ApiKey, but for what only its answers
 * carry (its client's auth_type, its secret or the mask); its deny list is stored and answered, not
 * enforced (the emulator serves local traffic), and missing from keys stored before it was kept.
 */
export type ApiKey = Omit<Schemas['ApiKey'], 'auth_type' | 'auth_token' | 'ip_deny_list'> &
  Partial<Pick<Schemas['ApiKey'], 'ip_deny_list'>>;

/** The create and update bodies as the engine hands them over: their IdInput IDs read as numbers. */
export type ApiClientCreation = NumericIds<Schemas['ApiClientCreateRequest']>;
export type ApiClientChange = NumericIds<Schemas['ApiClientUpdateRequest']>;
export type ApiKeyCreation = NumericIds<Schemas['ApiKeyCreateRequest']>;
export type ApiKeyChange = NumericIds<Schemas['ApiKeyUpdateRequest']>;

/** How a key is stored, and exported in a state document: its fields and its secret's digest. */
export type StoredKey = ApiKey & { secret_sha256: string };

/** A key of a state document: its secret as text (a hand-written seed) or as its digest (an export). */
export type DocumentKey = ApiKey &
  ({ secret: string; secret_sha256?: never } | { secret_sha256: string; secret?: never });

/** What every answer but create_api_key's and refresh_api_key_secret's gives as a key's `auth_token`. */
export const MASKED_SECRET = '********';

/** A record as the domain holds it: what the spec marks read-only (set by the server) is the domain's to change. */
export type Writable<T> = { -readonly [Field in keyof T]: T[Field] };
