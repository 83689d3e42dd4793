// The records of the domain, typed from the management spec's generated types (its components): the
// topics, API clients and API keys the domain keeps, less what only their answers carry.
import type { components } from '@platform-api/spec/types/management';

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
 * Fields of an API client that the platform answers and the emulator does not model: it keeps no logos,
 * policies or collections, and no clients migrated from the older forms. A seed may set them.
 */
export const UNMODELLED_CLIENT_FIELDS = {
  is_legacy: false,
  logo: null,
  logo_2x: null,
  api_policies: [],
  api_collections: [],
} as const;

type UnmodelledField = keyof typeof UNMODELLED_CLIENT_FIELDS;

/**
 * An API client as the domain keeps it: the management spec's ApiClient, but for the fields the
 * emulator does not model (answered with their defaults unless a seed set them) and the key counts
 * and token it does not keep.
 */
export type ApiClient = Omit<
  Schemas['ApiClient'],
  UnmodelledField | 'active_api_keys_count' | 'total_api_keys_count' | 'api_token'
> &
  Partial<Pick<Schemas['ApiClient'], UnmodelledField>>;

/**
 * An API key as the domain keeps it: the management spec's ApiKey, but for what only its answers
 * carry (its client's auth_type, its secret or the mask) and the deny list the emulator does not keep.
 */
export type ApiKey = Omit<Schemas['ApiKey'], 'auth_type' | 'auth_token' | 'ip_deny_list'>;

export type ApiClientCreation = Schemas['ApiClientCreateRequest'];
export type ApiClientChange = Schemas['ApiClientUpdateRequest'];
export type ApiKeyCreation = Schemas['ApiKeyCreateRequest'];
export type ApiKeyChange = Schemas['ApiKeyUpdateRequest'];

/** How a key is stored, and exported in a state document: its fields and its secret's digest. */
export type StoredKey = ApiKey & { secret_sha256: string };

/** A key of a state document: its secret as text (a hand-written seed) or as its digest (an export). */
export type DocumentKey = ApiKey &
  ({ secret: string; secret_sha256?: never } | { secret_sha256: string; secret?: never });

/** What every answer but create_api_key's and refresh_api_key_secret's gives as a key's `auth_token`. */
export const MASKED_SECRET = '********';

/** A record as the domain holds it: what the spec marks read-only (set by the server) is the domain's to change. */
export type Writable<T> = { -readonly [Field in keyof T]: T[Field] };
