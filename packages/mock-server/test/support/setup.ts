// Each test file's clean-up, registered for every file (vitest's setupFiles run before each one). The
// files of a worker share one module graph (isolate: false), so a hook a support module registered as
// it was imported would be the first file's alone, and the servers, emulators and directories of the
// files after it were left behind.
import { afterAll, afterEach } from 'vitest';
import { killSpawned } from './cli-process.js';
import { closeStarted } from './helpers.js';
import { stopRedisServers } from './redis-server.js';
import { closeOpened } from './store/engines.js';
import { removeTempDirs } from './temp-dirs.js';

afterEach(async () => {
  killSpawned();
  await closeStarted();
  await closeOpened();
  removeTempDirs();
});

afterAll(stopRedisServers);
