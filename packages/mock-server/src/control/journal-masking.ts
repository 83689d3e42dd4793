// What the journal never shows: the credentials a request carried (its Authorization and cookies, the
// secrets, passwords and tokens in its body), masked in every entry as it is read.
import { isObject } from '../engine/schema.js';

const MASK = '***';
/** Member names whose values are credentials: secrets, passwords and tokens (not `token_type`). */
const CREDENTIAL_NAME = /secret|password|passwd|^(access_|auth_|refresh_|api_|id_)?token$/i;
const MASKED_HEADERS = new Set(['authorization', 'proxy-authorization', 'cookie', 'set-cookie']);

/** A copy of the parsed body with the values of its credential members masked. */
export function masked(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(masked);
  if (!isObject(value)) return value;
  const copy: Record<string, unknown> = {};
  for (const [name, member] of Object.entries(value)) {
    copy[name] = CREDENTIAL_NAME.test(name) && member !== null && typeof member !== 'object' ? MASK : masked(member);
  }
  return copy;
}

/** A body kept as text (multipart, or cut): the values of credential fields are masked where they can be found. */
export function maskText(text: string): string {
  return text
    .replace(/(name="([^"]*)"\r?\n(?:[^\r\n]+\r?\n)*\r?\n)([^\r\n]*)/g, (all, head, name, _value) =>
      CREDENTIAL_NAME.test(name) ? `${head}${MASK}` : all,
    )
    .replace(/("([^"]+)"\s*:\s*)"(?:[^"\\]|\\.)*"/g, (all, head, name) =>
      CREDENTIAL_NAME.test(name) ? `${head}"${MASK}"` : all,
    )
    .replace(/(^|&)([^=&]+)=([^&]*)/g, (all, lead, name) =>
      CREDENTIAL_NAME.test(name) ? `${lead}${name}=${MASK}` : all,
    );
}

/** The headers with their credentials masked: the scheme stays, the value goes. */
export function maskedHeaders(headers: Record<string, string>): Record<string, string> {
  const copy: Record<string, string> = {};
  for (const [name, value] of Object.entries(headers))
    copy[name] = MASKED_HEADERS.has(name) ? maskCredential(value) : value;
  return copy;
}

/** `Bearer ***`: the scheme stays, so a test can see which kind of credentials were sent. */
function maskCredential(value: string): string {
  const scheme = /^(\S+)\s+\S/.exec(value)?.[1];
  return scheme ? `${scheme} ${MASK}` : MASK;
}
