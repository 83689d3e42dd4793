// The rules of request bodies, once for every API: what the headers must say of a JSON body before it
// is read (application/json, UTF-8, as sent), what its bytes must be (UTF-8 and JSON), and the one
// exception to a 413 (an operation that declares none answers a too-large body as a bad request).
import { isUtf8 } from 'node:buffer';
import type { IncomingHttpHeaders } from 'node:http';
import { InvalidRequest, PayloadTooLarge } from '../errors.js';
import type { Operation, SpecName } from '../spec/bundles.js';

/** 400 unless the headers say the body is JSON, in UTF-8, as sent (no Content-Encoding). */
export function checkJsonHeaders(headers: IncomingHttpHeaders): void {
  const contentType = headers['content-type'];
  if (!isJsonContentType(contentType)) {
    throw new InvalidRequest(
      'UNSUPPORTED_CONTENT_TYPE',
      `Content-Type must be application/json, not ${contentType ?? 'absent'}`,
    );
  }
  checkSentAsIs(headers);
  checkJsonCharset(contentType as string);
}

/** 400 for a Content-Encoding but identity: none is decoded (gzip), so a compressed body cannot be read as sent. */
export function checkSentAsIs(headers: IncomingHttpHeaders): void {
  const contentEncoding = headers['content-encoding'];
  if (contentEncoding === undefined || contentEncoding.trim().toLowerCase() === 'identity') return;
  throw new InvalidRequest(
    'UNSUPPORTED_CONTENT_TYPE',
    `Content-Encoding ${contentEncoding} is not supported: send the body uncompressed`,
  );
}

/** 400 unless a charset the JSON Content-Type names is UTF-8, which JSON is (RFC 8259 8.1). */
export function checkJsonCharset(contentType: string): void {
  if (contentType === 'application/json') return;
  for (const parameter of contentType.split(';').slice(1)) {
    const equals = parameter.indexOf('=');
    if (parameter.slice(0, equals).trim().toLowerCase() !== 'charset') continue;
    const charset = parameter
      .slice(equals + 1)
      .trim()
      .replace(/^"(.*)"$/, '$1');
    if (!/^utf-?8$/i.test(charset)) {
      throw new InvalidRequest('UNSUPPORTED_CONTENT_TYPE', `A JSON body is UTF-8 (RFC 8259), not charset=${charset}`);
    }
  }
}

/** The text of a JSON body; 400 when its bytes are not UTF-8 (read as UTF-8 regardless, others would become U+FFFD). */
export function jsonText(bytes: Buffer): string {
  if (!isUtf8(bytes)) throw new InvalidRequest('INVALID_JSON', 'The body is not UTF-8 (RFC 8259)');
  return bytes.toString('utf8');
}

/** The JSON value of a request body; 400 when it is empty or not JSON. */
export function parseJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch (error) {
    // Only a failed parse can be an empty body, so well-formed bodies are not scanned twice.
    if (text.trim() === '') throw new InvalidRequest('INVALID_REQUEST', 'A JSON request body is required');
    throw new InvalidRequest('INVALID_JSON', `The body is not valid JSON: ${(error as Error).message}`);
  }
}

/** The media type of a Content-Type header, without its parameters, in lower case. */
export function mediaType(contentType: string): string {
  const semicolon = contentType.indexOf(';');
  return (semicolon < 0 ? contentType : contentType.slice(0, semicolon)).trim().toLowerCase();
}

export function isJsonContentType(contentType: string | undefined): boolean {
  // The exact header nearly every client sends is decided without parsing (a publish-path hot spot).
  return (
    contentType === 'application/json' || (contentType !== undefined && mediaType(contentType) === 'application/json')
  );
}

/** A body too large for an operation that declares no 413 (consume, token, management, most of the emulator API) is a bad request. */
export function asDeclared(operation: Operation<SpecName>, error: unknown): unknown {
  if (!(error instanceof PayloadTooLarge) || operation.responses['413']) return error;
  return new InvalidRequest('INVALID_REQUEST', error.detail);
}
