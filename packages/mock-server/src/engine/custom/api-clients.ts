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
import type { Ajv2020 } from 'ajv/dist/2020.js';
import type { Credentials } from '../../domain/credentials.js';
import {
  ALL_SCOPES,
  type ApiClient,
  type ApiKey,
  type DocumentKey,
  MASKED_SECRET,
  UNMODELLED_CLIENT_FIELDS,
} from '../../domain/model.js';
import { type Family, typed } from '../contract.js';
import { listPage } from '../listing.js';
import { assignIds, listOf, type RecordCheck, StateError, type StateSection, schemaCheck } from '../sections.js';

/** An API client as the platform answers it, with the fields the emulator does not model. */
const clientAnswer = (client: ApiClient) => ({ ...UNMODELLED_CLIENT_FIELDS, ...client });

/** A key as answered: its client's auth_type, and its secret masked but where create and refresh_secret show it. */
const keyAnswer = (credentials: Credentials, key: ApiKey, authToken = MASKED_SECRET) => ({
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

export const apiClientsFamily: Family = {
  types: ['api_client', 'api_key'],
  scope: 'api_clients:manage',
  handlers: {
    'api_clients.list': typed<'list_api_clients'>(async ({ domain }, op, { params }) => {
      const clients = clientsMatching(domain.credentials.listClients(), params).map(clientAnswer);
      return listPage(op.operation, params, clients);
    }),
    'api_clients.create': typed<'create_api_client'>(async ({ domain }, _op, { body }) => ({
      item: clientAnswer(await domain.credentials.createClient(body)),
    })),
    'api_clients.get': typed<'get_api_client'>(async ({ domain }, _op, { params }) => ({
      item: clientAnswer(domain.credentials.requireClient(params.api_client_id)),
    })),
    'api_clients.update': typed<'update_api_client'>(async ({ domain: { credentials } }, _op, { params, body }) => {
      const client = credentials.requireClient(params.api_client_id);
      return { item: clientAnswer(credentials.updateClient(client, body)) };
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
  section: ({ credentials }, { ajv }) => credentialSection(credentials, ajv),
};

/** The list's filters: a project, and certificate bundles (a client matches when it checks against one of them). */
function clientsMatching(clients: ApiClient[], filters: { project_id?: number; cert_bundle_ids?: number[] }) {
  const { project_id, cert_bundle_ids } = filters;
  return clients.filter(
    (client) =>
      (project_id === undefined || client.project_id === project_id) &&
      (cert_bundle_ids === undefined || cert_bundle_ids.some((id) => client.cert_bundle_ids?.includes(id))),
  );
}

function credentialSection(credentials: Credentials, ajv: Ajv2020): StateSection {
  const checkClient: RecordCheck<ApiClient> = schemaCheck(ajv, 'ApiClient');
  const checkKey: RecordCheck<ApiKey> = schemaCheck(ajv, 'ApiKey');
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
          mtls_enabled: null,
          validation_formula: null,
          cert_bundle_ids: null,
          created_at: now,
          updated_at: now,
          ...entry,
          id: clientIds[index],
        };
        // Checked as answered: with the fields the emulator does not model.
        checkClient(`api_clients[${index}]`, client, { ...UNMODELLED_CLIENT_FIELDS, ...client });
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
