import type { paths } from '@platform-api/spec/types/emulator';
import createClient, { type Client } from 'openapi-fetch';
import type { Fetch } from './options.js';

export interface EmulatorClientOptions {
  /** The emulator's URL, e.g. `http://127.0.0.1:4010`. */
  baseUrl: string;
  fetch?: Fetch;
}

export type EmulatorClient = Client<paths>;

/**
 * A typed openapi-fetch client of the local emulator's own API (`/_emulator/*`: faults, state, reset,
 * the request journal and its verification, the clock, the served specs, the topics and their messages,
 * the management resources; the web console uses nothing else). The platform has no such
 * endpoints: use it against `platform-api-mock` only.
 */
export function createEmulatorClient(options: EmulatorClientOptions): EmulatorClient {
  return createClient<paths>({ baseUrl: options.baseUrl, ...(options.fetch && { fetch: options.fetch }) });
}
