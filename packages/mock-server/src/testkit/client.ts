// The typed client of the emulator API (/_emulator/*), generated from spec/emulator.

import type { components, paths } from '@platform-api/spec/types/emulator';
import createClient, { type Client } from 'openapi-fetch';

export type EmulatorApiClient = Client<paths>;
export type JournalEntry = components['schemas']['JournalEntry'];
export type RequestMatch = components['schemas']['RequestMatch'];
export type VerificationResult = components['schemas']['VerificationResult'];
export type VerificationFailure = components['schemas']['VerificationFailure'];
export type EmulatorErrorBody = components['schemas']['EmulatorError'];

export function createEmulatorApiClient(baseUrl: string): EmulatorApiClient {
  return createClient<paths>({ baseUrl });
}
