// API clients (v2) and their API keys, the rights of a key, and the bearer tokens of the keys
// (access-tokens.ts). The indexes here are a cache of the records in the resource store: rebuilt from
// it at start, every change written through. With a store shared by several emulators (Redis), they
// also follow the changes the others announce, and a bearer token not found is looked for again once
// caught up with them. Secrets are kept as digests only (secrets.ts).
import { randomBytes } from 'node:crypto';
import { type Awaitable, after } from '../awaitable.js';
import { Forbidden, NotFound, Unauthorized } from '../errors.js';
import { IsoTimeFormatter } from '../spec/date-time.js';
import { StoredRecords } from '../store/records.js';
import type { ResourceStore, StoredItem } from '../store/resource-store.js';
import { ACCESS_TOKENS, AccessTokens, type KeyEntry } from './access-tokens.js';
import {
  ALL_SCOPES,
  type ApiClient,
  type ApiClientChange,
  type ApiClientCreation,
  type ApiKey,
  type ApiKeyChange,
  type ApiKeyCreation,
  type DocumentKey,
  type Scope,
  type StoredKey,
  type Writable,
} from './model.js';
import { digest, randomToken, sameDigest } from './secrets.js';

const storedKey = ({ key, secretDigest }: KeyEntry): StoredKey => ({ ...key, secret_sha256: secretDigest });

export class Credentials {
  private readonly clients = new Map<number, Writable<ApiClient>>();
  private readonly keys = new Map<number, KeyEntry>();
  private readonly keysByClientId = new Map<string, KeyEntry>();
  private readonly clientRecords: StoredRecords<ApiClient>;
  private readonly keyRecords: StoredRecords<StoredKey>;
  private readonly tokens: AccessTokens;
  /** API clients that a state load or reset keeps, with their keys (the bootstrap key's client). */
  private readonly kept = new Set<number>();
  private readonly times = new IsoTimeFormatter();

  constructor(
    resources: ResourceStore,
    private readonly clock: () => number,
    tokenTtlSeconds: number,
    /** With a shared store: settles once the changes other emulators announced so far are applied here. */
    private readonly catchUp?: () => Promise<void>,
  ) {
    this.clientRecords = new StoredRecords(resources, 'emulator:api_client');
    this.keyRecords = new StoredRecords(resources, 'emulator:api_key', (key) => key.api_client_id);
    this.tokens = new AccessTokens(resources, clock, tokenTtlSeconds);
  }

  /**
   * Rebuilds the indexes from the resource store, at start (and after a shared store came back);
   * expired tokens answer TOKEN_EXPIRED, as before. Replaced in one go, once everything is read.
   */
  async load(): Promise<void> {
    const [clients, keys, tokens] = await Promise.all([
      this.clientRecords.all(),
      this.keyRecords.all(),
      this.tokens.stored(),
    ]);
    for (const index of [this.clients, this.keys, this.keysByClientId]) index.clear();
    this.tokens.clear();
    for (const client of clients) this.clients.set(client.id, client);
    for (const key of keys) this.addKey(keyEntry(key));
    this.tokens.restore(tokens, this.entryOfId);
  }

  /** A change another emulator made to a type of this index (shared store): applied here, nothing is written. */
  applyChange(type: string, id: string, item: StoredItem | undefined): void {
    if (type === this.clientRecords.type) {
      if (item) this.clients.set(Number(id), this.clientRecords.recordOf(item));
      else this.clients.delete(Number(id));
    } else if (type === this.keyRecords.type) {
      this.applyKeyChange(Number(id), item && this.keyRecords.recordOf(item));
    } else if (type === ACCESS_TOKENS) {
      this.tokens.applyChange(id, item, this.entryOfId);
    }
  }

