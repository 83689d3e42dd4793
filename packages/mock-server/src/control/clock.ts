// GET, PUT and DELETE /_emulator/clock: the emulator's time, set, advanced or frozen over HTTP.

import { instantOf } from '@platform-api/spec/conventions';
import type { Clock } from '../domain/clock.js';
import { jsonReply, type Reply } from '../http/replies.js';
import { type EmulatorEndpoints, endpoint, NO_BODY } from '../pipeline/endpoint.js';
import { NO_CONTENT } from './replies.js';

const reading = (clock: Clock): Reply =>
  jsonReply(200, { now: new Date(clock.now()).toISOString(), frozen: clock.frozen });

export function clockEndpoints(): Pick<EmulatorEndpoints, 'get_clock' | 'set_clock' | 'reset_clock'> {
  return {
    get_clock: endpoint('get_clock', {
      // With a shared store, the clock another emulator just moved.
      catchUp: 'always',
      body: NO_BODY,
      handle: ({ tenant }) => reading(tenant.clock),
    }),
    set_clock: endpoint('set_clock', {
      catchUp: 'always',
      body: { kind: 'json' },
      async handle({ tenant, body }) {
        await tenant.clock.change({
          // The schema's date-time format has checked it.
          now: body.now === undefined ? undefined : instantOf(body.now),
          advanceMs: body.advance_seconds === undefined ? 0 : Math.round(body.advance_seconds * 1000),
          frozen: body.frozen,
        });
        return reading(tenant.clock);
      },
    }),
    reset_clock: endpoint('reset_clock', {
      body: NO_BODY,
      async handle({ tenant }) {
        await tenant.clock.reset();
        return NO_CONTENT;
      },
    }),
  };
}
