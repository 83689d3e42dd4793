// API clients (v2) and their API keys: create, list, update, delete, enable, disable, refresh_secret.
import type { ApiKey } from '../domain/credentials.js';
import type { EmulatorState } from '../domain/state.js';
import { jsonReply } from '../http/replies.js';
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

export function apiClientHandlers({ credentials }: EmulatorState): Pick<Handlers, ApiClientOperationId> {
  const manage = <Id extends ApiClientOperationId>(handle: Handler<Id>['handle']): Handler<Id> => ({
    scope: 'api_clients:manage',
    handle,
  });
  const withSecret = (key: ApiKey, secret: string) => jsonReply(200, { ...key, client_secret: secret });
  const keyOf = (params: { api_client_id: number; api_key_id: number }) =>
    credentials.requireKey(params.api_client_id, params.api_key_id);

  return {
    list_api_clients: manage(({ params }) => jsonReply(200, page(credentials.listClients(), params))),
    create_api_client: manage((request) =>
      request.readJson({}, (input) => jsonReply(200, credentials.createClient(input))),
    ),
    get_api_client: manage(({ params }) => jsonReply(200, credentials.requireClient(params.api_client_id))),
    update_api_client: manage((request) => {
      const client = credentials.requireClient(request.params.api_client_id);
      return request.readJson({}, (input) => jsonReply(200, credentials.updateClient(client, input)));
    }),
    delete_api_client: manage(({ params }) => {
      credentials.deleteClient(credentials.requireClient(params.api_client_id));
      return jsonReply(200, { success: true });
    }),
    list_api_keys: manage(({ params }) =>
      jsonReply(200, page(credentials.listKeys(credentials.requireClient(params.api_client_id).id), params)),
    ),
    create_api_key: manage((request) => {
      const client = credentials.requireClient(request.params.api_client_id);
      return request.readJson({}, (input) => {
        const { key, secret } = credentials.createKey(client, input);
        return withSecret(key, secret);
      });
    }),
    update_api_key: manage((request) => {
      const key = keyOf(request.params);
      return request.readJson({}, (input) => jsonReply(200, credentials.updateKey(key, input)));
    }),
    delete_api_key: manage(({ params }) => {
      credentials.deleteKey(keyOf(params));
      return jsonReply(200, { success: true });
    }),
    enable_api_key: manage(({ params }) => jsonReply(200, credentials.setActive(keyOf(params), true))),
    disable_api_key: manage(({ params }) => jsonReply(200, credentials.setActive(keyOf(params), false))),
    refresh_api_key_secret: manage(({ params }) => {
      const key = keyOf(params);
      return withSecret(key, credentials.refreshSecret(key));
    }),
  };
}
