// API clients (v2) and their API keys: what the management operations, the token endpoint and every
// bearer token check do with them, and their part of the state document. What is held in memory is
// credential-index.ts's (a cache of the stored records), the bearer tokens access-tokens.ts's, the
// secrets' digests secrets.ts's. With a store shared by several emulators (Redis), a bearer token not
// found is looked for again once caught up with the others' announcements.
import { randomBytes } from 'node:crypto';
import { type Awaitable, after } from '../awaitable.js';
import { Forbidden, NotFound, Unauthorized } from '../errors.js';
import { IsoTimeFormatter } from '../spec/date-time.js';
import type { ResourceStore, StoredItem } from '../store/resource-store.js';
import type { CredentialListener, KeyEntry } from './access-tokens.js';
import { CredentialIndex, storedKey } from './credential-index.js';
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
} from './model.js';
import { digest, randomToken, sameDigest } from './secrets.js';

export class Credentials {
  private readonly index: CredentialIndex;
  /** API clients that a state load or reset keeps, with their keys (the bootstrap key's client). */
  private readonly kept = new Set<number>();
  private readonly times = new IsoTimeFormatter();

  constructor(
    resources: ResourceStore,
    private readonly clock: () => number,
    tokenTtlSeconds: number,
    /** With a shared store: settles once the changes other emulators announced so far are applied here. */
    private readonly catchUp?: () => Promise<void>,
    /** Told of the client IDs and tokens held: a tenant's, the fleet directory. */
    listener?: CredentialListener,
  ) {
    this.index = new CredentialIndex(resources, clock, tokenTtlSeconds, listener);
  }

  /** Rebuilds what is in memory from the store (at start, and after a shared store came back). */
  load(): Promise<void> {
    return this.index.load();
  }

  /** A change another emulator made (shared store): applied here, nothing is written. */
  applyChange(type: string, id: string, item: StoredItem | undefined): void {
    this.index.applyChange(type, id, item);
  }

  // --- API clients -------------------------------------------------------------------------------

  listClients(): ApiClient[] {
    return [...this.index.clients.values()];
  }

  requireClient(id: number): ApiClient {
    const client = this.index.clients.get(id);
    if (!client) throw new NotFound(`API client ${id} was not found`);
    return client;
  }

  createClient(input: ApiClientCreation): Awaitable<ApiClient> {
    return after(this.index.nextClientId(), (id) => {
      const now = this.now();
      const client: ApiClient = {
        id,
        name: input.name,
        description: input.description ?? null,
        project_id: input.project_id ?? null,
        auth_type: input.auth_type ?? 'oauth2',
        email: input.email ?? null,
        mtls_enabled: input.mtls_enabled ?? false,
        validation_formula: input.validation_formula ?? null,
        cert_bundle_ids: input.cert_bundle_ids ?? null,
        api_collection_ids: input.api_collection_ids ?? [],
        created_at: now,
        updated_at: now,
      };
      this.index.putClient(client);
      return client;
    });
  }

  updateClient(client: ApiClient, input: ApiClientChange): ApiClient {
    const held = this.index.heldClient(client);
    Object.assign(held, input, { updated_at: this.now() });
    this.index.putClient(held);
    return held;
  }

  deleteClient(client: ApiClient): void {
    for (const key of this.listKeys(client.id)) this.deleteKey(key);
    this.index.deleteClient(client.id);
  }

  // --- API keys ----------------------------------------------------------------------------------

  listKeys(clientId: number): ApiKey[] {
    return [...this.index.keys.values()].map((e) => e.key).filter((k) => k.api_client_id === clientId);
  }

  /** The key `keyId` of the API client `clientId` (which must exist). */
  requireKey(clientId: number, keyId: number): ApiKey {
    const client = this.requireClient(clientId);
    const key = this.index.keys.get(keyId)?.key;
    if (key?.api_client_id !== client.id) throw new NotFound(`API key ${keyId} was not found`);
    return key;
  }

  /** The key with this client ID, if any. */
  keyOfClientId(clientId: string): ApiKey | undefined {
    return this.index.keysByClientId.get(clientId)?.key;
  }

  findKey(id: number): ApiKey | undefined {
    return this.index.keys.get(id)?.key;
  }

  /** Returns the key and its secret (the only time, with refreshSecret, that the secret is shown). */
  createKey(
    client: ApiClient,
    input: Pick<ApiKeyCreation, 'name' | 'scopes' | 'topic_ids' | 'ip_allow_list' | 'ip_deny_list'>,
    credentials: { clientId?: string; secret?: string } = {},
  ): Awaitable<{ key: ApiKey; secret: string }> {
    return after(this.index.nextKeyId(), (id) => {
      const now = this.now();
      const key: ApiKey = {
        id,
        api_client_id: client.id,
        name: input.name,
        active: true,
        active_since: now,
        ip_allow_list: input.ip_allow_list ?? [],
        ip_deny_list: input.ip_deny_list ?? [],
        scopes: input.scopes ?? [...ALL_SCOPES],
        topic_ids: input.topic_ids ?? null,
        client_id: credentials.clientId ?? randomBytes(10).toString('hex'),
        created_at: now,
        updated_at: now,
      };
      const secret = credentials.secret ?? randomToken(24);
      const entry: KeyEntry = { key, secretDigest: digest(secret), tokens: new Set() };
      this.index.addKey(entry);
      this.index.saveKey(entry);
      return { key, secret };
    });
  }

