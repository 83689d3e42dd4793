// /_emulator/workspaces: the workspaces made at run time (tenants/registry.ts), listed, made and deleted.
import { jsonReply } from '../http/replies.js';
import { type EmulatorEndpoints, endpoint, NO_BODY } from '../pipeline/endpoint.js';
import type { Tenants } from '../tenants/registry.js';
import { NO_CONTENT } from './replies.js';

type WorkspaceOperations = 'list_workspaces' | 'create_workspace' | 'get_workspace' | 'delete_workspace';

export function workspaceEndpoints(tenants: Tenants): Pick<EmulatorEndpoints, WorkspaceOperations> {
  return {
    // On a shared store, the workspaces the other emulators made or deleted are known once caught up.
    list_workspaces: endpoint('list_workspaces', {
      catchUp: 'always',
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
      catchUp: 'always',
      body: NO_BODY,
      handle: ({ params }) => jsonReply(200, tenants.get(params.id)),
    }),
    delete_workspace: endpoint('delete_workspace', {
      catchUp: 'always',
      body: NO_BODY,
      async handle({ params }) {
        await tenants.delete(params.id);
        return NO_CONTENT;
      },
    }),
  };
}
