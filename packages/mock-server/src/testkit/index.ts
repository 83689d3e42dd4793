// @platform-api/mock-server/testkit: the emulator as a test fixture. A global setup (vitest or jest)
// starts one emulator per run and hands its URL and credentials to the tests through the environment;
// each test takes its handle with emulator() and resets it, verifies requests, moves the clock.

import type { MockServerOptions } from '../options.js';
import { startMockServer } from '../server.js';
import { type CoverageOptions, reportCoverage } from './coverage.js';
import { Emulator, type EmulatorConnection } from './emulator.js';

export type { Fault } from '../domain/faults.js';
export type {
  EmulatorApiClient,
  EmulatorErrorBody,
  JournalEntry,
  RequestMatch,
  TenantScope,
  VerificationFailure,
  VerificationResult,
} from './client.js';
export { createEmulatorApiClient } from './client.js';
export type { ApiCoverage, CoverageApi, CoverageOptions, CoverageReport, CoverageSummary } from './coverage.js';
export { CoverageThresholdError, coverageJunit, coverageTable, reportCoverage, summarize } from './coverage.js';
export type { EmulatorConnection, EmulatorFaults, ExpectOptions, RequestFilter, WorkspaceOptions } from './emulator.js';
export {
  describeFailure,
  Emulator,
  EmulatorApiError,
  EmulatorWorkspace,
  RequestVerificationError,
} from './emulator.js';

/** Where the global setup leaves the emulator for the tests (each process of the run inherits them). */
export const ENVIRONMENT = {
  url: 'PLATFORM_API_EMULATOR_URL',
  clientId: 'PLATFORM_API_EMULATOR_CLIENT_ID',
  clientSecret: 'PLATFORM_API_EMULATOR_CLIENT_SECRET',
  /** Set only when the emulator has an admin token. */
  adminToken: 'PLATFORM_API_EMULATOR_ADMIN_TOKEN',
} as const;

/** The emulator the global setup started (or the one the environment names). */
export function emulator(environment: NodeJS.ProcessEnv = process.env): Emulator {
  const url = environment[ENVIRONMENT.url];
  const clientId = environment[ENVIRONMENT.clientId];
  const clientSecret = environment[ENVIRONMENT.clientSecret];
  if (!url || !clientId || !clientSecret) {
    const required = [ENVIRONMENT.url, ENVIRONMENT.clientId, ENVIRONMENT.clientSecret];
    throw new Error(
      `No emulator for this test run: add "@platform-api/mock-server/testkit/global-setup" to the runner's globalSetup, or set ${required.join(', ')}`,
    );
  }
  return new Emulator({ url, clientId, clientSecret, adminToken: environment[ENVIRONMENT.adminToken] || undefined });
}

/** Starts an emulator (127.0.0.1, a free port, silent unless told) and returns its handle and close(). */
export async function startEmulator(
  options: MockServerOptions = {},
): Promise<{ emulator: Emulator; connection: EmulatorConnection; close(): Promise<void> }> {
  const server = await startMockServer(options);
  const { url, clientId, clientSecret, adminToken } = server;
  const connection: EmulatorConnection = { url, clientId, clientSecret, adminToken };
  return { emulator: new Emulator(connection), connection, close: () => server.close() };
}

/** What the test run reports when it ends. */
export interface TestRunOptions {
  /** The API coverage of the run: printed as a table, written as JSON and JUnit, held to thresholds. */
  coverage?: CoverageOptions;
}

/**
 * A global setup for vitest (`globalSetup`) or jest (`globalSetup`, with `globalTeardown` pointing at
 * `@platform-api/mock-server/testkit/global-teardown`): starts one emulator with these options for
 * the run, puts its URL and credentials in the environment, and returns the teardown vitest calls.
 * With `run.coverage`, the teardown reports the run's API coverage first, and fails under a threshold.
 */
export function createGlobalSetup(
  options: MockServerOptions = {},
  run: TestRunOptions = {},
): () => Promise<() => Promise<void>> {
  return async () => {
    const started = await startEmulator(options);
    process.env[ENVIRONMENT.url] = started.connection.url;
    process.env[ENVIRONMENT.clientId] = started.connection.clientId;
    process.env[ENVIRONMENT.clientSecret] = started.connection.clientSecret;
    if (started.connection.adminToken !== undefined)
      process.env[ENVIRONMENT.adminToken] = started.connection.adminToken;
    running.close = started.close;
    running.report =
      run.coverage && (async () => void (await reportCoverage(await started.emulator.coverage(), run.coverage)));
    return teardown;
  };
}

/** The emulator of this run's global setup; jest's global teardown runs in the same process. */
const running: { close?: () => Promise<void>; report?: (() => Promise<void>) | undefined } = {};

/**
 * Stops the emulator the global setup started (vitest calls it by itself; jest through global-teardown),
 * after reporting its coverage when the setup asked for it: a threshold not met rejects, failing the run.
 */
export async function teardown(): Promise<void> {
  const { close, report } = running;
  running.close = undefined;
  running.report = undefined;
  try {
    await report?.();
  } catch (error) {
    // Vitest reports an error of a global teardown, and still exits 0: the run must fail.
    process.exitCode = 1;
    throw error;
  } finally {
    await close?.();
  }
}