  updateKey(key: ApiKey, input: ApiKeyChange): ApiKey {
    const entry = this.index.entry(key);
    Object.assign(entry.key, input, { updated_at: this.now() });
    this.index.saveKey(entry);
    return entry.key;
  }

  deleteKey(key: ApiKey): void {
    this.index.deleteKey(this.index.entry(key));
  }

  setActive(key: ApiKey, active: boolean): ApiKey {
    const entry = this.index.entry(key);
    if (entry.key.active !== active) {
      const now = this.now();
      entry.key.active = active;
      entry.key.active_since = active ? now : null;
      entry.key.updated_at = now;
      // Disabling revokes the key's access tokens; enabling restores only its static token.
      if (active) this.index.registerStaticToken(entry);
      else this.index.tokens.revokeAll(entry);
      this.index.saveKey(entry);
    }
    return entry.key;
  }

  /** Replaces the secret (by a new random one unless given) and revokes every token issued with the old one. */
  refreshSecret(key: ApiKey, secret = randomToken(24)): string {
    const entry = this.index.entry(key);
    this.index.tokens.revokeAll(entry);
    entry.secretDigest = digest(secret);
    entry.key.updated_at = this.now();
    this.index.registerStaticToken(entry);
    this.index.saveKey(entry);
    return secret;
  }

  // --- Authentication and rights -----------------------------------------------------------------

  /** The key for a client ID and secret, or undefined when they do not authenticate an active key. */
  authenticateClient(clientId: string, secret: string): ApiKey | undefined {
    const entry = this.index.keysByClientId.get(clientId);
    if (!entry?.key.active || !sameDigest(entry.secretDigest, digest(secret))) return undefined;
    return entry.key;
  }

  issueToken(key: ApiKey): { token: string; expiresIn: number } {
    return this.index.tokens.issue(this.index.entry(key));
  }

  /** The key a bearer token belongs to; Unauthorized when it is missing, unknown, revoked or expired. */
  authenticateBearer(authorization: string | undefined): Awaitable<ApiKey> {
    const { tokens } = this.index;
    if (!this.catchUp) return tokens.keyOf(authorization);
    try {
      return tokens.keyOf(authorization);
    } catch (error) {
      if (!(error instanceof Unauthorized && error.code === 'INVALID_TOKEN')) throw error;
      // Issued by another emulator a moment ago, perhaps: once caught up with its announcements, it is here.
      return this.catchUp().then(() => tokens.keyOf(authorization));
    }
  }

  /** Forbidden unless the key has the right `scope`, and for an event-streams call `topicId` among its topics. */
  authorize(key: ApiKey, scope: Scope, topicId?: number): void {
    if (!key.scopes.includes(scope)) throw new Forbidden(`This API key has no ${scope} right`);
    if (topicId !== undefined && key.topic_ids && !key.topic_ids.includes(topicId)) {
      throw new Forbidden(`This API key has no right on topic ${topicId}`);
    }
  }

  // --- The state document and the kept client ---------------------------------------------------

  /** The client and its keys stay through every state load and reset, and are not part of the state. */
  keepThroughReset(clientId: number): void {
    this.kept.add(clientId);
  }

  /**
   * Puts a kept client and one of its keys back as they were (a reset): their fields, the key enabled
   * and its secret, whose tokens stay valid when it had not changed. The client's other keys go.
   */
  restoreKept(client: ApiClient, key: ApiKey, secret: string): void {
    this.index.putClient(structuredClone(client));
    for (const other of this.listKeys(client.id)) if (other.id !== key.id) this.deleteKey(other);
    const secretDigest = digest(secret);
    const current = this.index.keys.get(key.id);
    if (current?.key.active && sameDigest(current.secretDigest, secretDigest)) {
      Object.assign(current.key, structuredClone(key));
      this.index.saveKey(current);
      return;
    }
    if (current) {
      this.index.tokens.revokeAll(current);
      this.index.forgetKey(current);
    }
    const entry: KeyEntry = { key: { ...structuredClone(key), active: true }, secretDigest, tokens: new Set() };
    this.index.addKey(entry);
    this.index.saveKey(entry);
  }

  /** The clients and keys (with their secrets' digests) of the state document: all but the kept ones. */
  exportForDocument(): { clients: ApiClient[]; keys: StoredKey[] } {
    const clients = this.listClients().filter((client) => !this.kept.has(client.id));
    const keys = [...this.index.keys.values()].filter((entry) => !this.kept.has(entry.key.api_client_id));
    return { clients: structuredClone(clients), keys: structuredClone(keys.map(storedKey)) };
  }

  /** The ids, client IDs and creation times a state document cannot take or fills in. */
  reserved(): { clientIds: Set<number>; keyIds: Set<number>; keyClientIds: Set<string>; now: string } {
    const keptKeys = [...this.index.keys.values()].filter((entry) => this.kept.has(entry.key.api_client_id));
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
    for (const client of clients) this.index.clients.set(client.id, client);
    for (const { secret, secret_sha256, ...key } of keys) {
      this.index.addKey({ key, secretDigest: secret_sha256 ?? digest(secret ?? ''), tokens: new Set() });
    }
    // The stored clients and keys and their id counters are replaced together (each type's own restore).
    await this.index.saveAll();
  }

  private now(): string {
    return this.times.format(this.clock());
  }
}
