// GET and PUT /_emulator/state: `server.state`, the state document, over HTTP. GET answers JSON, or
// YAML when asked (`?format=yaml` or an Accept naming yaml); PUT takes either.

import { parseState, StateError, stringifyState } from '../engine/state-document.js';
import { jsonReply } from '../http/replies.js';
import { type EmulatorEndpoints, endpoint, NO_BODY } from '../pipeline/endpoint.js';
import { asInvalidRequest, NO_CONTENT } from './replies.js';

/** Seeds are small documents; a workspace of a few thousand items fits. */
const STATE_BODY_LIMIT = 16 * 1024 * 1024;

export function stateDocumentEndpoints(): Pick<EmulatorEndpoints, 'export_state' | 'replace_state' | 'reset'> {
  return {
    export_state: endpoint('export_state', {
      body: NO_BODY,
      async handle({ tenant, params, headers }) {
        const yaml = params.format === 'yaml' || (params.format === undefined && /yaml/.test(headers.accept ?? ''));
        const document = await tenant.stateDocument.export();
        if (!yaml) return jsonReply(200, document);
        const bytes = Buffer.from(await stringifyState(document, 'yaml'));
        return { status: 200, json: '', file: { contentType: 'application/yaml', bytes } };
      },
    }),
    replace_state: endpoint('replace_state', {
      // JSON or YAML, which one parser reads.
      body: { kind: 'text', limit: STATE_BODY_LIMIT },
      async handle({ tenant, body }) {
        await asInvalidRequest(StateError, async () => tenant.stateDocument.load(await parseState(body)));
        return NO_CONTENT;
      },
    }),
    reset: endpoint('reset', {
      body: NO_BODY,
      async handle({ tenant }) {
        await tenant.stateDocument.reset();
        return NO_CONTENT;
      },
    }),
  };
}
