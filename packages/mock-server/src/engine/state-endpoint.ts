// GET and PUT /_emulator/state, POST /_emulator/reset: `server.state` over HTTP, for an emulator
// started from the command line. GET answers JSON, or YAML when asked (`?format=yaml` or an Accept
// naming yaml); PUT takes either.
import type { IncomingMessage, ServerResponse } from 'node:http';
import { PayloadTooLarge } from '../errors.js';
import { respond } from '../handlers/faults-endpoint.js';
import type { BodyReader } from '../http/body.js';
import { parseState, StateError, stringifyState, type WorkspaceState } from './state.js';

/** Seeds are small documents; a workspace of a few thousand items fits. */
const STATE_BODY_LIMIT = 16 * 1024 * 1024;

export const STATE_PATHS = ['/_emulator/state', '/_emulator/reset'];

export async function stateEndpoint(
  state: WorkspaceState,
  bodies: BodyReader,
  pathname: string,
  query: URLSearchParams,
  req: IncomingMessage,
  res: ServerResponse,
): Promise<void> {
  try {
    if (pathname === '/_emulator/reset') {
      if (req.method !== 'POST') return respond(res, 405, 'Use POST to empty the state', { allow: 'POST' });
      await state.reset();
      return respond(res, 204);
    }
    if (req.method === 'GET') {
      const yaml = query.get('format') === 'yaml' || /yaml/.test(req.headers.accept ?? '');
      const text = await stringifyState(await state.export(), yaml ? 'yaml' : 'json');
      res.writeHead(200, { 'content-type': yaml ? 'application/yaml' : 'application/json' });
      res.end(text);
      return;
    }
    if (req.method !== 'PUT')
      return respond(res, 405, 'Use GET to export the state or PUT to replace it', { allow: 'GET, PUT' });
    await state.load(
      await parseState((await bodies.readAll(req, STATE_BODY_LIMIT, 'state document')).toString('utf8')),
    );
    respond(res, 204);
  } catch (error) {
    if (error instanceof PayloadTooLarge) return respond(res, 413, `${error.message}: ${error.detail}`);
    if (!(error instanceof StateError)) throw error;
    respond(res, 400, error.message);
  }
}
