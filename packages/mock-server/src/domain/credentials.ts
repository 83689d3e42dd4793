// API clients (v2), their API keys, and the access tokens issued for the keys. The indexes are here,
// in memory; every change is written through to the resource store, which rebuilds them at start.
// With a store shared by several emulators (Redis), the indexes also follow the changes the others
// announce, and a bearer token not found is looked for again once caught up with them.
// Secrets and tokens are kept as SHA-256 digests only: they are random (192 and 256 bits), so a fast
// digest is enough, and a data dir holds nothing that authenticates.
import { hash, randomBytes, timingSafeEqual } from 'node:crypto';
import { type Awaitable, after } from '../awaitable.js';
import { Forbidden, NotFound, Unauthorized } from '../errors.js';
import { IsoTimeFormatter } from '../spec/date-time.js';
import { asJsonObject, type ResourceStore, type StoredItem } from '../store/resource-store.js';

export type Scope = 'event_streams:publish' | 'event_streams:consume' | 'topics:manage' | 'api_clients:manage';
export const ALL_SCOPES: readonly Scope[] = [
  'event_streams:publish',
  'event_streams:consume',
  'topics:manage',
  'api_clients:manage',
];

export interface ApiClient {
  id: number;
  name: string;
  description: string | null;
  project_id: number | null;
  /** Every kind's keys get tokens at the token endpoint here: the emulator does not check JWTs or OIDC. */
  auth_type: 'token' | 'jwt' | 'oauth2' | 'oidc';
  email: string | null;
  mtls_enabled: boolean | null;
  validation_formula: string | null;
  cert_bundle_ids: number[] | null;
  created_at: string;
  updated_at: string;
}

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

/** What every answer but create_api_key's and refresh_api_key_secret's gives as a key's `auth_token`. */
export const MASKED_SECRET = '********';

/** What a create may set; the rest of an API client is the emulator's. */
export type ApiClientInput = Pick<ApiClient, 'name'> &
  Partial<
    Pick<
      ApiClient,
      'description' | 'project_id' | 'auth_type' | 'email' | 'mtls_enabled' | 'validation_formula' | 'cert_bundle_ids'
    >
  >;

export interface ApiKey {
  id: number;
  api_client_id: number;
  name: string;
  active: boolean;
  active_since: string | null;
  ip_allow_list: string[];
  scopes: Scope[];
  topic_ids: number[] | null;
  client_id: string;
  created_at: string;
  updated_at: string;
}

interface KeyEntry {
  key: ApiKey;
  secretDigest: string;
  /** Digests of the bearer tokens of the key: issued with the current secret, and its static token. */
  tokens: Set<string>;
}

interface TokenEntry {
  entry: KeyEntry;
  /** Infinity for a static token (the secret of a key of a `token` client), which is not stored. */
  expiresAt: number;
}

/** How a key is stored: its fields and its secret's digest. */
export type StoredKey = ApiKey & { secret_sha256: string };

/** Resource types of the credentials; prefixed, so they never meet the management engine's types. */
const CLIENTS = 'emulator:api_client';
const KEYS = 'emulator:api_key';
const TOKENS = 'emulator:access_token';

/** How a key is stored, and exported in a state document: its fields and its secret's digest. */
const storedKey = ({ key, secretDigest }: KeyEntry): StoredKey => ({ ...key, secret_sha256: secretDigest });

const randomToken = (bytes: number) => randomBytes(bytes).toString('base64url');
const digest = (secret: string) => hash('sha256', secret, 'base64url');

export class Credentials {
  private readonly clients = new Map<number, ApiClient>();
  private readonly times = new IsoTimeFormatter();
  private readonly keys = new Map<number, KeyEntry>();
  private readonly keysByClientId = new Map<string, KeyEntry>();
  /** Bearer tokens: issued access tokens and, for `token` clients, the keys' static tokens. */
  /** By the digest of the token. */
  private readonly tokens = new Map<string, TokenEntry>();
  /**
   * The last Authorization header found in `tokens`, valid while `tokens` is unchanged: load tests
   * send one header over and over, and comparing it costs a fraction of digesting its token for the
   * lookup.
   */
  private recent: { header: string; digest: string; found: TokenEntry; tokensVersion: number } | undefined;
  private tokensVersion = 0;
  private issued = 0;
  /** API clients that a state load or reset keeps, with their keys (the bootstrap key's client). */
  private readonly kept = new Set<number>();

