// The request journal over HTTP: GET and DELETE /_emulator/requests, GET /_emulator/requests/{id},
// POST /_emulator/requests/verify, and GET /_emulator/requests/stream (Server-Sent Events).
import { NotFound } from '../errors.js';
import { jsonReply } from '../http/replies.js';
import { type EmulatorEndpoints, endpoint, NO_BODY, NO_REPLY } from '../pipeline/endpoint.js';
import { openEventStream } from './event-stream.js';
import { NO_CONTENT } from './replies.js';
import { verify } from './verify.js';

type Endpoints = Pick<
  EmulatorEndpoints,
  'list_requests' | 'get_request' | 'clear_requests' | 'verify_requests' | 'stream_requests'
>;

export function requestEndpoints(): Endpoints {
  return {
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
