// The URLs the emulator answers to be opened without credentials (a connection's OAuth URL, an MCP
// server's `mcp_url`) carry the tenant that answered them, `?workspace=ID&environment=NAME`, so that
// opening one serves that tenant (Tenants.resolve), whichever is the default. The tenant named is no
// secret, so a URL also carries what only its tenant could have made: an MCP server's random token,
// and for an OAuth URL a key, the HMAC of the tenant and the connection under a secret of the tenant
// kept in its storage (made at its first start; the same on every emulator sharing a Redis). A URL
// whose tenant was changed, or whose key is not its connection's, answers the same 404 as an unknown
// one: nothing tells another tenant's items from none.
import { createHmac } from 'node:crypto';
import { randomToken, sameDigest } from '../domain/secrets.js';
import { NotFound } from '../errors.js';
import { MemoryResourceStore } from '../store/memory/resources.js';
import type { ResourceStore } from '../store/resource-store.js';

/** The tenant a URL names (a TenantIdentity's; not imported, as the tenant holds its UrlScope). */
interface NamedTenant {
  readonly workspaceId: number;
  readonly environment: string;
}

const URL_SECRET = 'emulator:url-secret';
const SECRET_ID = 'secret';
/** 256 bits, as the access tokens' randomness. */
const SECRET_BYTES = 32;

/** The one answer to an unknown URL, whatever was unknown of it: its tenant, its item or its key. */
export const unknownUrl = (): NotFound =>
  new NotFound('Nothing answers at this URL: it is not one the emulator gave, or what it named is gone');

export class UrlScope {
  /** The query that names the tenant, as the emulator API's `workspace` and `environment` do. */
  readonly query: string;
  private secret: string | undefined;

  constructor(
    private readonly identity: NamedTenant,
    private readonly resources: ResourceStore,
  ) {
    this.query = `workspace=${identity.workspaceId}&environment=${identity.environment}`;
  }

  /** The scope of an engine no tenant holds (one a test makes): workspace 1's `dev`, its secret its own, in memory. */
  static detached(): UrlScope {
    const scope = new UrlScope({ workspaceId: 1, environment: 'dev' }, new MemoryResourceStore());
    scope.secret = randomToken(SECRET_BYTES);
    return scope;
  }

  /** Reads the tenant's secret, made and stored at its first start (inside the start's commit). */
  async load(): Promise<void> {
    const stored = (await this.resources.get(URL_SECRET, SECRET_ID))?.value.secret;
    if (typeof stored === 'string') {
      this.secret = stored;
      return;
    }
    this.secret = randomToken(SECRET_BYTES);
    await this.resources.put(URL_SECRET, { id: SECRET_ID, value: { secret: this.secret } });
  }

  /** The key of the connection's OAuth URL: the same each time, and this tenant's alone. */
  oauthKey(connectionId: string): string {
    if (this.secret === undefined) throw new Error('The tenant’s URL secret is read at its start');
    const { workspaceId, environment } = this.identity;
    return createHmac('sha256', this.secret)
      .update(`oauth:${workspaceId}:${environment}:${connectionId}`)
      .digest('base64url');
  }

  /** The unknown-URL 404 unless `key` is the connection's (compared in constant time). */
  checkOAuthKey(connectionId: string, key: string | undefined): void {
    if (key === undefined || !sameDigest(this.oauthKey(connectionId), key)) throw unknownUrl();
  }
}
