// API clients (v2) and their API keys, served by the engine from the domain's credentials (which the
// token endpoint and every bearer token check read): create, list, get, update, delete, enable, disable
// and refresh_secret. A key's secret (`auth_token`) is shown by create and refresh_secret only; the
// domain keeps its digest. Refreshing, disabling and deleting a key revoke its tokens at once.
//
// Their part of the state document (api_clients, api_keys) is here too. The bootstrap key's client is
// kept through every load and reset and is not in the document; access tokens are not state (a load
// revokes those of the keys it replaces).
//
//   api_clients: [ { id, name, auth_type, ... } ]
//   api_keys: [ { id, api_client_id, name, client_id, secret (or secret_sha256), scopes, ... } ]
//
// Every field the spec's ApiClient and ApiKey give a default to may be left out, ids too (they count
// on from the highest given).
import { randomBytes } from 'node:crypto';
import type { Credentials } from '../../domain/credentials.js';
import {
  ALL_SCOPES,
  type ApiClient,
  type ApiKey,
  type DocumentKey,
  MASKED_SECRET,
  UNMODELLED_CLIENT_FIELDS,
} from '../../domain/model.js';
import type { SchemaChecks } from '../../spec/checks.js';
import type { JsonObject } from '../../store/resource-store.js';
import { type Family, typed, type Workspace } from '../contract.js';
import { missingReference } from '../errors.js';
import { listPage } from '../listing.js';
import { assignIds, listOf, type RecordCheck, StateError, type StateSection, schemaCheck } from '../sections.js';

/**
 * An API client as the platform answers it: its keys (masked) and their counts, the API collections
 * of its `api_collection_ids` that exist, and the fields the emulator does not model.
 */
async function clientAnswer({ domain: { credentials }, store }: Workspace, client: ApiClient) {
  const { api_collection_ids: collectionIds = [], ...fields } = client;
  const keys = credentials.listKeys(client.id);
  const api_collections: JsonObject[] = [];
  for (const id of collectionIds) {
    const collection = await store.get('api_collection', String(id));
    if (collection) api_collections.push({ id: Number(collection.id), name: collection.value.name });
  }
  return {
    ...UNMODELLED_CLIENT_FIELDS,
    ...fields,
    mtls_enabled: fields.mtls_enabled ?? false,
    active_api_keys_count: keys.filter((key) => key.active).length,
    total_api_keys_count: keys.length,
    api_collections,
    api_keys: keys.map((key) => keyAnswer(credentials, key)),
  };
}

/** A key as answered: its client's auth_type, and its secret masked but where create and refresh_secret show it. */
const keyAnswer = (credentials: Credentials, key: ApiKey, authToken = MASKED_SECRET) => ({
  ip_deny_list: [],
  ...key,
  auth_type: credentials.requireClient(key.api_client_id).auth_type,
  auth_token: authToken,
});

interface KeyPath {
  api_client_id: number;
  api_key_id: number;
}

/** The key of the path's client (404 for either). */
const keyOf = (credentials: Credentials, params: KeyPath) =>
  credentials.requireKey(params.api_client_id, params.api_key_id);

export const apiClientsFamily = {
  types: ['api_client', 'api_key'],
  scope: 'api_clients:manage',
  handlers: {
    'api_clients.list': typed<'list_api_clients'>(async (workspace, op, { params }) => {
      const matching = clientsMatching(workspace.domain.credentials.listClients(), params);
      const clients = await Promise.all(matching.map((client) => clientAnswer(workspace, client)));
      return listPage(op.operation, params, clients);
    }),
    'api_clients.create': typed<'create_api_client'>(async (workspace, op, { body }) => {
      // The collections must exist (422), as any reference to another resource.
      for (const id of body.api_collection_ids ?? []) {
        if (!(await workspace.store.get('api_collection', String(id))))
          throw missingReference(op.operation, 'api_collection_ids', 'api_collection', id);
      }
      return { item: await clientAnswer(workspace, await workspace.domain.credentials.createClient(body)) };
    }),
    'api_clients.get': typed<'get_api_client'>(async (workspace, _op, { params }) => ({
      item: await clientAnswer(workspace, workspace.domain.credentials.requireClient(params.api_client_id)),
    })),
    'api_clients.update': typed<'update_api_client'>(async (workspace, _op, { params, body }) => {
      const { credentials } = workspace.domain;
      const client = credentials.requireClient(params.api_client_id);
      return { item: await clientAnswer(workspace, credentials.updateClient(client, body)) };
    }),
    'api_clients.delete': typed<'delete_api_client'>(async ({ domain: { credentials } }, _op, { params }) => {
      credentials.deleteClient(credentials.requireClient(params.api_client_id));
      return {};
    }),
    'api_keys.list': typed<'list_api_keys'>(async ({ domain: { credentials } }, op, { params }) => {
      const keys = credentials.listKeys(credentials.requireClient(params.api_client_id).id);
      return listPage(
        op.operation,
        params,
        keys.map((key) => keyAnswer(credentials, key)),
      );
    }),
    'api_keys.create': typed<'create_api_key'>(async ({ domain: { credentials } }, _op, { params, body }) => {
      const { key, secret } = await credentials.createKey(credentials.requireClient(params.api_client_id), body);
      return { item: keyAnswer(credentials, key, secret) };
    }),
    'api_keys.update': typed<'update_api_key'>(async ({ domain: { credentials } }, _op, { params, body }) => ({
      item: keyAnswer(credentials, credentials.updateKey(keyOf(credentials, params), body)),
    })),
    'api_keys.delete': typed<'delete_api_key'>(async ({ domain: { credentials } }, _op, { params }) => {
      credentials.deleteKey(keyOf(credentials, params));
      return {};
    }),
    'api_keys.enable': typed<'enable_api_key'>(async ({ domain: { credentials } }, _op, { params }) => {
      credentials.setActive(keyOf(credentials, params), true);
      return {};
    }),
    'api_keys.disable': typed<'disable_api_key'>(async ({ domain: { credentials } }, _op, { params }) => {
      credentials.setActive(keyOf(credentials, params), false);
      return {};
    }),
    'api_keys.refresh_secret': typed<'refresh_api_key_secret'>(async ({ domain: { credentials } }, _op, { params }) => {
      const key = keyOf(credentials, params);
      return { item: keyAnswer(credentials, key, credentials.refreshSecret(key)) };
    }),
  },
  // The client (and key) the path names exist before the body is read: a 404 comes before a 400 for the body.
  prechecks: {
    'api_clients.update': ({ domain }, _op, params) =>
      void domain.credentials.requireClient(Number(params.api_client_id)),
    'api_keys.create': ({ domain }, _op, params) => void domain.credentials.requireClient(Number(params.api_client_id)),
    'api_keys.update': ({ domain }, _op, params) =>
      void domain.credentials.requireKey(Number(params.api_client_id), Number(params.api_key_id)),
  },
  section: ({ credentials }, { checks }) => credentialSection(credentials, checks),
} satisfies Family;

