// The fleet directory: which tenant holds a client ID, an access token or a static API key (by the
// digest its tenant's index keeps). Each tenant made at run time tells it of what it holds (a
// CredentialListener); the default tenant does not, so a credential the directory does not know is
// the default tenant's, and an emulator with no other tenant never consults it.
import { BEARER, type CredentialListener } from '../domain/access-tokens.js';
import { RecentHeader } from '../domain/recent-header.js';
import { digest } from '../domain/secrets.js';

export class TenantDirectory {
  private readonly byToken = new Map<string, string>();
  private readonly byClientId = new Map<string, string>();
  /** The last Authorization header found in `byToken`, while it is unchanged: the digest is skipped. */
  private readonly recent = new RecentHeader<string>();

  /** What tells the directory of the credentials the tenant of `key` holds. */
  listenerFor(key: string): CredentialListener {
    return {
      held: (kind, value) => {
        this.index(kind).set(value, key);
        this.recent.forget();
      },
      dropped: (kind, value) => {
        const index = this.index(kind);
        if (index.get(value) === key) index.delete(value);
        this.recent.forget();
      },
    };
  }

  /** The key of the tenant whose token the Authorization header carries; undefined for the default tenant's, or none. */
  tenantOfBearer(authorization: string | undefined): string | undefined {
    if (this.byToken.size === 0 || !authorization) return undefined;
    const recent = this.recent.get(authorization);
    if (recent !== undefined) return recent;
    const token = authorization.startsWith('Bearer ') ? authorization.slice(7) : BEARER.exec(authorization)?.[1];
    const found = token ? this.byToken.get(digest(token)) : undefined;
    if (found !== undefined) this.recent.remember(authorization, found);
    return found;
  }

  tenantOfClientId(clientId: string): string | undefined {
    return this.byClientId.get(clientId);
  }

  /** Forgets every credential of the tenant of `key` (a deleted workspace). */
  forget(key: string): void {
    this.recent.forget();
    for (const index of [this.byToken, this.byClientId]) {
      for (const [value, owner] of index) if (owner === key) index.delete(value);
    }
  }

  private index(kind: 'token' | 'client'): Map<string, string> {
    return kind === 'token' ? this.byToken : this.byClientId;
  }
}
