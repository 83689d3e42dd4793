// GET, POST and DELETE /_emulator/faults: the fault injection of `server.faults` over HTTP.
import type { components } from '@platform-api/spec/types/emulator';
import { jsonReply } from '../http/replies.js';
import { type EmulatorEndpoints, endpoint, NO_BODY } from '../pipeline/endpoint.js';
import { asInvalidRequest, NO_CONTENT } from './replies.js';

export function faultEndpoints(): Pick<EmulatorEndpoints, 'list_faults' | 'add_fault' | 'clear_faults'> {
  return {
    list_faults: endpoint('list_faults', {
      body: NO_BODY,
      handle({ tenant }) {
        const { operations, batches } = tenant.domain.faults.pending();
        const list: components['schemas']['FaultList'] = {
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
    }),
    add_fault: endpoint('add_fault', {
      body: { kind: 'json' },
      handle({ tenant, body }) {
        const { faults } = tenant.domain;
        // A fault the operation cannot answer (a status it does not declare, an unknown operation) is the caller's to fix.
        asInvalidRequest(TypeError, () => {
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
        });
        return NO_CONTENT;
      },
    }),
    clear_faults: endpoint('clear_faults', {
      body: NO_BODY,
      handle({ tenant }) {
        tenant.domain.faults.clear();
        return NO_CONTENT;
      },
    }),
  };
}
