import type { Logger } from './log.js';
import { type Auth, errorOf, type Fetch, type TokenProvider } from './options.js';
import { createTokenClient, TokenError } from './token-client.js';

/** The four request formats the token endpoint accepts. */
export type TokenRequestFormat = 'basic' | 'json' | 'form' | 'multipart';

export interface ClientCredentialsOptions {
  /** `{auth_url}`, the base address of the token endpoint; the provider POSTs to `${authUrl}/oauth2/token`. */
  authUrl: string;
  clientId: string;
  clientSecret: string;
  /** How the credentials are sent. Default `basic`: an `Authorization: Basic` header and a form body. */
  format?: TokenRequestFormat | undefined;
  /** Renew this many seconds before `expires_in` runs out (at most half the lifetime). Default 60. */
  renewBeforeSeconds?: number | undefined;
  fetch?: Fetch | undefined;
  /** Current time in ms since the epoch. Default Date.now. */
  now?: (() => number) | undefined;
  /** Told each time a token is obtained, and why (`token` events; never the token or the secret). */
  logger?: Logger | undefined;
}

const GRANT = 'client_credentials' as const;
const FORM = 'application/x-www-form-urlencoded';

// base64 of the UTF-8 bytes, as `curl -u` sends them.
function basicCredentials(clientId: string, clientSecret: string): string {
  const bytes = new TextEncoder().encode(`${clientId}:${clientSecret}`);
  return `Basic ${btoa(String.fromCharCode(...bytes))}`;
}

function formBody(fields: Record<string, string>): string {
  return new URLSearchParams(fields).toString();
}

function multipartBody(fields: Record<string, string>): FormData {
  const form = new FormData();
  for (const [name, value] of Object.entries(fields)) form.append(name, value);
  return form;
}

/** The openapi-fetch init of a token request in the chosen format. */
function tokenRequest(format: TokenRequestFormat, clientId: string, clientSecret: string) {
  const all = { grant_type: GRANT, client_id: clientId, client_secret: clientSecret } as const;
  switch (format) {
    case 'basic':
      return {
        body: { grant_type: GRANT },
        bodySerializer: formBody,
        headers: { 'Content-Type': FORM, Authorization: basicCredentials(clientId, clientSecret) },
      };
    case 'form':
      return { body: all, bodySerializer: formBody, headers: { 'Content-Type': FORM } };
    case 'json':
      return { body: all, headers: { 'Content-Type': 'application/json' } };
    case 'multipart':
      // No Content-Type: fetch sets multipart/form-data with its boundary.
      return { body: all, bodySerializer: multipartBody };
  }
}

/**
 * A client-credentials token provider: requests a token from the token endpoint, caches it,
 * renews it before it expires, and makes a single token request however many callers wait
 * for one. The secret stays in this closure: it is never put in an error, a log or a property.
 */
export function clientCredentials(options: ClientCredentialsOptions): TokenProvider {
  const { clientId, clientSecret, format = 'basic', renewBeforeSeconds = 60, now = Date.now } = options;
  const tokenClient = createTokenClient({ baseUrl: options.authUrl, ...(options.fetch && { fetch: options.fetch }) });
  let cached: { token: string; renewAt: number } | undefined;
  let pending: Promise<string> | undefined;
  let reason: 'first' | 'expiring' | 'rejected' = 'first';

  async function requestToken(): Promise<string> {
    const { data, error, response } = await tokenClient.POST(
      '/oauth2/token',
      tokenRequest(format, clientId, clientSecret),
    );
    if (!data) throw errorOf(TokenError, { method: 'POST', path: '/oauth2/token' }, response, error, now);
    const margin = Math.min(renewBeforeSeconds, data.expires_in / 2);
    cached = { token: data.access_token, renewAt: now() + (data.expires_in - margin) * 1000 };
    options.logger?.({ type: 'token', reason, expiresInSeconds: data.expires_in });
    reason = 'expiring';
    return data.access_token;
  }

  function getToken(): Promise<string> {
    if (cached && now() < cached.renewAt) return Promise.resolve(cached.token);
    pending ??= requestToken().finally(() => {
      pending = undefined;
    });
    return pending;
  }

  return {
    getToken,
    renew(rejected) {
      // Another request may already have replaced the rejected token.
      if (cached?.token === rejected) {
        cached = undefined;
        reason = 'rejected';
      }
      return getToken();
    },
  };
}

/** A fixed token (an API key's static token, or one obtained elsewhere); a 401 is not retried. */
export function staticToken(token: string): TokenProvider {
  return { getToken: () => Promise.resolve(token) };
}

export function providerOf(auth: Auth): TokenProvider {
  return 'token' in auth ? staticToken(auth.token) : auth;
}
