import type { operations, paths } from '@platform-api/spec/types/auth';
import createClient, { type Client } from 'openapi-fetch';
import { ApiError, type ErrorBodies } from './errors.js';
import type { Fetch } from './options.js';

export type TokenErrorBodies = ErrorBodies<operations['request_access_token']>;

/** The token endpoint refused to issue a token: 400 or 401 with an OAuth 2.0 error body (RFC 6749 5.2). */
export class TokenError extends ApiError<TokenErrorBodies> {
  override readonly name: string = 'TokenError';
}

export interface TokenClientOptions {
  /**
   * `{auth_url}`: the token endpoint's base address shown with your API key (regional, sandbox or
   * a custom domain; the spec publishes no per-data-center hosts), or the emulator's URL.
   */
  baseUrl: string;
  fetch?: Fetch | undefined;
}

export type TokenClient = Client<paths>;

/** A typed openapi-fetch client of the token endpoint (`POST /oauth2/token`), without auth or retries. */
export function createTokenClient(options: TokenClientOptions): TokenClient {
  return createClient<paths>({ baseUrl: options.baseUrl, ...(options.fetch && { fetch: options.fetch }) });
}
