// The bearer tokens: access tokens the token endpoint issues (stored, with their expiry) and the static
// tokens of the keys of `token` API clients (their secrets, never stored), indexed by digest for every
// authenticated request. The index is a cache of the stored tokens, rebuilt at start and following the
// changes other emulators announce; expired tokens are kept until a sweep, so a client sending one is
// told it expired.
import type { Awaitable } from '../awaitable.js';
import { Unauthorized } from '../errors.js';
import type { ResourceStore, StoredItem } from '../store/resource-store.js';
import type { ApiKey, Writable } from './model.js';
import { RecentHeader } from './recent-header.js';
import { digest, randomToken } from './secrets.js';

/** An API key as the token index knows it: the record, its secret's digest, the digests of its tokens. */
export interface KeyEntry {
  key: Writable<ApiKey>;
  secretDigest: string;
  /** Issued with the current secret, and the static token. */
  tokens: Set<string>;
}

interface TokenEntry {
  entry: KeyEntry;
  /** Infinity for a static token. */
  expiresAt: number;
}

/** The stored type of issued tokens; prefixed, so it never meets the resource engine's types. */
export const ACCESS_TOKENS = 'emulator:access_token';

/** An Authorization header's bearer token, as RFC 6750 spells it (any case of the scheme, spaces around). */
export const BEARER = /^Bearer +(\S+) *$/i;

/**
 * Told of every credential an emulator's tenant holds, by digest for a bearer token and as sent for a
 * client ID: the fleet directory (tenants/directory.ts) finds a request's tenant through it.
 */
export interface CredentialListener {
  held(kind: 'token' | 'client', value: string): void;
  dropped(kind: 'token' | 'client', value: string): void;
}

export class AccessTokens {
  /** By the digest of the token. */
  private readonly tokens = new Map<string, TokenEntry>();
  /** The last Authorization header found in `tokens`, while `tokens` is unchanged. */
  private readonly recent = new RecentHeader<TokenEntry>();
  private issued = 0;

  constructor(
    private readonly resources: ResourceStore,
    private readonly clock: () => number,
    readonly ttlSeconds: number,
    private readonly listener?: CredentialListener,
  ) {}

  /** The issued tokens as stored, each under its key. */
  stored(): Awaitable<StoredItem[]> {
    return this.resources.list(ACCESS_TOKENS);
  }

  /** Forgets every token, before the index is rebuilt (the static ones as their keys are added again). */
  clear(): void {
    if (this.listener) for (const tokenDigest of this.tokens.keys()) this.listener.dropped('token', tokenDigest);
    this.tokens.clear();
    this.recent.forget();
  }

  /** Adds the stored tokens of the keys `keyOf` knows, expired ones too (they answer TOKEN_EXPIRED). */
  restore(stored: StoredItem[], keyOf: (keyId: number) => KeyEntry | undefined): void {
    for (const item of stored) this.applyChange(item.id, item, keyOf);
  }

  /** A token another emulator issued or revoked (shared store): applied here, nothing is written. */
  applyChange(tokenDigest: string, item: StoredItem | undefined, keyOf: (keyId: number) => KeyEntry | undefined): void {
    const entry = item && keyOf(Number(item.parent));
    if (entry) this.set(tokenDigest, { entry, expiresAt: Number(item.value.expires_at) });
    else if (!item) this.forget(tokenDigest);
  }

  issue(entry: KeyEntry): { token: string; expiresIn: number } {
    if (++this.issued % 1024 === 0) this.forgetExpired();
    const token = randomToken(32);
    const tokenDigest = digest(token);
    const expiresAt = this.clock() + this.ttlSeconds * 1000;
    this.set(tokenDigest, { entry, expiresAt });
    this.resources.put(ACCESS_TOKENS, {
      id: tokenDigest,
      parent: String(entry.key.id),
      value: { expires_at: expiresAt },
    });
    return { token, expiresIn: this.ttlSeconds };
  }

