// /_emulator/workspaces: the workspaces made at run time (tenants/registry.ts), listed, made and deleted.
import { jsonReply } from '../http/replies.js';
import { type EmulatorEndpoints, endpoint, NO_BODY } from '../pipeline/endpoint.js';
import type { Tenants } from '../tenants/registry.js';
import { NO_CONTENT } from './replies.js';

type WorkspaceOperations = 'list_workspaces' | 'create_workspace' | 'get_workspace' | 'delete_workspace';

export function workspaceEndpoints(tenants: Tenants): Pick<EmulatorEndpoints, WorkspaceOperations> {
  return {
    list_workspaces: endpoint('list_workspaces', {
      body: NO_BODY,
      handle: () => jsonReply(200, { workspaces: tenants.list() }),
    }),
    create_workspace: endpoint('create_workspace', {
      body: { kind: 'json' },
      async handle({ body }) {
        return jsonReply(201, await tenants.create(body.name, body.environments ?? []), {
          'cache-control': 'no-store',
        });
      },
    }),
    get_workspace: endpoint('get_workspace', {
      body: NO_BODY,
      handle: ({ params }) => jsonReply(200, tenants.get(params.id)),
    }),
    delete_workspace: endpoint('delete_workspace', {
      body: NO_BODY,
      handle({ params }) {
        tenants.delete(params.id);
        return NO_CONTENT;
      },
    }),
  };
}
