// GET and PUT /_emulator/state: `server.state` over HTTP. GET answers JSON, or YAML when asked
// (`?format=yaml` or an Accept naming yaml); PUT takes either.

import { parseState, StateError, stringifyState, type WorkspaceState } from '../engine/state.js';
import { InvalidRequest } from '../errors.js';
import { jsonReply } from '../http/replies.js';
import type { ControlHandler } from './control-plane.js';
import { NO_CONTENT } from './replies.js';

/** Seeds are small documents; a workspace of a few thousand items fits. */
const STATE_BODY_LIMIT = 16 * 1024 * 1024;

export function stateEndpoints(state: WorkspaceState): { export_state: ControlHandler; replace_state: ControlHandler } {
  return {
    async export_state({ req, params }) {
      const yaml = params.format === 'yaml' || (params.format === undefined && /yaml/.test(req.headers.accept ?? ''));
      const document = await state.export();
      if (!yaml) return jsonReply(200, document);
      const bytes = Buffer.from(await stringifyState(document, 'yaml'));
      return { status: 200, json: '', file: { contentType: 'application/yaml', bytes } };
    },
    async replace_state(request) {
      const text = await request.text(STATE_BODY_LIMIT);
      try {
        await state.load(await parseState(text));
      } catch (error) {
        if (error instanceof StateError) throw new InvalidRequest('INVALID_REQUEST', error.message);
        throw error;
      }
      return NO_CONTENT;
    },
  };
}