  constructor(
    private readonly resources: ResourceStore,
    private readonly clock: () => number,
    private readonly tokenTtlSeconds: number,
    /** With a shared store: settles once the changes other emulators announced so far are applied here. */
    private readonly catchUp?: () => Promise<void>,
  ) {}

  /**
   * Rebuilds the indexes from the resource store, at start (and after a shared store came back);
   * expired tokens answer TOKEN_EXPIRED, as before. Replaced in one go, once everything is read.
   */
  async load(): Promise<void> {
    const [clients, keys, tokens] = await Promise.all([
      this.resources.list(CLIENTS),
      this.resources.list(KEYS),
      this.resources.list(TOKENS),
    ]);
    for (const index of [this.clients, this.keys, this.keysByClientId, this.tokens]) index.clear();
    this.tokensVersion++;
    for (const { value } of clients) {
      const client = value as unknown as ApiClient;
      this.clients.set(client.id, client);
    }
    for (const { value } of keys) this.addKey(keyEntry(value));
    for (const { id, parent, value } of tokens) {
      const entry = this.keys.get(Number(parent));
      if (entry) this.setToken(id, { entry, expiresAt: Number(value.expires_at) });
    }
  }

  /** A change another emulator made to a type of this index (shared store): applied here, nothing is written. */
  applyChange(type: string, id: string, item: StoredItem | undefined): void {
    if (type === CLIENTS) {
      if (item) this.clients.set(Number(id), item.value as unknown as ApiClient);
      else this.clients.delete(Number(id));
    } else if (type === KEYS) {
      const entry = this.keys.get(Number(id));
      if (!item) {
        if (entry) this.forgetKey(entry);
      } else if (!entry) {
        this.addKey(keyEntry(item.value));
      } else {
        // In place: its issued tokens stay, and their revocations come as changes of their own.
        const { key, secretDigest } = keyEntry(item.value);
        this.forgetStaticToken(entry);
        this.keysByClientId.delete(entry.key.client_id);
        Object.assign(entry, { key, secretDigest });
        this.keysByClientId.set(key.client_id, entry);
        this.registerStaticToken(entry);
      }
    } else if (type === TOKENS) {
      const entry = item && this.keys.get(Number(item.parent));
      if (entry) this.setToken(id, { entry, expiresAt: Number(item.value.expires_at) });
      else if (!item) this.forgetToken(id);
    }
  }

  // --- API clients -------------------------------------------------------------------------------

  listClients(): ApiClient[] {
    return [...this.clients.values()];
  }

  requireClient(id: number): ApiClient {
    const client = this.clients.get(id);
    if (!client) throw new NotFound(`API client ${id} was not found`);
    return client;
  }

  createClient(input: ApiClientInput): Awaitable<ApiClient> {
    return after(this.resources.nextId(CLIENTS), (id) => {
      const now = this.now();
      const client: ApiClient = {
        id,
        name: input.name,
        description: input.description ?? null,
        project_id: input.project_id ?? null,
        auth_type: input.auth_type ?? 'oauth2',
        email: input.email ?? null,
        mtls_enabled: input.mtls_enabled ?? null,
        validation_formula: input.validation_formula ?? null,
        cert_bundle_ids: input.cert_bundle_ids ?? null,
        created_at: now,
        updated_at: now,
      };
      this.clients.set(client.id, client);
      this.saveClient(client);
      return client;
    });
  }

  updateClient(client: ApiClient, input: Partial<Pick<ApiClient, 'name' | 'description'>>): ApiClient {
    Object.assign(client, input, { updated_at: this.now() });
    this.saveClient(client);
    return client;
  }

  deleteClient(client: ApiClient): void {
    for (const key of this.listKeys(client.id)) this.deleteKey(key);
    this.clients.delete(client.id);
    this.resources.delete(CLIENTS, String(client.id));
  }

  /** The client and its keys stay through every state load and reset, and are not part of the state. */
  keepThroughReset(clientId: number): void {
    this.kept.add(clientId);
  }

  /**
   * Puts a kept client and one of its keys back as they were (a reset): their fields, the key enabled
   * and its secret, whose tokens stay valid when it had not changed. The client's other keys go.
   */
  restoreKept(client: ApiClient, key: ApiKey, secret: string): void {
    this.clients.set(client.id, structuredClone(client));
    this.saveClient(client);
    for (const other of this.listKeys(client.id)) if (other.id !== key.id) this.deleteKey(other);
    const secretDigest = digest(secret);
    const current = this.keys.get(key.id);
    if (current?.key.active && sameDigest(current.secretDigest, secretDigest)) {
      Object.assign(current.key, structuredClone(key));
      this.saveKey(current);
      return;
    }
    if (current) {
      this.revokeTokens(current);
      this.forgetKey(current);
    }
    const entry: KeyEntry = { key: { ...structuredClone(key), active: true }, secretDigest, tokens: new Set() };
    this.addKey(entry);
    this.saveKey(entry);
  }

