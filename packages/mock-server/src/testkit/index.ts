// @platform-api/mock-server/testkit: the emulator as a test fixture. A global setup (vitest or jest)
// starts one emulator per run and hands its URL and credentials to the tests through the environment;
// each test takes its handle with emulator() and resets it, verifies requests, moves the clock.

import type { MockServerOptions } from '../options.js';
import { startMockServer } from '../server.js';
import { Emulator, type EmulatorConnection } from './emulator.js';

export type { Fault } from '../domain/faults.js';
export type {
  EmulatorApiClient,
  EmulatorErrorBody,
  JournalEntry,
  RequestMatch,
  VerificationFailure,
  VerificationResult,
} from './client.js';
export { createEmulatorApiClient } from './client.js';
export type { EmulatorConnection, EmulatorFaults, ExpectOptions, RequestFilter } from './emulator.js';
export { describeFailure, Emulator, EmulatorApiError, RequestVerificationError } from './emulator.js';

/** Where the global setup leaves the emulator for the tests (each process of the run inherits them). */
export const ENVIRONMENT = {
  url: 'PLATFORM_API_EMULATOR_URL',
  clientId: 'PLATFORM_API_EMULATOR_CLIENT_ID',
  clientSecret: 'PLATFORM_API_EMULATOR_CLIENT_SECRET',
} as const;

/** The emulator the global setup started (or the one the environment names). */
export function emulator(environment: NodeJS.ProcessEnv = process.env): Emulator {
  const url = environment[ENVIRONMENT.url];
  const clientId = environment[ENVIRONMENT.clientId];
  const clientSecret = environment[ENVIRONMENT.clientSecret];
  if (!url || !clientId || !clientSecret) {
    throw new Error(
      `No emulator for this test run: add "@platform-api/mock-server/testkit/global-setup" to the runner's globalSetup, or set ${Object.values(ENVIRONMENT).join(', ')}`,
    );
  }
  return new Emulator({ url, clientId, clientSecret });
}

/** Starts an emulator (127.0.0.1, a free port, silent unless told) and returns its handle and close(). */
export async function startEmulator(
  options: MockServerOptions = {},
): Promise<{ emulator: Emulator; connection: EmulatorConnection; close(): Promise<void> }> {
  const server = await startMockServer(options);
  const connection = { url: server.url, clientId: server.clientId, clientSecret: server.clientSecret };
  return { emulator: new Emulator(connection), connection, close: () => server.close() };
}

/**
 * A global setup for vitest (`globalSetup`) or jest (`globalSetup`, with `globalTeardown` pointing at
 * `@platform-api/mock-server/testkit/global-teardown`): starts one emulator with these options for
 * the run, puts its URL and credentials in the environment, and returns the teardown vitest calls.
 */
export function createGlobalSetup(options: MockServerOptions = {}): () => Promise<() => Promise<void>> {
  return async () => {
    const started = await startEmulator(options);
    process.env[ENVIRONMENT.url] = started.connection.url;
    process.env[ENVIRONMENT.clientId] = started.connection.clientId;
    process.env[ENVIRONMENT.clientSecret] = started.connection.clientSecret;
    running.close = started.close;
    return teardown;
  };
}

/** The emulator of this run's global setup; jest's global teardown runs in the same process. */
const running: { close?: () => Promise<void> } = {};

/** Stops the emulator the global setup started (vitest calls it by itself; jest through global-teardown). */
export async function teardown(): Promise<void> {
  const close = running.close;
  running.close = undefined;
  await close?.();
}
