// The request journal over HTTP: GET and DELETE /_emulator/requests, GET /_emulator/requests/{id},
// POST /_emulator/requests/verify, GET /_emulator/requests/stream (Server-Sent Events), and the
// coverage report counted from it, GET and DELETE /_emulator/coverage.
import { NotFound } from '../errors.js';
import { jsonReply } from '../http/replies.js';
import type { Operation } from '../spec/bundles.js';
import type { ControlHandler, EmulatorSchemas } from './control-plane.js';
import { openEventStream } from './event-stream.js';
import type { Journal, JournalFilter } from './journal.js';
import { NO_CONTENT } from './replies.js';
import { verify } from './verify.js';

type Handlers = Record<
  | 'list_requests'
  | 'get_request'
  | 'clear_requests'
  | 'verify_requests'
  | 'stream_requests'
  | 'get_coverage'
  | 'clear_coverage',
  ControlHandler
>;

/** `operations`: those of the platform APIs the emulator serves, which the coverage report covers. */
export function requestEndpoints(journal: Journal, operations: readonly Operation[]): Handlers {
  return {
    get_coverage() {
      return jsonReply(200, journal.coverage.report(operations));
    },
    clear_coverage() {
      journal.coverage.clear();
      return NO_CONTENT;
    },
    list_requests({ params }) {
      const { limit, ...filter } = params as JournalFilter & { limit?: number };
      return jsonReply(200, journal.list(filter, limit ?? 100));
    },
    get_request({ params }) {
      const entry = journal.get(params.id as number);
      if (!entry) throw new NotFound(`No journal entry ${params.id}`);
      return jsonReply(200, entry);
    },
    clear_requests() {
      journal.clear();
      return NO_CONTENT;
    },
    async verify_requests(request) {
      const verification = await request.json<EmulatorSchemas['Verification']>();
      const gone = new AbortController();
      request.res.once('close', () => gone.abort());
      const outcome = await verify(journal, verification, gone.signal);
      return outcome.holds ? jsonReply(200, outcome.result) : jsonReply(409, outcome.failure);
    },
    stream_requests({ req, res }) {
      const gone = openEventStream(req, res);
      const unsubscribe = journal.subscribe((entry) => {
        res.write(`event: request\nid: ${entry.id}\ndata: ${JSON.stringify(entry)}\n\n`);
      });
      gone.addEventListener('abort', unsubscribe, { once: true });
      return undefined;
    },
  };
}