  /** The clients and keys (with their secrets' digests) of the state document: all but the kept ones. */
  exportState(): { clients: ApiClient[]; keys: StoredKey[] } {
    const clients = this.listClients().filter((client) => !this.kept.has(client.id));
    const keys = [...this.keys.values()].filter((entry) => !this.kept.has(entry.key.api_client_id)).map(storedKey);
    return { clients: structuredClone(clients), keys: structuredClone(keys) };
  }

  /** The ids, client IDs and creation times a state document cannot take or fills in. */
  reserved(): { clientIds: Set<number>; keyIds: Set<number>; keyClientIds: Set<string>; now: string } {
    const keptKeys = [...this.keys.values()].filter((entry) => this.kept.has(entry.key.api_client_id));
    return {
      clientIds: new Set(this.kept),
      keyIds: new Set(keptKeys.map((entry) => entry.key.id)),
      keyClientIds: new Set(keptKeys.map((entry) => entry.key.client_id)),
      now: this.now(),
    };
  }

  /**
   * Replaces every client and key but the kept ones (their tokens are revoked) with these, checked by
   * the caller (a key's secret given as text or as its digest); new ids continue after the highest held.
   */
  async replaceState(
    clients: ApiClient[],
    keys: (ApiKey & ({ secret: string } | { secret_sha256: string }))[],
  ): Promise<void> {
    for (const client of this.listClients()) if (!this.kept.has(client.id)) this.deleteClient(client);
    for (const client of clients) this.clients.set(client.id, client);
    for (const given of keys) {
      const { secret, secret_sha256, ...key } = given as ApiKey & { secret?: string; secret_sha256?: string };
      this.addKey({ key, secretDigest: secret_sha256 ?? digest(secret ?? ''), tokens: new Set() });
    }
    // The stored clients and keys and their id counters are replaced together (each type's own restore).
    const storedKeys = [...this.keys.values()].map((entry) => ({
      id: String(entry.key.id),
      parent: String(entry.key.api_client_id),
      value: asJsonObject(storedKey(entry)),
    }));
    const storedClients = this.listClients().map((client) => ({ id: String(client.id), value: asJsonObject(client) }));
    const last = (ids: Iterable<number>) => Math.max(0, ...ids);
    await this.resources.restore(
      { items: { [CLIENTS]: storedClients }, counters: { [CLIENTS]: last(this.clients.keys()) } },
      CLIENTS,
    );
    await this.resources.restore({ items: { [KEYS]: storedKeys }, counters: { [KEYS]: last(this.keys.keys()) } }, KEYS);
  }

  // --- API keys ----------------------------------------------------------------------------------

  listKeys(clientId: number): ApiKey[] {
    return [...this.keys.values()].map((e) => e.key).filter((k) => k.api_client_id === clientId);
  }

  /** The key `keyId` of the API client `clientId` (which must exist). */
  requireKey(clientId: number, keyId: number): ApiKey {
    const client = this.requireClient(clientId);
    const key = this.keys.get(keyId)?.key;
    if (key?.api_client_id !== client.id) throw new NotFound(`API key ${keyId} was not found`);
    return key;
  }

  /** The key with this client ID, if any. */
  keyOfClientId(clientId: string): ApiKey | undefined {
    return this.keysByClientId.get(clientId)?.key;
  }

  findKey(id: number): ApiKey | undefined {
    return this.keys.get(id)?.key;
  }

  /** Returns the key and its secret (the only time, with refreshSecret, that the secret is shown). */
  createKey(
    client: ApiClient,
    input: Pick<ApiKey, 'name'> & Partial<Pick<ApiKey, 'scopes' | 'topic_ids' | 'ip_allow_list'>>,
    credentials: { clientId?: string; secret?: string } = {},
  ): Awaitable<{ key: ApiKey; secret: string }> {
    return after(this.resources.nextId(KEYS), (id) => {
      const now = this.now();
      const key: ApiKey = {
        id,
        api_client_id: client.id,
        name: input.name,
        active: true,
        active_since: now,
        ip_allow_list: input.ip_allow_list ?? [],
        scopes: input.scopes ?? [...ALL_SCOPES],
        topic_ids: input.topic_ids ?? null,
        client_id: credentials.clientId ?? randomBytes(10).toString('hex'),
        created_at: now,
        updated_at: now,
      };
      const secret = credentials.secret ?? randomToken(24);
      const entry: KeyEntry = { key, secretDigest: digest(secret), tokens: new Set() };
      this.addKey(entry);
      this.saveKey(entry);
      return { key, secret };
    });
  }

