import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    // A guard against a hang, not a speed goal. The suites run Redocly, Optic and Prism over the whole
    // management spec: about 3 s each alone, over 30 s beside the other packages' suites on two busy
    // cores (npm test at 62e0991 failed two lint tests on a 30 s guard).
    testTimeout: 600_000,
  },
});
