// Developer API clients' tokens, regenerated on request.
import type { HandlerRegistry } from '../contract.js';
import { randomSecret } from './secrets.js';

export const developerApiClientsHandlers = {
  /**
   * `regenerate_developer_api_client_token`: a new token, whose value the answer shows this once (it is
   * not stored, so no later answer shows it), and the client's `token.updated_at`.
   */
  'developer_api_clients.regenerate': async (workspace, op, { params }) => {
    const client = await workspace.itemOf(op, params);
    const token = { updated_at: workspace.values.now };
    const updated = await workspace.update(op, client, { token });
    return { item: { ...updated, token: { ...token, value: randomSecret(workspace) + randomSecret(workspace) } } };
  },
} satisfies Partial<HandlerRegistry>;
