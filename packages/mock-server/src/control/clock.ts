// GET, PUT and DELETE /_emulator/clock: the emulator's time, set, advanced or frozen over HTTP.

import { instantOf } from '@platform-api/spec/conventions';
import type { Clock } from '../domain/clock.js';
import { jsonReply } from '../http/replies.js';
import type { ControlHandler, EmulatorSchemas } from './control-plane.js';
import { NO_CONTENT } from './replies.js';

export function clockEndpoints(
  clock: Clock,
  /** With a shared store: settles once the changes the other emulators announced are applied here. */
  catchUp: (() => Promise<void>) | undefined,
): { get_clock: ControlHandler; set_clock: ControlHandler; reset_clock: ControlHandler } {
  const reading = () => jsonReply(200, { now: new Date(clock.now()).toISOString(), frozen: clock.frozen });
  return {
    async get_clock() {
      await catchUp?.();
      return reading();
    },
    async set_clock(request) {
      const change = await request.json<EmulatorSchemas['ClockChange']>();
      await catchUp?.();
      await clock.change({
        // The schema's date-time format has checked it.
        now: change.now === undefined ? undefined : instantOf(change.now),
        advanceMs: change.advance_seconds === undefined ? 0 : Math.round(change.advance_seconds * 1000),
        frozen: change.frozen,
      });
      return reading();
    },
    async reset_clock() {
      await clock.reset();
      return NO_CONTENT;
    },
  };
}
