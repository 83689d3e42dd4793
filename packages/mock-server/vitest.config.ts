import { availableParallelism } from 'node:os';
import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    // A guard against a hang, not a speed check: property runs and start-ups take many times longer
    // while another process holds a core (npm run test:loaded), and must still pass.
    // CI at c53d877, every suite at once, ran browser steps 13 to 37 times slower than an idle machine.
    testTimeout: 600_000,
    hookTimeout: 600_000,
    // The files mostly wait on the emulators, data dirs and Redis servers they start, so a core is idle
    // while its worker waits: a worker per core (at least two), not vitest's default of one fewer.
    maxWorkers: Math.max(2, availableParallelism()),
    projects: [
      {
        extends: true,
        test: {
          name: 'emulator',
          include: ['test/**/*.test.ts'],
          // The clean-up after each test and each file (started emulators, spawned ones, data dirs,
          // Redis servers, temporary directories): see the file.
          setupFiles: ['test/support/setup.ts'],
          // A worker runs its files in one module graph instead of importing the emulator again for each:
          // no test mocks a module or stubs a global, each starts and closes its own emulators, and what
          // the modules keep between them (the parsed specs, src/spec/shared.ts) is frozen once shared.
          isolate: false,
        },
      },
      {
        extends: true,
        test: {
          // The test kit as a user's suite has it: one emulator for the run, from the package's global setup.
          name: 'testkit example',
          include: ['examples/**/*.test.ts'],
          globalSetup: ['@platform-api/mock-server/testkit/global-setup'],
          // The files of a run share its emulator, and each test resets it: one file at a time.
          fileParallelism: false,
        },
      },
    ],
  },
});