  updateKey(key: ApiKey, input: Partial<Pick<ApiKey, 'name' | 'scopes' | 'topic_ids' | 'ip_allow_list'>>): ApiKey {
    Object.assign(key, input, { updated_at: this.now() });
    this.saveKey(this.entry(key));
    return key;
  }

  deleteKey(key: ApiKey): void {
    const entry = this.entry(key);
    this.revokeTokens(entry);
    this.forgetKey(entry);
    this.resources.delete(KEYS, String(key.id));
  }

  setActive(key: ApiKey, active: boolean): ApiKey {
    const entry = this.entry(key);
    if (key.active !== active) {
      key.active = active;
      key.active_since = active ? this.now() : null;
      key.updated_at = this.now();
      // Disabling revokes the key's access tokens; enabling restores only its static token.
      if (active) this.registerStaticToken(entry);
      else this.revokeTokens(entry);
      this.saveKey(entry);
    }
    return key;
  }

  /** Replaces the secret (by a new random one unless given) and revokes every token issued with the old one. */
  refreshSecret(key: ApiKey, secret = randomToken(24)): string {
    const entry = this.entry(key);
    this.revokeTokens(entry);
    entry.secretDigest = digest(secret);
    key.updated_at = this.now();
    this.registerStaticToken(entry);
    this.saveKey(entry);
    return secret;
  }

  // --- Tokens ------------------------------------------------------------------------------------

  /** The key for a client ID and secret, or undefined when they do not authenticate an active key. */
  authenticateClient(clientId: string, secret: string): ApiKey | undefined {
    const entry = this.keysByClientId.get(clientId);
    if (!entry?.key.active || !sameDigest(entry.secretDigest, digest(secret))) return undefined;
    return entry.key;
  }

  issueToken(key: ApiKey): { token: string; expiresIn: number } {
    const entry = this.entry(key);
    if (++this.issued % 1024 === 0) this.forgetExpiredTokens();
    const token = randomToken(32);
    const tokenDigest = digest(token);
    const expiresAt = this.clock() + this.tokenTtlSeconds * 1000;
    this.setToken(tokenDigest, { entry, expiresAt });
    this.resources.put(TOKENS, { id: tokenDigest, parent: String(key.id), value: { expires_at: expiresAt } });
    return { token, expiresIn: this.tokenTtlSeconds };
  }

  /** The key a bearer token belongs to; Unauthorized when it is missing, unknown, revoked or expired. */
  authenticateBearer(authorization: string | undefined): Awaitable<ApiKey> {
    if (!this.catchUp) return this.bearerKey(authorization);
    try {
      return this.bearerKey(authorization);
    } catch (error) {
      if (!(error instanceof Unauthorized && error.code === 'INVALID_TOKEN')) throw error;
      // Issued by another emulator a moment ago, perhaps: once caught up with its announcements, it is here.
      return this.catchUp().then(() => this.bearerKey(authorization));
    }
  }

  private bearerKey(authorization: string | undefined): ApiKey {
    const { found } = this.findBearer(authorization);
    // Kept until the sweep below: a client sending it again is told again that it expired.
    if (this.clock() >= found.expiresAt) {
      throw new Unauthorized('TOKEN_EXPIRED', 'The access token has expired; request a new one');
    }
    return found.entry.key;
  }

  /** Forbidden unless the key has the right `scope`, and for an event-streams call `topicId` among its topics. */
  authorize(key: ApiKey, scope: Scope, topicId?: number): void {
    if (!key.scopes.includes(scope)) throw new Forbidden(`This API key has no ${scope} right`);
    if (topicId !== undefined && key.topic_ids && !key.topic_ids.includes(topicId)) {
      throw new Forbidden(`This API key has no right on topic ${topicId}`);
    }
  }

