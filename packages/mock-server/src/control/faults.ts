// GET, POST and DELETE /_emulator/faults: the fault injection of `server.faults` over HTTP.
import type { Faults } from '../domain/faults.js';
import { InvalidRequest } from '../errors.js';
import { jsonReply } from '../http/replies.js';
import type { ControlHandler, EmulatorSchemas } from './control-plane.js';
import { NO_CONTENT } from './replies.js';

type FaultRequest = EmulatorSchemas['FaultRequest'];

export function faultEndpoints(faults: Faults): Record<'list_faults' | 'add_fault' | 'clear_faults', ControlHandler> {
  return {
    list_faults() {
      const { operations, batches } = faults.pending();
      const list: EmulatorSchemas['FaultList'] = {
        faults: operations.map(({ operationId, fault, times }) => ({
          operation: operationId,
          status: fault.status,
          ...(fault.code !== undefined && { code: fault.code }),
          ...(fault.retryAfter !== undefined && { retry_after: fault.retryAfter }),
          times,
        })),
        batch_faults: batches.map(({ fault, times }) => ({
          batch_fail_positions: [...fault.positions],
          omit: fault.omit,
          times,
        })),
      };
      return jsonReply(200, list);
    },
    async add_fault(request) {
      const body = await request.json<FaultRequest>();
      // A fault the operation cannot answer (a status it does not declare, an unknown operation) is the caller's to fix.
      try {
        if (body.batch_fail_positions !== undefined) {
          faults.failBatchPositions(body.batch_fail_positions, { times: body.times, omit: body.omit === true });
        } else if (body.operation !== undefined && body.status !== undefined) {
          const fault = { status: body.status, code: body.code, retryAfter: body.retry_after, times: body.times };
          faults.failNext(body.operation, fault);
        } else {
          throw new TypeError(
            'Send {"operation", "status"[, "code", "retry_after", "times"]} or {"batch_fail_positions"[, "omit", "times"]}',
          );
        }
      } catch (error) {
        if (error instanceof TypeError) throw new InvalidRequest('INVALID_REQUEST', error.message);
        throw error;
      }
      return NO_CONTENT;
    },
    clear_faults() {
      faults.clear();
      return NO_CONTENT;
    },
  };
}
