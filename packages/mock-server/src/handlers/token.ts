// POST /oauth2/token: the client credentials grant in its four request formats (RFC 6749 errors).

import type { components as AuthComponents } from '@platform-api/spec/types/auth';
import { OAuthError } from '../errors.js';
import { jsonReply, type Reply } from '../http/replies.js';
import { checkJsonCharset, jsonText, mediaType } from '../pipeline/body-rules.js';
import { type EndpointRequest, endpoint, type PlatformEndpoints } from '../pipeline/endpoint.js';
import type { ClientIdLookup } from '../tenants/tenant.js';

/** The token request's parameters as sent, before they are checked. */
type TokenParameters = { [Name in keyof AuthComponents['schemas']['TokenRequestWithCredentials']]?: string };

/** `tenants` finds the tenant of a client ID: the token is issued there. */
export function tokenEndpoints(tenants: ClientIdLookup): Pick<PlatformEndpoints, 'request_access_token'> {
  return {
    request_access_token: endpoint('request_access_token', {
      // A token another emulator just issued a key for, or a key it just enabled, is here once caught up.
      catchUp: 'always',
      // As sent: a compressed body is refused (invalid_request), which would be read as a garbled form.
      body: { kind: 'bytes' },
      handle: (request) => requestToken(request, tenants, request.body),
    }),
  };
}

async function requestToken(request: EndpointRequest, tenants: ClientIdLookup, body: Buffer): Promise<Reply> {
  const { 'content-type': contentType, authorization } = request.headers;
  const form = await parseTokenBody(contentType, body);
  const basic = basicCredentials(authorization);
  if (form.grant_type === undefined) throw new OAuthError('invalid_request', 'grant_type is required');
  if (form.grant_type !== 'client_credentials') {
    throw new OAuthError('unsupported_grant_type', 'grant_type must be client_credentials');
  }
  if (basic && (form.client_id !== undefined || form.client_secret !== undefined)) {
    throw new OAuthError(
      'invalid_request',
      'Send the client credentials in the Authorization header or in the body, not both',
    );
  }
  const readings = basic ?? [{ clientId: form.client_id ?? '', secret: form.client_secret ?? '' }];
  if (readings.some(({ clientId, secret }) => clientId === '' || secret === '')) {
    throw new OAuthError('invalid_request', 'client_id and client_secret are required');
  }
  const owner = readings.map(({ clientId }) => tenants.tenantOfClientId(clientId)).find(Boolean);
  request.admitTo(owner ?? request.tenant);
  const { credentials } = request.tenant.domain;
  const key = readings
    .map(({ clientId, secret }) => credentials.authenticateClient(clientId, secret))
    .find((found) => found !== undefined);
  // RFC 6749 5.2: 401 when the client authenticated with the Authorization header, 400 otherwise.
  if (!key) throw new OAuthError('invalid_client', 'Client authentication failed', basic !== undefined);
  const { token, expiresIn } = credentials.issueToken(key);
  return jsonReply(
    200,
    { access_token: token, token_type: 'bearer', expires_in: expiresIn },
    { 'cache-control': 'no-store' },
  );
}

const mismatch = () => new OAuthError('invalid_request', 'The Content-Type header does not match the request body');

/** The body's parameters by its Content-Type; a body that is not in that format is rejected. */
async function parseTokenBody(contentType: string | undefined, body: Buffer): Promise<TokenParameters> {
  if (!contentType) throw new OAuthError('invalid_request', 'The Content-Type header is required');
  const essence = mediaType(contentType);
  if (essence === 'application/json') {
    // The rules of every JSON body: UTF-8, as its charset says and in its bytes (a refusal is an invalid_request).
    checkJsonCharset(contentType);
    return parseJsonParameters(jsonText(body));
  }
  const text = body.toString('utf8');
  if (essence === 'application/x-www-form-urlencoded') {
    // A JSON document or a multipart body sent as a form would otherwise parse as one odd field name.
    if (/^\s*[{[]/.test(text) || text.startsWith('--')) throw mismatch();
    return formParameters(new URLSearchParams(text));
  }
  if (essence === 'multipart/form-data') return formParameters(await multipartForm(body, contentType));
  throw new OAuthError(
    'invalid_request',
    `Content-Type ${essence} is not accepted; use application/x-www-form-urlencoded, application/json or multipart/form-data`,
  );
}

async function multipartForm(body: Buffer, contentType: string): Promise<FormData> {
  try {
    return await new Response(new Uint8Array(body), { headers: { 'content-type': contentType } }).formData();
  } catch {
    throw mismatch();
  }
}

/** A form's parameters; RFC 6749 3.2: none may be sent more than once. */
function formParameters(form: { getAll(name: string): unknown[] }): TokenParameters {
  return stringFields((name) => {
    const values = form.getAll(name);
    if (values.length > 1) throw new OAuthError('invalid_request', `${name} is sent more than once`);
    return values[0];
  });
}

function parseJsonParameters(text: string): TokenParameters {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    throw mismatch();
  }
  if (value === null || typeof value !== 'object' || Array.isArray(value)) throw mismatch();
  const fields = value as Record<string, unknown>;
  return stringFields((name) => (Object.hasOwn(fields, name) ? fields[name] : undefined));
}

/**
 * The three parameters as strings; RFC 6749 3.2 (and 3.1): a parameter sent without a value is treated
 * as omitted, so `client_id=&client_secret=` beside a Basic header is the grant alone.
 */
function stringFields(parameter: (name: keyof TokenParameters) => unknown): TokenParameters {
  const pick = (name: keyof TokenParameters) => {
    const v = parameter(name);
    if (v !== undefined && typeof v !== 'string') throw new OAuthError('invalid_request', `${name} must be a string`);
    return v === '' ? undefined : v;
  };
  return { grant_type: pick('grant_type'), client_id: pick('client_id'), client_secret: pick('client_secret') };
}

interface ClientCredentials {
  clientId: string;
  secret: string;
}

/**
 * The ways to read a Basic header's client ID and secret: as sent, `BASE64(client_id:client_secret)`
 * (the spec, curl, requests-oauthlib, authlib), and form-decoded first when that differs (RFC 6749
 * 2.3.1, as other OAuth libraries send them). The first that authenticates counts, so a secret with
 * `+`, `%` or `:` works either way.
 */
function basicCredentials(authorization: string | undefined): ClientCredentials[] | undefined {
  const encoded = authorization ? /^Basic +(\S+) *$/i.exec(authorization)?.[1] : undefined;
  if (encoded === undefined) return undefined;
  const decoded = Buffer.from(encoded, 'base64').toString('utf8');
  const colon = decoded.indexOf(':');
  if (colon < 0)
    throw new OAuthError('invalid_request', 'The Basic credentials must be base64(client_id:client_secret)');
  const plain = { clientId: decoded.slice(0, colon), secret: decoded.slice(colon + 1) };
  const clientId = formDecode(plain.clientId);
  const secret = formDecode(plain.secret);
  const differs = clientId !== plain.clientId || secret !== plain.secret;
  return clientId !== undefined && secret !== undefined && differs ? [plain, { clientId, secret }] : [plain];
}

/** undefined when the value is not validly form-encoded (a `%` not followed by two hex digits). */
function formDecode(value: string): string | undefined {
  try {
    return decodeURIComponent(value.replace(/\+/g, ' '));
  } catch {
    return undefined;
  }
}
