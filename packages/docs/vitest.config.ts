import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    // A guard against a hang: chromium's start-up and Redoc's first render take seconds here, and CI at
    // c53d877 (every suite at once) ran browser steps 13 to 37 times slower than an idle machine.
    testTimeout: 600_000,
    hookTimeout: 600_000,
  },
});