  private findBearer(authorization: string | undefined): { digest: string; found: TokenEntry } {
    const recent = this.recent;
    if (recent && authorization === recent.header && recent.tokensVersion === this.tokensVersion) return recent;
    // "Bearer <token>" as clients send it is looked up without the regular expression: tokens hold no
    // whitespace, so a token found this way is the one the expression would have found.
    if (authorization?.startsWith('Bearer ')) {
      const tokenDigest = digest(authorization.slice(7));
      const found = this.tokens.get(tokenDigest);
      if (found) {
        this.recent = { header: authorization, digest: tokenDigest, found, tokensVersion: this.tokensVersion };
        return this.recent;
      }
    }
    const token = authorization ? BEARER.exec(authorization)?.[1] : undefined;
    if (!token) throw new Unauthorized('UNAUTHORIZED', 'The Authorization header must be "Bearer <ACCESS_TOKEN>"');
    const tokenDigest = digest(token);
    const found = this.tokens.get(tokenDigest);
    if (!found) throw new Unauthorized('INVALID_TOKEN', 'The access token is invalid or was revoked');
    return { digest: tokenDigest, found };
  }

  /** Every change to the bearer tokens goes through these two: both indexes and the version move together. */
  private setToken(tokenDigest: string, issued: TokenEntry): void {
    this.tokens.set(tokenDigest, issued);
    issued.entry.tokens.add(tokenDigest);
    this.tokensVersion++;
  }

  /** Static tokens are not stored (they are the key's secret), so only an issued one is deleted from the store. */
  private dropToken(tokenDigest: string): void {
    const found = this.forgetToken(tokenDigest);
    if (found && found.expiresAt !== Number.POSITIVE_INFINITY) this.resources.delete(TOKENS, tokenDigest);
  }

  /** Out of the indexes only; returns what was there. */
  private forgetToken(tokenDigest: string): TokenEntry | undefined {
    const found = this.tokens.get(tokenDigest);
    if (!found) return undefined;
    this.tokens.delete(tokenDigest);
    found.entry.tokens.delete(tokenDigest);
    this.tokensVersion++;
    return found;
  }

  private forgetStaticToken(entry: KeyEntry): void {
    const found = this.tokens.get(entry.secretDigest);
    if (found?.entry === entry && found.expiresAt === Number.POSITIVE_INFINITY) this.forgetToken(entry.secretDigest);
  }

  private forgetKey(entry: KeyEntry): void {
    for (const tokenDigest of entry.tokens) this.forgetToken(tokenDigest);
    this.keys.delete(entry.key.id);
    this.keysByClientId.delete(entry.key.client_id);
  }

  /** Expired tokens are otherwise only dropped when presented; this bounds their number. */
  /** Forgets the tokens that expired a lifetime ago or more: at most two lifetimes of tokens are kept. */
  private forgetExpiredTokens(): void {
    const forgetBefore = this.clock() - this.tokenTtlSeconds * 1000;
    for (const [tokenDigest, { expiresAt }] of this.tokens) {
      if (expiresAt <= forgetBefore) this.dropToken(tokenDigest);
    }
  }

  private addKey(entry: KeyEntry): void {
    this.keys.set(entry.key.id, entry);
    this.keysByClientId.set(entry.key.client_id, entry);
    this.registerStaticToken(entry);
  }

  /** A key of a `token` client authenticates with its secret as a bearer token, which never expires. */
  private registerStaticToken(entry: KeyEntry): void {
    const client = this.clients.get(entry.key.api_client_id);
    if (client?.auth_type !== 'token' || !entry.key.active) return;
    this.setToken(entry.secretDigest, { entry, expiresAt: Number.POSITIVE_INFINITY });
  }

  private revokeTokens(entry: KeyEntry): void {
    for (const tokenDigest of entry.tokens) this.dropToken(tokenDigest);
  }

  private saveClient(client: ApiClient): void {
    this.resources.put(CLIENTS, { id: String(client.id), value: asJsonObject(client) });
  }

  private saveKey(entry: KeyEntry): void {
    const { id, api_client_id } = entry.key;
    this.resources.put(KEYS, { id: String(id), parent: String(api_client_id), value: asJsonObject(storedKey(entry)) });
  }

  private entry(key: ApiKey): KeyEntry {
    const entry = this.keys.get(key.id);
    if (!entry) throw new Error(`API key ${key.id} is not registered`);
    return entry;
  }

  private now(): string {
    return this.times.format(this.clock());
  }
}

const BEARER = /^Bearer +(\S+) *$/i;

function keyEntry(value: object): KeyEntry {
  const { secret_sha256, ...key } = value as StoredKey;
  return { key, secretDigest: secret_sha256, tokens: new Set() };
}

function sameDigest(expected: string, given: string): boolean {
  const a = Buffer.from(expected);
  const b = Buffer.from(given);
  return a.length === b.length && timingSafeEqual(a, b);
}
