// The black-box tour of issue 15's "Done when" (test/support/engine/tour.ts): against a fresh
// `platform-api-mock` (the CLI, spawned as its own process on a free port of 127.0.0.1, its URL and
// credentials read from its banner, and stopped after the tour), in memory, with a data dir and on
// Redis, over HTTP only, every resource family the engine can create, in the default tenant.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { MockServer } from '../../src/index.js';
import { type CliProcess, spawnEmulator, stopSpawned } from '../support/cli-process.js';
import { type Emulator, families, tourFamily, tourTenant } from '../support/engine/tour.js';
import { token } from '../support/helpers.js';
import { STORAGES } from '../support/storages.js';

for (const storage of STORAGES) {
  const skipped = storage.missing === undefined ? '' : ` (skipped: ${storage.missing})`;
  describe.skipIf(storage.missing !== undefined)(
    `a black-box tour of every resource family over HTTP, ${storage.name}${skipped}`,
    () => {
      let cli: CliProcess;
      let emulator: Emulator;

      beforeAll(async () => {
        ({ cli, emulator } = await spawnEmulator(await storage.args()));
      });

      afterAll(() => stopSpawned(cli));

      it('runs against a spawned platform-api-mock on 127.0.0.1', () => {
        expect(emulator.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
        expect(cli.child.exitCode).toBeNull();
      });

      it('covers every family the engine can create', () => {
        expect(families.length).toBeGreaterThanOrEqual(20);
      });

      for (const family of families) {
        it(`${family.name}: create, get, list and pages, update, actions, delete, 404 after, children gone`, async () => {
          await tourFamily(tourTenant(emulator, await token(emulator as MockServer)), family);
        });
      }
    },
  );
}
