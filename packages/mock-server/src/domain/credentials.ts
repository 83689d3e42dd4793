// API clients (v2), their API keys, and the access tokens issued for the keys.
import { randomBytes, timingSafeEqual } from 'node:crypto';
import { Forbidden, NotFound, Unauthorized } from '../errors.js';
import { IsoTimeFormatter } from '../spec/date-time.js';

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
  secret: string;
  /** Access tokens issued with the current secret. */
  tokens: Set<string>;
}

interface TokenEntry {
  entry: KeyEntry;
  expiresAt: number;
}

const randomToken = (bytes: number) => randomBytes(bytes).toString('base64url');

export class Credentials {
  private readonly clients = new Map<number, ApiClient>();
  private readonly times = new IsoTimeFormatter();
  private readonly keys = new Map<number, KeyEntry>();
  private readonly keysByClientId = new Map<string, KeyEntry>();
  /** Bearer tokens: issued access tokens and, for `token` clients, the keys' static tokens. */
  private readonly tokens = new Map<string, TokenEntry>();
  /**
   * The last Authorization header found in `tokens`, valid while `tokens` is unchanged: load tests
   * send one header over and over, and comparing it costs a fraction of hashing its token for the
   * lookup (1.4% of a publish).
   */
  private recent: { header: string; token: string; found: TokenEntry; tokensVersion: number } | undefined;
  private tokensVersion = 0;
  private nextClientId = 1;
  private nextKeyId = 1;
  private issued = 0;
  /** API clients that a state load or reset keeps, with their keys (the bootstrap key's client). */
  private readonly kept = new Set<number>();

  constructor(
    private readonly clock: () => number,
    private readonly tokenTtlSeconds: number,
  ) {}

  // --- API clients -------------------------------------------------------------------------------

  listClients(): ApiClient[] {
    return [...this.clients.values()];
  }

  requireClient(id: number): ApiClient {
    const client = this.clients.get(id);
    if (!client) throw new NotFound(`API client ${id} was not found`);
    return client;
  }

