// An in-process emulator per test, closed after it: for suites whose tests each start from nothing.
import { afterEach } from 'vitest';
import type { MockServer } from '../../src/index.js';
import { type Run, session } from '../helpers.js';

/** Registers the closing; each call of the returned function opens a new emulator and answers its `run`. */
export function freshSessions(): () => Promise<{ server: MockServer; run: Run }> {
  let server: MockServer | undefined;
  afterEach(async () => {
    await server?.close();
    server = undefined;
  });
  return async () => {
    const opened = await session();
    server = opened.server;
    return opened;
  };
}
