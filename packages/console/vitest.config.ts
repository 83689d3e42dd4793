import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    // A guard against a hang only. A test of 2.4 s on an idle machine took over 60 s in CI, where every
    // suite runs at once beside a process holding one core; each step has its own guard (ACTION_TIMEOUT_MS).
    testTimeout: 600_000,
    hookTimeout: 600_000,
  },
});
