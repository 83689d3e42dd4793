// Who may make the fleet-level calls of the emulator API: make, list, read and delete workspaces (the
// operations whose spec requires the AdminToken) and name a tenant other than the caller's own. On
// loopback, a developer's machine, anyone; once the emulator listens beyond it (a container, a shared
// CI host) or is given an admin token, only a request carrying that token: one team's tests cannot
// read, reset or delete another's workspace. A tenant's own state needs no admin token (registry.ts).
import { isIPv4 } from 'node:net';
import { BEARER } from '../domain/access-tokens.js';
import { digest, randomToken, sameDigest } from '../domain/secrets.js';
import { Unauthorized } from '../errors.js';

/** RFC 6750's b64token: what a bearer token may hold, so that a client can send it as given. */
const BEARER_TOKEN = /^[A-Za-z0-9\-._~+/]+=*$/;

export class FleetAdmission {
  private readonly tokenDigest: string | undefined;

  /** `adminToken`: the token fleet-level calls need; undefined: they need none. */
  constructor(adminToken: string | undefined) {
    this.tokenDigest = adminToken === undefined ? undefined : digest(adminToken);
  }

  /** Unauthorized unless no admin token is required or the Authorization header carries it. */
  check(authorization: string | undefined): void {
    if (this.tokenDigest === undefined) return;
    const token = authorization === undefined ? undefined : BEARER.exec(authorization)?.[1];
    // Digests compared: as long whatever was sent, and compared in constant time.
    if (token !== undefined && sameDigest(this.tokenDigest, digest(token))) return;
    throw new Unauthorized(
      'UNAUTHORIZED',
      'This call needs the admin token: send "Authorization: Bearer <admin token>" (printed at start, or given with --admin-token)',
    );
  }
}

/** True for a host only this machine reaches: `localhost`, `::1`, `127.0.0.0/8`. */
export function isLoopback(host: string): boolean {
  const name = host.toLowerCase();
  return name === 'localhost' || name === '::1' || (isIPv4(name) && name.startsWith('127.'));
}

/** The admin token: the one given, else a new one when the emulator listens beyond loopback; none on loopback. */
export function adminTokenFor(host: string, given: string | undefined): string | undefined {
  if (given === undefined) return isLoopback(host) ? undefined : randomToken(24);
  if (!BEARER_TOKEN.test(given)) {
    throw new TypeError(
      'adminToken must be a bearer token: letters, digits and - . _ ~ + /, with = only at its end (RFC 6750)',
    );
  }
  return given;
}
