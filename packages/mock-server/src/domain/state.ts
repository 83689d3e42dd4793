// The domain state: what the platform's own operations read and change (topics and their messages,
// API clients, keys and tokens, injected faults, the rate limit) with the limits and the clock they
// go by. Nothing here is shared between two emulators in one process.
import type { MessageStore } from '../store/message-store.js';
import type { Credentials } from './credentials.js';
import type { Faults } from './faults.js';
import type { Limits } from './limits.js';
import type { RateLimiter } from './rate-limit.js';
import type { Topics } from './topics.js';

export interface DomainState {
  /** The emulator's time, in ms since the epoch (domain/clock.ts moves and freezes it). */
  clock: () => number;
  limits: Limits;
  /** The topics' messages. */
  messages: MessageStore;
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
