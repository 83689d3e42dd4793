// API clients (v2) and their API keys: create, list, update, delete, enable, disable, refresh_secret.
import { type ApiClient, type ApiKey, MASKED_SECRET, UNMODELLED_CLIENT_FIELDS } from '../domain/credentials.js';
import type { EmulatorState } from '../domain/state.js';
import { jsonReply } from '../http/replies.js';
import { after } from '../store/message-store.js';
import type { Handler, Handlers } from './handler.js';
import { page } from './paging.js';

type ApiClientOperationId =
  | 'list_api_clients'
  | 'create_api_client'
  | 'get_api_client'
  | 'update_api_client'
  | 'delete_api_client'
  | 'list_api_keys'
  | 'create_api_key'
  | 'update_api_key'
  | 'delete_api_key'
  | 'enable_api_key'
  | 'disable_api_key'
  | 'refresh_api_key_secret';

/** An API client as the platform answers it, with the fields the emulator does not model. */
const clientAnswer = (client: ApiClient) => ({ ...UNMODELLED_CLIENT_FIELDS, ...client });

export function apiClientHandlers({ credentials }: EmulatorState): Pick<Handlers, ApiClientOperationId> {
  const manage = <Id extends ApiClientOperationId>(handle: Handler<Id>['handle']): Handler<Id> => ({
    scope: 'api_clients:manage',
    handle,
  });
  // The v2 operations answer one item in `{data}`; a key's secret is `auth_token`, shown on create and refresh only.
  const data = (item: object) => jsonReply(200, { data: item });
  const keyAnswer = (key: ApiKey, authToken = MASKED_SECRET) => ({
    ...key,
    auth_type: credentials.requireClient(key.api_client_id).auth_type,
    auth_token: authToken,
  });
  const withSecret = (key: ApiKey, secret: string) => data(keyAnswer(key, secret));
  const success = () => jsonReply(200, { success: true });
  const keyOf = (params: { api_client_id: number; api_key_id: number }) =>
    credentials.requireKey(params.api_client_id, params.api_key_id);

  return {
    list_api_clients: manage(({ params }) =>
      jsonReply(200, page(clientsMatching(credentials.listClients(), params).map(clientAnswer), params)),
    ),
    create_api_client: manage((request) =>
      request.readJson({}, (input) => after(credentials.createClient(input), (client) => data(clientAnswer(client)))),
    ),
    get_api_client: manage(({ params }) => data(clientAnswer(credentials.requireClient(params.api_client_id)))),
    update_api_client: manage((request) => {
      const client = credentials.requireClient(request.params.api_client_id);
      return request.readJson({}, (input) => data(clientAnswer(credentials.updateClient(client, input))));
    }),
    delete_api_client: manage(({ params }) => {
      credentials.deleteClient(credentials.requireClient(params.api_client_id));
      return success();
    }),
    list_api_keys: manage(({ params }) =>
      jsonReply(
        200,
        page(
          credentials.listKeys(credentials.requireClient(params.api_client_id).id).map((key) => keyAnswer(key)),
          params,
        ),
      ),
    ),
    create_api_key: manage((request) => {
      const client = credentials.requireClient(request.params.api_client_id);
      return request.readJson({}, (input) =>
        after(credentials.createKey(client, input), ({ key, secret }) => withSecret(key, secret)),
      );
    }),
    update_api_key: manage((request) => {
      const key = keyOf(request.params);
      return request.readJson({}, (input) => data(keyAnswer(credentials.updateKey(key, input))));
    }),
    delete_api_key: manage(({ params }) => {
      credentials.deleteKey(keyOf(params));
      return success();
    }),
    enable_api_key: manage(({ params }) => {
      credentials.setActive(keyOf(params), true);
      return success();
    }),
    disable_api_key: manage(({ params }) => {
      credentials.setActive(keyOf(params), false);
      return success();
    }),
    refresh_api_key_secret: manage(({ params }) => {
      const key = keyOf(params);
      return withSecret(key, credentials.refreshSecret(key));
    }),
  };
}

/** The list's filters: a project, and certificate bundles (a client matches when it checks against one of them). */
function clientsMatching(clients: ApiClient[], filters: { project_id?: number; cert_bundle_ids?: number[] }) {
  const { project_id, cert_bundle_ids } = filters;
  return clients.filter(
    (client) =>
      (project_id === undefined || client.project_id === project_id) &&
      (cert_bundle_ids === undefined || cert_bundle_ids.some((id) => client.cert_bundle_ids?.includes(id))),
  );
}
