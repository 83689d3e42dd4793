// `globalTeardown: '@platform-api/mock-server/testkit/global-teardown'` (jest): stops the emulator of
// the global setup. Vitest needs none: it calls the teardown the setup returns.
import { teardown } from './index.js';

export default teardown;
