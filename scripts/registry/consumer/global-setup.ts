// One emulator for the run, and its API coverage written when the run ends.
import { createGlobalSetup } from '@platform-api/mock-server/testkit';

export default createGlobalSetup({}, { coverage: { apis: ['event-streams', 'auth'], json: 'api-coverage.json' } });