  /** The key a bearer token belongs to; Unauthorized when it is missing, unknown, revoked or expired. */
  keyOf(authorization: string | undefined): ApiKey {
    const found = this.find(authorization);
    // Kept until the sweep: a client sending it again is told again that it expired.
    if (this.clock() >= found.expiresAt) {
      throw new Unauthorized('TOKEN_EXPIRED', 'The access token has expired; request a new one');
    }
    return found.entry.key;
  }

  /** A key of a `token` client authenticates with its secret as a bearer token, which never expires. */
  registerStatic(entry: KeyEntry, authType: string | undefined): void {
    if (authType !== 'token' || !entry.key.active) return;
    this.set(entry.secretDigest, { entry, expiresAt: Number.POSITIVE_INFINITY });
  }

  forgetStatic(entry: KeyEntry): void {
    const found = this.tokens.get(entry.secretDigest);
    if (found?.entry === entry && found.expiresAt === Number.POSITIVE_INFINITY) this.forget(entry.secretDigest);
  }

  /** The key's tokens are refused from now on, and the issued ones deleted from the store. */
  revokeAll(entry: KeyEntry): void {
    for (const tokenDigest of entry.tokens) this.drop(tokenDigest);
  }

  /** Out of the index only (a key another emulator deleted, whose tokens' deletions come as changes of their own). */
  forgetAll(entry: KeyEntry): void {
    for (const tokenDigest of entry.tokens) this.forget(tokenDigest);
  }

  private find(authorization: string | undefined): TokenEntry {
    const recent = this.recent.get(authorization);
    if (recent) return recent;
    // "Bearer <token>" as clients send it is looked up without the regular expression: tokens hold no
    // whitespace, so a token found this way is the one the expression would have found.
    if (authorization?.startsWith('Bearer ')) {
      const found = this.tokens.get(digest(authorization.slice(7)));
      if (found) {
        this.recent.remember(authorization, found);
        return found;
      }
    }
    const token = authorization ? BEARER.exec(authorization)?.[1] : undefined;
    if (!token) throw new Unauthorized('UNAUTHORIZED', 'The Authorization header must be "Bearer <ACCESS_TOKEN>"');
    const found = this.tokens.get(digest(token));
    if (!found) throw new Unauthorized('INVALID_TOKEN', 'The access token is invalid or was revoked');
    return found;
  }

  /** Every change to the index goes through set and forget: the key's own list and the recent header move with it. */
  private set(tokenDigest: string, issued: TokenEntry): void {
    this.tokens.set(tokenDigest, issued);
    issued.entry.tokens.add(tokenDigest);
    this.listener?.held('token', tokenDigest);
    this.recent.forget();
  }

  /** Out of the index only; returns what was there. */
  private forget(tokenDigest: string): TokenEntry | undefined {
    const found = this.tokens.get(tokenDigest);
    if (!found) return undefined;
    this.tokens.delete(tokenDigest);
    found.entry.tokens.delete(tokenDigest);
    this.listener?.dropped('token', tokenDigest);
    this.recent.forget();
    return found;
  }

  /** Static tokens are not stored (they are the key's secret), so only an issued one is deleted from the store. */
  private drop(tokenDigest: string): void {
    const found = this.forget(tokenDigest);
    if (found && found.expiresAt !== Number.POSITIVE_INFINITY) this.resources.delete(ACCESS_TOKENS, tokenDigest);
  }

  /**
   * Expired tokens are otherwise only dropped when presented: this forgets those that expired a
   * lifetime ago or more, so at most two lifetimes of tokens are kept.
   */
  private forgetExpired(): void {
    const forgetBefore = this.clock() - this.ttlSeconds * 1000;
    for (const [tokenDigest, { expiresAt }] of this.tokens) {
      if (expiresAt <= forgetBefore) this.drop(tokenDigest);
    }
  }
}
