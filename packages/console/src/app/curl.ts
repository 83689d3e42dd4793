// "Copy as curl": a journal entry as a command that sends the same request again. The journal masks
// credentials, so the command does too: a bearer token becomes $TOKEN, Basic credentials
// $CLIENT_ID:$CLIENT_SECRET, and a masked secret in a body stays `***`.
import type { JournalEntry } from './api.js';

/** Headers curl sets by itself, or that would be wrong for the command's own request. */
const LEFT_OUT = new Set(['host', 'content-length', 'connection', 'accept-encoding', 'transfer-encoding']);

export function curlCommand(entry: JournalEntry, origin: string): string {
  const url = new URL(entry.path, origin);
  for (const [name, value] of Object.entries(entry.query)) {
    for (const one of Array.isArray(value) ? value : [value]) url.searchParams.append(name, one);
  }
  const parts = ['curl'];
  if (entry.method !== 'GET') parts.push('-X', entry.method);
  parts.push(quote(url.href));
  const headers = entry.request.headers;
  for (const [name, value] of Object.entries(headers)) {
    if (LEFT_OUT.has(name)) continue;
    // In double quotes, so the shell puts the token in: the journal kept none.
    if (name === 'authorization' && /^Bearer \*+$/.test(value)) parts.push('-H', '"authorization: Bearer $TOKEN"');
    else if (name === 'authorization' && /^Basic \*+$/.test(value)) parts.push('-u', '"$CLIENT_ID:$CLIENT_SECRET"');
    else parts.push('-H', quote(`${name}: ${value}`));
  }
  const body = bodyText(entry.request.body, headers['content-type']);
  if (body !== undefined) parts.push('--data-raw', quote(body));
  return parts.join(' ');
}

/** The body as sent: a form as a form, JSON as JSON, text as it is; undefined for none. */
function bodyText(body: unknown, contentType: string | undefined): string | undefined {
  if (body === null || body === undefined) return undefined;
  if (typeof body === 'string') return body;
  if (contentType?.startsWith('application/x-www-form-urlencoded') && typeof body === 'object') {
    return new URLSearchParams(Object.entries(body).map(([name, value]) => [name, String(value)])).toString();
  }
  return JSON.stringify(body);
}

/** A single-quoted shell word. */
function quote(text: string): string {
  return `'${text.replaceAll("'", `'\\''`)}'`;
}
