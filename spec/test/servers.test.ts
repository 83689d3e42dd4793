// The docs (Redoc) show a server's description as plain text in the server list: Markdown there
// would be shown as typed, e.g. literal backticks.
import { expect, test } from 'vitest';
import { type Json, loadBundle } from './support/bundles.js';

test.each(['event-streams', 'auth', 'management'] as const)('%s: server descriptions are plain text', (name) => {
  for (const server of loadBundle(name).servers as Json[]) {
    expect(server.description, server.url).not.toMatch(/[`*_[\]<>]/);
  }
});