  private applyKeyChange(id: number, stored: StoredKey | undefined): void {
    const entry = this.keys.get(id);
    if (!stored) {
      if (entry) this.forgetKey(entry);
    } else if (!entry) {
      this.addKey(keyEntry(stored));
    } else {
      // In place: its issued tokens stay, and their revocations come as changes of their own.
      const { key, secretDigest } = keyEntry(stored);
      this.tokens.forgetStatic(entry);
      this.keysByClientId.delete(entry.key.client_id);
      Object.assign(entry, { key, secretDigest });
      this.keysByClientId.set(key.client_id, entry);
      this.registerStaticToken(entry);
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

  createClient(input: ApiClientCreation): Awaitable<ApiClient> {
    return after(this.clientRecords.nextId(), (id) => {
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
      this.clientRecords.put(client);
      return client;
    });
  }

  updateClient(client: ApiClient, input: ApiClientChange): ApiClient {
    const held = this.heldClient(client);
    Object.assign(held, input, { updated_at: this.now() });
    this.clientRecords.put(held);
    return held;
  }

  deleteClient(client: ApiClient): void {
    for (const key of this.listKeys(client.id)) this.deleteKey(key);
    this.clients.delete(client.id);
    this.clientRecords.delete(client.id);
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
    const restored = structuredClone(client);
    this.clients.set(client.id, restored);
    this.clientRecords.put(restored);
    for (const other of this.listKeys(client.id)) if (other.id !== key.id) this.deleteKey(other);
    const secretDigest = digest(secret);
    const current = this.keys.get(key.id);
    if (current?.key.active && sameDigest(current.secretDigest, secretDigest)) {
      Object.assign(current.key, structuredClone(key));
      this.saveKey(current);
      return;
    }
    if (current) {
      this.tokens.revokeAll(current);
      this.forgetKey(current);
    }
    const entry: KeyEntry = { key: { ...structuredClone(key), active: true }, secretDigest, tokens: new Set() };
    this.addKey(entry);
    this.saveKey(entry);
  }

  /** The clients and keys (with their secrets' digests) of the state document: all but the kept ones. */
  exportForDocument(): { clients: ApiClient[]; keys: StoredKey[] } {
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
   * the caller; new ids continue after the highest held.
   */
  async replaceFromDocument(clients: ApiClient[], keys: DocumentKey[]): Promise<void> {
    for (const client of this.listClients()) if (!this.kept.has(client.id)) this.deleteClient(client);
    for (const client of clients) this.clients.set(client.id, client);
    for (const { secret, secret_sha256, ...key } of keys) {
      this.addKey({ key, secretDigest: secret_sha256 ?? digest(secret ?? ''), tokens: new Set() });
    }
    // The stored clients and keys and their id counters are replaced together (each type's own restore).
    await this.clientRecords.replaceAll(this.listClients());
    await this.keyRecords.replaceAll([...this.keys.values()].map(storedKey));
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
    input: Pick<ApiKeyCreation, 'name' | 'scopes' | 'topic_ids' | 'ip_allow_list'>,
    credentials: { clientId?: string; secret?: string } = {},
  ): Awaitable<{ key: ApiKey; secret: string }> {
    return after(this.keyRecords.nextId(), (id) => {
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

  updateKey(key: ApiKey, input: ApiKeyChange): ApiKey {
    const entry = this.entry(key);
    Object.assign(entry.key, input, { updated_at: this.now() });
    this.saveKey(entry);
    return entry.key;
  }

  deleteKey(key: ApiKey): void {
    const entry = this.entry(key);
    this.tokens.revokeAll(entry);
    this.forgetKey(entry);
    this.keyRecords.delete(key.id);
  }

  setActive(key: ApiKey, active: boolean): ApiKey {
    const entry = this.entry(key);
    if (entry.key.active !== active) {
      const now = this.now();
      entry.key.active = active;
      entry.key.active_since = active ? now : null;
      entry.key.updated_at = now;
      // Disabling revokes the key's access tokens; enabling restores only its static token.
      if (active) this.registerStaticToken(entry);
      else this.tokens.revokeAll(entry);
      this.saveKey(entry);
    }
    return entry.key;
  }

  /** Replaces the secret (by a new random one unless given) and revokes every token issued with the old one. */
  refreshSecret(key: ApiKey, secret = randomToken(24)): string {
    const entry = this.entry(key);
    this.tokens.revokeAll(entry);
    entry.secretDigest = digest(secret);
    entry.key.updated_at = this.now();
    this.registerStaticToken(entry);
    this.saveKey(entry);
    return secret;
  }

  // --- Authentication and rights -----------------------------------------------------------------

  /** The key for a client ID and secret, or undefined when they do not authenticate an active key. */
  authenticateClient(clientId: string, secret: string): ApiKey | undefined {
    const entry = this.keysByClientId.get(clientId);
    if (!entry?.key.active || !sameDigest(entry.secretDigest, digest(secret))) return undefined;
    return entry.key;
  }

  issueToken(key: ApiKey): { token: string; expiresIn: number } {
    return this.tokens.issue(this.entry(key));
  }

  /** The key a bearer token belongs to; Unauthorized when it is missing, unknown, revoked or expired. */
  authenticateBearer(authorization: string | undefined): Awaitable<ApiKey> {
    if (!this.catchUp) return this.tokens.keyOf(authorization);
    try {
      return this.tokens.keyOf(authorization);
    } catch (error) {
      if (!(error instanceof Unauthorized && error.code === 'INVALID_TOKEN')) throw error;
      // Issued by another emulator a moment ago, perhaps: once caught up with its announcements, it is here.
      return this.catchUp().then(() => this.tokens.keyOf(authorization));
    }
  }

  /** Forbidden unless the key has the right `scope`, and for an event-streams call `topicId` among its topics. */
  authorize(key: ApiKey, scope: Scope, topicId?: number): void {
    if (!key.scopes.includes(scope)) throw new Forbidden(`This API key has no ${scope} right`);
    if (topicId !== undefined && key.topic_ids && !key.topic_ids.includes(topicId)) {
      throw new Forbidden(`This API key has no right on topic ${topicId}`);
    }
  }

  // --- The indexes -------------------------------------------------------------------------------

  private readonly entryOfId = (keyId: number): KeyEntry | undefined => this.keys.get(keyId);

  private addKey(entry: KeyEntry): void {
    this.keys.set(entry.key.id, entry);
    this.keysByClientId.set(entry.key.client_id, entry);
    this.registerStaticToken(entry);
  }

  private forgetKey(entry: KeyEntry): void {
    this.tokens.forgetAll(entry);
    this.keys.delete(entry.key.id);
    this.keysByClientId.delete(entry.key.client_id);
  }

  private registerStaticToken(entry: KeyEntry): void {
    this.tokens.registerStatic(entry, this.clients.get(entry.key.api_client_id)?.auth_type);
  }

  private saveKey(entry: KeyEntry): void {
    this.keyRecords.put(storedKey(entry));
  }

  private heldClient(client: ApiClient): Writable<ApiClient> {
    const held = this.clients.get(client.id);
    if (!held) throw new Error(`API client ${client.id} is not registered`);
    return held;
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

function keyEntry({ secret_sha256, ...key }: StoredKey): KeyEntry {
  return { key, secretDigest: secret_sha256, tokens: new Set() };
}
