// `globalSetup: ['@platform-api/mock-server/testkit/global-setup']` (vitest) or
// `globalSetup: '@platform-api/mock-server/testkit/global-setup'` (jest): one emulator per run, with
// the default options. A setup file of your own can call createGlobalSetup(options) instead.
import { createGlobalSetup } from './index.js';

export default createGlobalSetup();
