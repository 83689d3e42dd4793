// Connections' OAuth authorization over the emulator API: the OAuth URL that get_connection_oauth_url
// and create_runtime_user_connection give (GET /_emulator/oauth/authorize), whose opening completes the
// authorization as an end user's consent would, and set_connection_authorization, which ends one either
// way for a test. Both change the connection in the resource engine's store (memory, data dir or Redis),
// so every management answer, on every emulator sharing that store, shows it.

import type { Clock } from '../domain/clock.js';
import {
  type AuthorizationOutcome,
  redirectAfterAuthorization,
  withAuthorization,
} from '../engine/custom/connections.js';
import type { ResourceEngine } from '../engine/engine.js';
import { NotFound } from '../errors.js';
import { jsonReply, type Reply } from '../http/replies.js';
import { IsoTimeFormatter } from '../spec/date-time.js';
import type { JsonObject, StoredItem } from '../store/resource-store.js';
import type { ControlHandler } from './control-plane.js';

type Handlers = Record<'authorize_connection' | 'set_connection_authorization', ControlHandler>;

const CONNECTION = 'connection';

export function connectionEndpoints(engine: ResourceEngine, clock: Clock): Handlers {
  const times = new IsoTimeFormatter();
  const connectionNamed = async (id: unknown): Promise<StoredItem> => {
    const item = await engine.store.get(CONNECTION, String(id));
    if (!item) throw new NotFound(`Connection ${String(id)} was not found`);
    return item;
  };
  const end = async (item: StoredItem, outcome: AuthorizationOutcome): Promise<JsonObject> => {
    const value = withAuthorization(item.value, outcome, times.format(clock.now()));
    const problems = engine.itemProblems(CONNECTION, value);
    if (problems) throw new Error(`An authorized connection ${item.id} would not match its schema: ${problems}`);
    await engine.store.put(CONNECTION, { ...item, value });
    return value;
  };
  return {
    async authorize_connection({ req, params }) {
      const item = await connectionNamed(params.connection_id);
      // HEAD, RFC 9110's safe method, answers the same headers and changes nothing.
      const connection = req.method === 'HEAD' ? item.value : await end(item, { outcome: 'success' });
      const target = redirectAfterAuthorization(connection, params.state as string | undefined);
      return target === undefined ? authorizedPage(connection) : redirectTo(target);
    },
    async set_connection_authorization(request) {
      const item = await connectionNamed(request.params.connection_id);
      const connection = await end(item, await request.json<AuthorizationOutcome>());
      const { id, authorization_status, authorized_at, authorization_error } = connection;
      return jsonReply(200, { id, authorization_status, authorized_at, authorization_error });
    },
  };
}

function redirectTo(target: string): Reply {
  const body = `<!doctype html><html lang="en"><meta charset="utf-8"><title>Connection authorized</title><p>Authorized. Continue to <a href="${escapeHtml(target)}">${escapeHtml(target)}</a>.</p></html>\n`;
  return { ...html(302, body), headers: { location: target, 'cache-control': 'no-store' } };
}

function authorizedPage(connection: JsonObject): Reply {
  const name = typeof connection.name === 'string' ? `${escapeHtml(connection.name)} ` : '';
  const body = `<!doctype html><html lang="en"><meta charset="utf-8"><title>Connection authorized</title><h1>Connection authorized</h1><p>The connection ${name}(${String(connection.id)}) is authorized: you can close this page.</p></html>\n`;
  return { ...html(200, body), headers: { 'cache-control': 'no-store' } };
}

const html = (status: number, body: string): Reply => ({
  status,
  json: '',
  file: { contentType: 'text/html; charset=utf-8', bytes: Buffer.from(body, 'utf8') },
});

const escapeHtml = (text: string) => text.replace(/[&<>"']/g, (char) => `&#${char.charCodeAt(0)};`);
