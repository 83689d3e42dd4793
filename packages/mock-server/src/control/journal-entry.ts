// An answered request as the journal's entry (spec/emulator JournalEntry): its strings as kept
// (journal-ring.ts), its query and bodies parsed (JSON, a form, or text), its credentials masked.
import type { components } from '@platform-api/spec/types/emulator';
import { isObject } from '../engine/schema.js';
import { CONTENT_TYPES } from '../http/replies.js';
import type { ApiName } from '../spec/bundles.js';
import type { IsoTimeFormatter } from '../spec/date-time.js';
import { masked, maskedHeaders, maskText } from './journal-masking.js';
import { KEPT_BODY_BYTES, type KeptRequest } from './journal-ring.js';

export type JournalEntry = components['schemas']['JournalEntry'];

/** The entry of the request `id` as kept: parsed, its credentials masked. */
export function journalEntry(id: number, kept: KeptRequest, times: IsoTimeFormatter): JournalEntry {
  const { status, receivedAt, durationMs } = kept;
  const headers = headersOf(kept.rawHeaders);
  const queryAt = kept.url.indexOf('?');
  const search = new URLSearchParams(queryAt < 0 ? '' : kept.url.slice(queryAt + 1));
  const query: Record<string, string | string[]> = {};
  for (const name of new Set(search.keys())) {
    const values = search.getAll(name);
    query[name] = values.length === 1 ? (values[0] as string) : values;
  }
  const api = kept.api === '' ? null : (kept.api as ApiName);
  const requestBody = bodyValue(kept.body, headers['content-type']);
  return {
    id,
    time: times.format(receivedAt),
    method: kept.method,
    path: queryAt < 0 ? kept.url : kept.url.slice(0, queryAt),
    query,
    operation: kept.operationId === '' ? null : kept.operationId,
    api,
    client_id: (kept.clientId || clientIdOfTokenRequest(api, headers, requestBody)) ?? null,
    request: { headers: maskedHeaders(headers), body: masked(requestBody) },
    response: {
      status,
      headers: maskedHeaders(responseHeaders(kept)),
      body: kept.reply === undefined ? null : masked(bodyValue(kept.reply, 'application/json')),
    },
    duration_ms: Math.round(durationMs * 1000) / 1000,
  };
}

/** The answer's headers: a JSON body's content type (its API's), then the reply's own. */
function responseHeaders(kept: KeptRequest): Record<string, string> {
  // An answer outside any API (an unknown path) is in the event-streams shape.
  const contentType = kept.reply ? CONTENT_TYPES[(kept.api || 'event-streams') as ApiName] : undefined;
  const headers: Record<string, string> = contentType ? { 'content-type': contentType } : {};
  for (let i = 0; i + 1 < kept.replyHeaders.length; i += 2) {
    headers[(kept.replyHeaders[i] as string).toLowerCase()] = kept.replyHeaders[i + 1] as string;
  }
  return headers;
}

/** A token request is authenticated by the credentials it carries: its client ID is the entry's. */
function clientIdOfTokenRequest(
  api: ApiName | null,
  headers: Record<string, string>,
  body: unknown,
): string | undefined {
  if (api !== 'auth') return undefined;
  const basic = /^basic\s+(\S+)/i.exec(headers.authorization ?? '')?.[1];
  if (basic) {
    const decoded = Buffer.from(basic, 'base64').toString('utf8');
    const colon = decoded.indexOf(':');
    return colon < 0 ? undefined : safeDecode(decoded.slice(0, colon));
  }
  const given = isObject(body) ? body.client_id : undefined;
  return typeof given === 'string' ? given : undefined;
}

function safeDecode(text: string): string {
  try {
    return decodeURIComponent(text.replace(/\+/g, ' '));
  } catch {
    return text;
  }
}

/** JSON parsed, a form as its fields, anything else as text; at most KEPT_BODY_BYTES, null when empty. */
function bodyValue(text: string, contentType: string | undefined): unknown {
  if (text.length === 0) return null;
  const bytes = Buffer.from(text);
  if (bytes.length > KEPT_BODY_BYTES) return maskText(bytes.subarray(0, KEPT_BODY_BYTES).toString('utf8'));
  const type = (contentType ?? '').toLowerCase();
  if (type.includes('json')) {
    try {
      return JSON.parse(text);
    } catch {
      return maskText(text);
    }
  }
  if (type.startsWith('application/x-www-form-urlencoded')) {
    const form: Record<string, string | string[]> = {};
    const fields = new URLSearchParams(text);
    for (const name of new Set(fields.keys())) {
      const values = fields.getAll(name);
      form[name] = values.length === 1 ? (values[0] as string) : values;
    }
    return form;
  }
  return maskText(text);
}

/** The raw list as lower-case names and values (a repeated header's values joined with ', '). */
function headersOf(rawHeaders: string[]): Record<string, string> {
  const headers: Record<string, string> = {};
  for (let i = 0; i + 1 < rawHeaders.length; i += 2) {
    const name = (rawHeaders[i] as string).toLowerCase();
    const value = rawHeaders[i + 1] as string;
    headers[name] = name in headers ? `${headers[name]}, ${value}` : value;
  }
  return headers;
}
