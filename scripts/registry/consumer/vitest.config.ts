// The vitest config of a team's project that installed the packages (scripts/test/registry.test.ts
// copies this folder into it): the test kit's global setup, one file at a time.
import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: { include: ['*.suite.ts'], globalSetup: ['./global-setup.ts'], fileParallelism: false },
});
