import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vitest/config';

const source = (path: string) => fileURLToPath(new URL(`./src/${path}`, import.meta.url));

export default defineConfig({
  // The examples import the package by name; run them against the sources.
  resolve: {
    alias: [
      { find: /^@platform-api\/client$/, replacement: source('index.ts') },
      { find: /^@platform-api\/client\/node$/, replacement: source('node.ts') },
      { find: /^@platform-api\/client\/typegen$/, replacement: source('typegen.ts') },
    ],
  },
  test: {
    include: ['test/**/*.test.ts'],
    // A worker runs its files in one module graph instead of importing the client again for each: no
    // test mocks a module, and the spies on console and stubbed variables are restored after each test.
    isolate: false,
    // Type tests: every `@ts-expect-error` in test/*.test-d.ts must meet a compile error.
    typecheck: { enabled: true, include: ['test/**/*.test-d.ts'], tsconfig: './tsconfig.json' },
    // A guard against a hang, not a speed check: tests must pass while another process holds a core
    // (CI at c53d877, every suite at once, ran some steps 13 to 37 times slower than an idle machine).
    testTimeout: 600_000,
    hookTimeout: 600_000,
  },
});
