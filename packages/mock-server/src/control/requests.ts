// The request journal over HTTP: GET and DELETE /_emulator/requests, GET /_emulator/requests/{id},
// POST /_emulator/requests/verify, GET /_emulator/requests/stream (Server-Sent Events), and the
// coverage report counted from it, GET and DELETE /_emulator/coverage.
import { NotFound } from '../errors.js';
import { jsonReply } from '../http/replies.js';
import { type EmulatorEndpoints, endpoint, NO_BODY, NO_REPLY } from '../pipeline/endpoint.js';
import type { Operation } from '../spec/bundles.js';
import { openEventStream } from './event-stream.js';
import { NO_CONTENT } from './replies.js';
import { verify } from './verify.js';

type Endpoints = Pick<
  EmulatorEndpoints,
  | 'list_requests'
  | 'get_request'
  | 'clear_requests'
  | 'verify_requests'
  | 'stream_requests'
  | 'get_coverage'
  | 'clear_coverage'
>;

/** `operations`: those of the platform APIs the emulator serves, which the coverage report covers. */
export function requestEndpoints(operations: readonly Operation[]): Endpoints {
  return {
    get_coverage: endpoint('get_coverage', {
      body: NO_BODY,
      handle: ({ tenant }) => jsonReply(200, tenant.journal.coverage.report(operations)),
    }),
    clear_coverage: endpoint('clear_coverage', {
      body: NO_BODY,
      handle({ tenant }) {
        tenant.journal.coverage.clear();
        return NO_CONTENT;
      },
    }),
    list_requests: endpoint('list_requests', {
      body: NO_BODY,
      handle({ tenant, params }) {
        const { limit, ...filter } = params;
        return jsonReply(200, tenant.journal.list(filter, limit ?? 100));
      },
    }),
    get_request: endpoint('get_request', {
      body: NO_BODY,
      handle({ tenant, params }) {
        const entry = tenant.journal.get(params.id);
        if (!entry) throw new NotFound(`No journal entry ${params.id}`);
        return jsonReply(200, entry);
      },
    }),
    clear_requests: endpoint('clear_requests', {
      body: NO_BODY,
      handle({ tenant }) {
        tenant.journal.clear();
        return NO_CONTENT;
      },
    }),
    verify_requests: endpoint('verify_requests', {
      body: { kind: 'json' },
      async handle(request) {
        const gone = new AbortController();
        request.onClientGone(() => gone.abort());
        const outcome = await verify(request.tenant.journal, request.body, gone.signal);
        return outcome.holds ? jsonReply(200, outcome.result) : jsonReply(409, outcome.failure);
      },
    }),
    stream_requests: endpoint('stream_requests', {
      body: NO_BODY,
      handle({ tenant, exchange }) {
        const { req, res } = exchange;
        const gone = openEventStream(req, res);
        const unsubscribe = tenant.journal.subscribe((entry) => {
          res.write(`event: request\nid: ${entry.id}\ndata: ${JSON.stringify(entry)}\n\n`);
        });
        gone.addEventListener('abort', unsubscribe, { once: true });
        return NO_REPLY;
      },
    }),
  };
}
