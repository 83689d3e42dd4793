// A request to an engine operation as the pipeline hands it over (dispatch.ts), checked against the
// spec: the path and query parameters coerced to their schema types, the body read and checked as every
// operation's is.
import type { JsonObject } from '../store/resource-store.js';

export interface CheckedRequest {
  params: Readonly<JsonObject>;
  /** The JSON body, valid against the operation's schema; undefined when the operation takes none or it was left out. */
  body: unknown;
  /** The body's bytes when it is not JSON (a package's zip file). */
  bytes?: Uint8Array;
  /** The request's Host header, for answers that name a URL of the emulator itself. */
  host?: string;
}
