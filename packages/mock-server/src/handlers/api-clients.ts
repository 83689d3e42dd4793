// API clients (v2) and their API keys: create, list, update, delete, enable, disable, refresh_secret.

import type { ApiClient, ApiKey } from '../domain/credentials.js';
import type { EmulatorState } from '../domain/state.js';
import { jsonReply } from '../http/replies.js';
import { type Context, type RouteHandler, withValidJson } from './context.js';
import { page } from './paging.js';

export function apiClientHandlers(state: EmulatorState): Record<string, RouteHandler> {
  const { credentials } = state;
  const clientOr404 = (ctx: Context): ApiClient => credentials.requireClient(ctx.params.api_client_id);
  const keyOr404 = (ctx: Context): ApiKey => credentials.requireKey(ctx.params.api_client_id, ctx.params.api_key_id);
  const withSecret = (key: ApiKey, secret: string) => jsonReply(200, { ...key, client_secret: secret });

  const handlers: Record<string, RouteHandler['handle']> = {
    list_api_clients: (ctx) => jsonReply(200, page(credentials.listClients(), ctx)),
    create_api_client: (ctx) => withValidJson(state, ctx, (input) => jsonReply(200, credentials.createClient(input))),
    get_api_client: (ctx) => jsonReply(200, clientOr404(ctx)),
    update_api_client: (ctx) => {
      const client = clientOr404(ctx);
      return withValidJson(state, ctx, (input) => jsonReply(200, credentials.updateClient(client, input)));
    },
    delete_api_client: (ctx) => {
      credentials.deleteClient(clientOr404(ctx));
      return jsonReply(200, { success: true });
    },
    list_api_keys: (ctx) => jsonReply(200, page(credentials.listKeys(clientOr404(ctx).id), ctx)),
    create_api_key: (ctx) => {
      const client = clientOr404(ctx);
      return withValidJson(state, ctx, (input) => {
        const { key, secret } = credentials.createKey(client, input);
        return withSecret(key, secret);
      });
    },
    update_api_key: (ctx) => {
      const key = keyOr404(ctx);
      return withValidJson(state, ctx, (input) => jsonReply(200, credentials.updateKey(key, input)));
    },
    delete_api_key: (ctx) => {
      credentials.deleteKey(keyOr404(ctx));
      return jsonReply(200, { success: true });
    },
    enable_api_key: (ctx) => jsonReply(200, credentials.setActive(keyOr404(ctx), true)),
    disable_api_key: (ctx) => jsonReply(200, credentials.setActive(keyOr404(ctx), false)),
    refresh_api_key_secret: (ctx) => {
      const key = keyOr404(ctx);
      return withSecret(key, credentials.refreshSecret(key));
    },
  };
  return Object.fromEntries(
    Object.entries(handlers).map(([operationId, handle]) => [operationId, { scope: 'api_clients:manage', handle }]),
  );
}
