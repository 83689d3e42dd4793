import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    // Chromium's start-up and each view's first render take seconds on a busy two-core machine.
    testTimeout: 60_000,
    hookTimeout: 60_000,
  },
});
