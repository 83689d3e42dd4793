// An in-process emulator per test, closed after it: for suites whose tests each start from nothing.
import { afterEach } from 'vitest';
import type { MockServer, MockServerOptions } from '../../../src/index.js';
import { type Run, session } from '../helpers.js';

/** Registers the closing; each call of the returned function opens a new emulator and answers its `run`. */
export function freshSessions(): (options?: MockServerOptions) => Promise<{ server: MockServer; run: Run }> {
  let server: MockServer | undefined;
  afterEach(async () => {
    await server?.close();
    server = undefined;
  });
  return async (options = {}) => {
    const opened = await session(options);
    server = opened.server;
    return opened;
  };
}
