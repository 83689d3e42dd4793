import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vitest/config';

export default defineConfig({
  // The examples import the package by name; run them against the sources.
  resolve: { alias: { '@platform-api/client': fileURLToPath(new URL('./src/index.ts', import.meta.url)) } },
  test: {
    include: ['test/**/*.test.ts'],
    // Type tests: every `@ts-expect-error` in test/*.test-d.ts must meet a compile error.
    typecheck: { enabled: true, include: ['test/**/*.test-d.ts'], tsconfig: './tsconfig.json' },
    testTimeout: 10_000,
  },
});
