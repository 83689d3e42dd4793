// Connections' OAuth authorization over the emulator API: the OAuth URL that get_connection_oauth_url
// and create_runtime_user_connection give (GET /_emulator/oauth/authorize), whose opening completes the
// authorization as an end user's consent would, and set_connection_authorization, which ends one either
// way for a test. Both change the connection in the resource engine's store (memory, data dir or Redis),
// so every management answer, on every emulator sharing that store, shows it.

import {
  type AuthorizationOutcome,
  redirectAfterAuthorization,
  withAuthorization,
} from '../engine/custom/connections.js';
import type { ResourceEngine } from '../engine/engine.js';
import { NotFound } from '../errors.js';
import { jsonReply, type Reply } from '../http/replies.js';
import { type EmulatorEndpoints, endpoint, NO_BODY } from '../pipeline/endpoint.js';
import { IsoTimeFormatter } from '../spec/date-time.js';
import type { JsonObject, StoredItem } from '../store/resource-store.js';
import type { Tenant } from '../tenants/tenant.js';

const CONNECTION = 'connection';

export function connectionEndpoints(): Pick<
  EmulatorEndpoints,
  'authorize_connection' | 'set_connection_authorization'
> {
  const times = new IsoTimeFormatter();
  const end = async (
    { engine, clock }: Tenant,
    item: StoredItem,
    outcome: AuthorizationOutcome,
  ): Promise<JsonObject> => {
    const value = withAuthorization(item.value, outcome, times.format(clock.now()));
    const problems = engine.itemProblems(CONNECTION, value);
    if (problems) throw new Error(`An authorized connection ${item.id} would not match its schema: ${problems}`);
    await engine.store.put(CONNECTION, { ...item, value });
    return value;
  };
  return {
    authorize_connection: endpoint('authorize_connection', {
      body: NO_BODY,
      async handle({ tenant, params, exchange }) {
        // The key first: nothing is looked up for a URL its tenant did not give (the same 404 whatever it names).
        tenant.urls.checkOAuthKey(String(params.connection_id), params.key);
        const item = await connectionNamed(tenant.engine, params.connection_id);
        // HEAD, RFC 9110's safe method, answers the same headers and changes nothing.
        const connection =
          exchange.req.method === 'HEAD' ? item.value : await end(tenant, item, { outcome: 'success' });
        const target = redirectAfterAuthorization(connection, params.state);
        return target === undefined ? authorizedPage(connection) : redirectTo(target);
      },
    }),
    set_connection_authorization: endpoint('set_connection_authorization', {
      body: { kind: 'json' },
      // The connection is known before the body is read: a 404 comes before a 400 for the body.
      precheck: ({ tenant, params }) => connectionNamed(tenant.engine, params.connection_id),
      async handle({ tenant, body }, item) {
        const connection = await end(tenant, item, body);
        const { id, authorization_status, authorized_at, authorization_error } = connection;
        return jsonReply(200, { id, authorization_status, authorized_at, authorization_error });
      },
    }),
  };
}

async function connectionNamed(engine: ResourceEngine, id: number): Promise<StoredItem> {
  const item = await engine.store.get(CONNECTION, String(id));
  if (!item) throw new NotFound(`Connection ${id} was not found`);
  return item;
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