  createClient(input: ApiClientInput): ApiClient {
    const now = this.now();
    const client: ApiClient = {
      id: this.nextClientId++,
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
    return client;
  }

  updateClient(client: ApiClient, input: Partial<Pick<ApiClient, 'name' | 'description'>>): ApiClient {
    Object.assign(client, input, { updated_at: this.now() });
    return client;
  }

  deleteClient(client: ApiClient): void {
    for (const key of this.listKeys(client.id)) this.deleteKey(key);
    this.clients.delete(client.id);
  }

  /** The client and its keys stay through every state load and reset, and are not part of the state. */
  keepThroughReset(client: ApiClient): void {
    this.kept.add(client.id);
  }

  /** The clients (and keys, with their secrets) of the state document: all but the kept ones. */
  exportState(): { clients: ApiClient[]; keys: (ApiKey & { secret: string })[] } {
    const clients = this.listClients().filter((client) => !this.kept.has(client.id));
    const keys = [...this.keys.values()]
      .filter((entry) => !this.kept.has(entry.key.api_client_id))
      .map((entry) => ({ ...entry.key, secret: entry.secret }));
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
  replaceState(clients: ApiClient[], keys: (ApiKey & { secret: string })[]): void {
    for (const client of this.listClients()) if (!this.kept.has(client.id)) this.deleteClient(client);
    for (const client of clients) this.clients.set(client.id, client);
    for (const { secret, ...key } of keys) {
      const entry: KeyEntry = { key, secret, tokens: new Set() };
      this.keys.set(key.id, entry);
      this.keysByClientId.set(key.client_id, entry);
      if (key.active) this.registerStaticToken(entry);
    }
    this.nextClientId = Math.max(0, ...this.clients.keys()) + 1;
    this.nextKeyId = Math.max(0, ...this.keys.keys()) + 1;
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

  /** Returns the key and its secret (the only time, with refreshSecret, that the secret is shown). */
  createKey(
    client: ApiClient,
    input: Pick<ApiKey, 'name'> & Partial<Pick<ApiKey, 'scopes' | 'topic_ids' | 'ip_allow_list'>>,
    credentials: { clientId?: string; secret?: string } = {},
  ): { key: ApiKey; secret: string } {
    const now = this.now();
    const key: ApiKey = {
      id: this.nextKeyId++,
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
    const entry: KeyEntry = { key, secret: credentials.secret ?? randomToken(24), tokens: new Set() };
    this.keys.set(key.id, entry);
    this.keysByClientId.set(key.client_id, entry);
    this.registerStaticToken(entry);
    return { key, secret: entry.secret };
  }

  updateKey(key: ApiKey, input: Partial<Pick<ApiKey, 'name' | 'scopes' | 'topic_ids' | 'ip_allow_list'>>): ApiKey {
    Object.assign(key, input, { updated_at: this.now() });
    return key;
  }

  deleteKey(key: ApiKey): void {
    const entry = this.entry(key);
    this.revokeTokens(entry);
    this.keys.delete(key.id);
    this.keysByClientId.delete(key.client_id);
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
    }
    return key;
  }

  /** Replaces the secret and revokes every token issued with the old one. */
  refreshSecret(key: ApiKey): string {
    const entry = this.entry(key);
    this.revokeTokens(entry);
    entry.secret = randomToken(24);
    key.updated_at = this.now();
    if (key.active) this.registerStaticToken(entry);
    return entry.secret;
  }

  // --- Tokens ------------------------------------------------------------------------------------

  /** The key for a client ID and secret, or undefined when they do not authenticate an active key. */
  authenticateClient(clientId: string, secret: string): ApiKey | undefined {
    const entry = this.keysByClientId.get(clientId);
    if (!entry?.key.active || !sameSecret(entry.secret, secret)) return undefined;
    return entry.key;
  }

  issueToken(key: ApiKey): { token: string; expiresIn: number } {
    const entry = this.entry(key);
    if (++this.issued % 1024 === 0) this.forgetExpiredTokens();
    const token = randomToken(32);
    this.setToken(token, { entry, expiresAt: this.clock() + this.tokenTtlSeconds * 1000 });
    return { token, expiresIn: this.tokenTtlSeconds };
  }

  /** The key a bearer token belongs to; Unauthorized when it is missing, unknown, revoked or expired. */
  authenticateBearer(authorization: string | undefined): ApiKey {
    const { token, found } = this.findBearer(authorization);
    if (this.clock() >= found.expiresAt) {
      this.dropToken(token, found.entry);
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

  private findBearer(authorization: string | undefined): { token: string; found: TokenEntry } {
    const recent = this.recent;
    if (recent && authorization === recent.header && recent.tokensVersion === this.tokensVersion) return recent;
    // "Bearer <token>" as clients send it is looked up without the regular expression: tokens hold no
    // whitespace, so a token found this way is the one the expression would have found.
    if (authorization?.startsWith('Bearer ')) {
      const token = authorization.slice(7);
      const found = this.tokens.get(token);
      if (found) {
        this.recent = { header: authorization, token, found, tokensVersion: this.tokensVersion };
        return this.recent;
      }
    }
    const token = authorization ? BEARER.exec(authorization)?.[1] : undefined;
    if (!token) throw new Unauthorized('UNAUTHORIZED', 'The Authorization header must be "Bearer <ACCESS_TOKEN>"');
    const found = this.tokens.get(token);
    if (!found) throw new Unauthorized('INVALID_TOKEN', 'The access token is invalid or was revoked');
    return { token, found };
  }

  /** Every change to the bearer tokens goes through these two: both indexes and the version move together. */
  private setToken(token: string, issued: TokenEntry): void {
    this.tokens.set(token, issued);
    issued.entry.tokens.add(token);
    this.tokensVersion++;
  }

  private dropToken(token: string, entry: KeyEntry): void {
    this.tokens.delete(token);
    entry.tokens.delete(token);
    this.tokensVersion++;
  }

  /** Expired tokens are otherwise only dropped when presented; this bounds their number. */
  private forgetExpiredTokens(): void {
    const now = this.clock();
    for (const [token, { entry, expiresAt }] of this.tokens) {
      if (now >= expiresAt) {
        this.dropToken(token, entry);
      }
    }
  }

  private registerStaticToken(entry: KeyEntry): void {
    const client = this.clients.get(entry.key.api_client_id);
    if (client?.auth_type !== 'token') return;
    this.setToken(entry.secret, { entry, expiresAt: Number.POSITIVE_INFINITY });
  }

  private revokeTokens(entry: KeyEntry): void {
    for (const token of entry.tokens) this.dropToken(token, entry);
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

function sameSecret(expected: string, given: string): boolean {
  const a = Buffer.from(expected);
  const b = Buffer.from(given);
  return a.length === b.length && timingSafeEqual(a, b);
}
