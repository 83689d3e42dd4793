import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    // Finds a container engine (podman's Docker-compatible socket, started for the run, or Docker's) and
    // builds the image when it is missing; tests are skipped, saying why, where there is no engine.
    globalSetup: ['test/support/engine.ts'],
    // Containers start in about a second; a loaded machine (or the first image build) takes longer.
    testTimeout: 600_000,
    hookTimeout: 600_000,
  },
});
