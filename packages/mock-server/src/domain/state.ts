// What one emulator holds: its limits, clock, store and domain state. Nothing here is shared between
// two emulators in one process.
import type { MessageStore } from '../store/message-store.js';
import type { Credentials } from './credentials.js';
import type { Faults } from './faults.js';
import type { Limits } from './limits.js';
import type { RateLimiter } from './rate-limit.js';
import type { Topics } from './topics.js';

export interface EmulatorState {
  clock: () => number;
  limits: Limits;
  store: MessageStore;
  topics: Topics;
  credentials: Credentials;
  faults: Faults;
  rateLimiter: RateLimiter;
  /**
   * With a store shared by several emulators: settles once the changes the others announced so far
   * are applied here (see Storage.shared). Undefined otherwise: this emulator's state is all there is.
   */
  catchUp: (() => Promise<void>) | undefined;
}
