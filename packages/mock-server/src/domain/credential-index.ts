// The API clients and API keys in memory, a cache of their records in the resource store: rebuilt
// from it at start (and after a shared store came back), every change written through, and with a
// store shared by several emulators following the changes the others announce. The bearer tokens'
// index (access-tokens.ts) is kept in step: a key's static token goes and comes with the key.
import type { Awaitable } from '../awaitable.js';
import { StoredRecords } from '../store/records.js';
import type { ResourceStore, StoredItem } from '../store/resource-store.js';
import { ACCESS_TOKENS, AccessTokens, type CredentialListener, type KeyEntry } from './access-tokens.js';
import type { ApiClient, ApiKey, StoredKey, Writable } from './model.js';

export const storedKey = ({ key, secretDigest }: KeyEntry): StoredKey => ({ ...key, secret_sha256: secretDigest });

export class CredentialIndex {
  readonly clients = new Map<number, Writable<ApiClient>>();
  readonly keys = new Map<number, KeyEntry>();
  readonly keysByClientId = new Map<string, KeyEntry>();
  readonly tokens: AccessTokens;
  private readonly clientRecords: StoredRecords<ApiClient>;
  private readonly keyRecords: StoredRecords<StoredKey>;

  constructor(
    resources: ResourceStore,
    clock: () => number,
    tokenTtlSeconds: number,
    private readonly listener?: CredentialListener,
  ) {
    this.clientRecords = new StoredRecords(resources, 'emulator:api_client');
    this.keyRecords = new StoredRecords(resources, 'emulator:api_key', (key) => key.api_client_id);
    this.tokens = new AccessTokens(resources, clock, tokenTtlSeconds, listener);
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
    if (this.listener) for (const clientId of this.keysByClientId.keys()) this.listener.dropped('client', clientId);
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
      this.unindexClientId(entry.key.client_id);
      Object.assign(entry, { key, secretDigest });
      this.indexClientId(entry);
      this.registerStaticToken(entry);
    }
  }

  nextClientId(): Awaitable<number> {
    return this.clientRecords.nextId();
  }

  nextKeyId(): Awaitable<number> {
    return this.keyRecords.nextId();
  }

  /** The client, in the index and the store. */
  putClient(client: Writable<ApiClient>): void {
    this.clients.set(client.id, client);
    this.clientRecords.put(client);
  }

  deleteClient(id: number): void {
    this.clients.delete(id);
    this.clientRecords.delete(id);
  }

  /** The held client (the index's own, which changes apply to). */
  heldClient(client: ApiClient): Writable<ApiClient> {
    const held = this.clients.get(client.id);
    if (!held) throw new Error(`API client ${client.id} is not registered`);
    return held;
  }

  /** In the index: by id, by client ID, and its static token. */
  addKey(entry: KeyEntry): void {
    this.keys.set(entry.key.id, entry);
    this.indexClientId(entry);
    this.registerStaticToken(entry);
  }

  /** Out of the index, with its tokens. */
  forgetKey(entry: KeyEntry): void {
    this.tokens.forgetAll(entry);
    this.keys.delete(entry.key.id);
    this.unindexClientId(entry.key.client_id);
  }

  private indexClientId(entry: KeyEntry): void {
    this.keysByClientId.set(entry.key.client_id, entry);
    this.listener?.held('client', entry.key.client_id);
  }

  private unindexClientId(clientId: string): void {
    if (this.keysByClientId.delete(clientId)) this.listener?.dropped('client', clientId);
  }

  saveKey(entry: KeyEntry): void {
    this.keyRecords.put(storedKey(entry));
  }

  deleteKey(entry: KeyEntry): void {
    this.tokens.revokeAll(entry);
    this.forgetKey(entry);
    this.keyRecords.delete(entry.key.id);
  }

  /** A key of a `token` client authenticates with its secret as a bearer token. */
  registerStaticToken(entry: KeyEntry): void {
    this.tokens.registerStatic(entry, this.clients.get(entry.key.api_client_id)?.auth_type);
  }

  entry(key: ApiKey): KeyEntry {
    const entry = this.keys.get(key.id);
    if (!entry) throw new Error(`API key ${key.id} is not registered`);
    return entry;
  }

  /** Replaces the stored clients and keys, and their id counters, with what the index holds. */
  async saveAll(): Promise<void> {
    await this.clientRecords.replaceAll([...this.clients.values()]);
    await this.keyRecords.replaceAll([...this.keys.values()].map(storedKey));
  }

  private readonly entryOfId = (keyId: number): KeyEntry | undefined => this.keys.get(keyId);
}

function keyEntry({ secret_sha256, ...key }: StoredKey): KeyEntry {
  return { key, secretDigest: secret_sha256, tokens: new Set() };
}