/** The list's filters: a project, and certificate bundles (a client matches when it checks against one of them). */
function clientsMatching(clients: ApiClient[], filters: { project_id?: number; cert_bundle_ids?: number[] }) {
  const { project_id, cert_bundle_ids } = filters;
  return clients.filter(
    (client) =>
      (project_id === undefined || client.project_id === project_id) &&
      (cert_bundle_ids === undefined || cert_bundle_ids.some((id) => client.cert_bundle_ids?.includes(id))),
  );
}

function credentialSection(credentials: Credentials, checks: SchemaChecks): StateSection {
  const checkClient: RecordCheck<ApiClient> = schemaCheck(checks, 'ApiClient');
  const checkKey: RecordCheck<ApiKey> = schemaCheck(checks, 'ApiKey');
  return {
    keys: ['api_clients', 'api_keys'],
    export() {
      const { clients, keys } = credentials.exportForDocument();
      return {
        ...(clients.length > 0 ? { api_clients: clients } : {}),
        ...(keys.length > 0 ? { api_keys: keys } : {}),
      };
    },
    prepare(part) {
      const reserved = credentials.reserved();
      const { now } = reserved;
      const clientEntries = listOf(part, 'api_clients');
      const clientIds = assignIds('api_clients', clientEntries, reserved.clientIds);
      const clients = clientEntries.map((entry, index) => {
        const client = {
          description: null,
          project_id: null,
          auth_type: 'oauth2',
          email: null,
          mtls_enabled: false,
          api_collection_ids: [],
          validation_formula: null,
          cert_bundle_ids: null,
          created_at: now,
          updated_at: now,
          ...entry,
          id: clientIds[index],
        };
        // Checked as answered: with the fields the emulator does not model, and no keys or collections yet.
        const { api_collection_ids: _collections, ...answered } = client;
        checkClient(`api_clients[${index}]`, client, {
          ...UNMODELLED_CLIENT_FIELDS,
          ...answered,
          active_api_keys_count: 0,
          total_api_keys_count: 0,
          api_collections: [],
          api_keys: [],
        });
        return client;
      });
      const authTypes = new Map(clients.map((client) => [client.id, client.auth_type]));
      const keyEntries = listOf(part, 'api_keys');
      const keyIds = assignIds('api_keys', keyEntries, reserved.keyIds);
      const clientIdsTaken = new Set(reserved.keyClientIds);
      const keys = keyEntries.map((entry, index) => {
        const where = `api_keys[${index}]`;
        const { secret, secret_sha256, ...fields } = entry;
        const key = {
          active: true,
          active_since: now,
          ip_allow_list: [],
          ip_deny_list: [],
          scopes: [...ALL_SCOPES],
          topic_ids: null,
          client_id: randomBytes(10).toString('hex'),
          created_at: now,
          updated_at: now,
          ...fields,
          id: keyIds[index],
        };
        const authType = typeof fields.api_client_id === 'number' ? authTypes.get(fields.api_client_id) : undefined;
        // Checked as answered: with its client's auth_type and the masked secret.
        checkKey(where, key, { ...key, auth_type: authType ?? 'oauth2', auth_token: MASKED_SECRET });
        if (authType === undefined) throw new StateError(`${where}: api_client_id names no API client of the document`);
        const withSecret = keyWithSecret(where, key, secret, secret_sha256);
        if (clientIdsTaken.has(key.client_id)) throw new StateError(`${where}: client_id ${key.client_id} is taken`);
        clientIdsTaken.add(key.client_id);
        return withSecret;
      });
      return () => credentials.replaceFromDocument(clients, keys);
    },
  };
}

/** A secret as text (a hand-written seed; a new one when neither is given) or as its digest (an export): a document need not authenticate. */
function keyWithSecret(where: string, key: ApiKey, secret: unknown, secretSha256: unknown): DocumentKey {
  if (secret !== undefined && secretSha256 !== undefined) {
    throw new StateError(`${where}: give secret or secret_sha256, not both`);
  }
  if (secretSha256 !== undefined) {
    if (typeof secretSha256 !== 'string' || !/^[\w-]{43}$/.test(secretSha256))
      throw new StateError(`${where}: secret_sha256 must be a SHA-256 digest in base64url`);
    return { ...key, secret_sha256: secretSha256 };
  }
  const given = secret ?? randomBytes(24).toString('base64url');
  if (typeof given !== 'string' || given === '') throw new StateError(`${where}: secret must be a string`);
  return { ...key, secret: given };
}
