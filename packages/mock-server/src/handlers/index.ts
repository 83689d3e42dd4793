// Every hand-written handler of one emulator, keyed by operationId. Its type requires exactly one per
// stateful operation (see handler.ts).
import type { EmulatorState } from '../domain/state.js';
import { eventStreamHandlers } from './event-streams.js';
import type { Handlers } from './handler.js';
import { tokenHandlers } from './token.js';

export function createHandlers(state: EmulatorState): Handlers {
  return {
    ...eventStreamHandlers(state),
    ...tokenHandlers(state),
  };
}
