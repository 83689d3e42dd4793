// Hand-written handlers for the connection operations real clients call besides create, list and
// update: runtime user connections (an end user's own child of an OAuth connection, authorized through
// an OAuth URL), a connection's OAuth URL, and pick lists (the choices a connector's forms offer); and
// what the end of an authorization changes, which the emulator API's OAuth URL and its
// set_connection_authorization apply (control/connections.ts).

import type { JsonObject } from '../../store/resource-store.js';
import type { HandlerRegistry, Workspace } from '../contract.js';
import { invalidFields, notFound } from '../errors.js';
import { isObject } from '../schema.js';
import { hostOf } from './sdkfiles.js';

/**
 * Where an end user authorizes the connection: the emulator API's authorize_connection, which completes
 * the authorization when opened (no user signs in here), in the tenant that answered it and only there
 * (tenants/url-scope.ts). The same URL each time for a connection.
 */
function oauthUrl({ urls }: Workspace, host: string | undefined, connectionId: string): string {
  const key = urls.oauthKey(connectionId);
  return `http://${hostOf(host)}/_emulator/oauth/authorize?connection_id=${connectionId}&${urls.query}&key=${key}`;
}

/** How a connection's authorization ends. */
export interface AuthorizationOutcome {
  outcome: 'success' | 'failure';
  /** With a failure, its reason. */
  error?: string;
}

const DENIED = 'Authorization was denied';

/**
 * The connection once its authorization ended so, at `now`: authorized (`success`, `authorized_at`
 * now, no error and no longer lost), or failed (`failed` with the reason; `authorized_at` still the
 * last success). Connection's `x-states` has the meaning of each status.
 */
export function withAuthorization(connection: JsonObject, { outcome, error }: AuthorizationOutcome, now: string) {
  const ended: JsonObject =
    outcome === 'success'
      ? {
          authorization_status: 'success',
          authorized_at: now,
          authorization_error: null,
          connection_lost_at: null,
          connection_lost_reason: null,
        }
      : { authorization_status: 'failed', authorization_error: error ?? DENIED };
  return { ...connection, ...ended, updated_at: now };
}

/**
 * Where the end user's browser goes once the connection is authorized: its `redirect_url`, else its
 * `callback_url` (a runtime user connection's, kept hidden), with the caller's `state` added to the
 * query as OAuth 2.0 carries it; undefined when it has neither.
 */
export function redirectAfterAuthorization(connection: JsonObject, state: string | undefined): string | undefined {
  const target = connection.$redirect_url ?? connection.$callback_url;
  if (typeof target !== 'string') return undefined;
  if (state === undefined) return target;
  // Added as text, so the URL's own query and fragment stay as they were written.
  const hash = target.indexOf('#');
  const [base, fragment] = hash < 0 ? [target, ''] : [target.slice(0, hash), target.slice(hash)];
  const separator = !base.includes('?') ? '?' : /[?&]$/.test(base) ? '' : '&';
  return `${base}${separator}state=${encodeURIComponent(state)}${fragment}`;
}

/** A seeded pick list entry (`[label, value]`, or the four-element form) as the platform answers it. */
function pickListEntry(entry: unknown): unknown[] {
  const [label, value, , hasChildren] = Array.isArray(entry) ? entry : [entry, entry];
  return [String(label), value ?? null, null, hasChildren === true];
}

export const connectionsHandlers = {
  /**
   * `create_runtime_user_connection`: a disconnected child of the parent connection (404 when there is
   * none), with its connector, answered with its id and OAuth URL.
   */
  'connections.create_runtime_user': async (workspace, op, { body, host }) => {
    const { parent_id, folder_id, external_id, name, callback_url, redirect_url } = body;
    const parent = await workspace.store.get(op.type.name, String(parent_id));
    if (!parent) throw notFound('Parent connection', parent_id);
    const connector = parent.value.application ?? parent.value.provider;
    const created = await workspace.create(
      op,
      {
        name: name ?? `${parent.value.name} (${external_id})`,
        ...(typeof connector === 'string' ? { application: connector, provider: connector } : {}),
        parent_id: Number(parent_id),
        folder_id: Number(folder_id),
        external_id: external_id as string,
        $runtime_user: true,
        $callback_url: callback_url ?? null,
        $redirect_url: redirect_url ?? null,
      },
      undefined,
    );
    return { body: { data: { id: created.id, url: oauthUrl(workspace, host, String(created.id)) } } };
  },

  /** `get_connection_oauth_url`: the same URL for a connection each time; 404 for an unknown connection. */
  'connections.oauth_url': async (workspace, op, { params, host }) => {
    const connection = await workspace.itemOf(op, params);
    return { body: { data: { url: oauthUrl(workspace, host, connection.id) } } };
  },

  /**
   * `get_connection_picklist`: the pick list seeded on the connection's connector (its hidden
   * `$pick_lists`, by name); a name it does not have is a 400.
   */
  'connections.pick_list': async (workspace, op, { params, body }) => {
    const connection = await workspace.itemOf(op, params);
    const name = String(body.pick_list_name);
    const application = String(connection.value.application ?? connection.value.provider);
    const lists = (await workspace.store.get('connector', application))?.value.$pick_lists;
    const entries = isObject(lists) ? lists[name] : undefined;
    if (!Array.isArray(entries))
      throw invalidFields({ pick_list_name: `'${name}' is not a pick list of ${application}` });
    return { body: { data: entries.map(pickListEntry) } };
  },
} satisfies Partial<HandlerRegistry>;
