// Every endpoint of the emulator API, by operationId: their type requires exactly one per operation of
// spec/emulator (pipeline/endpoint.ts). What they read and change is the request's tenant's; what
// they are made with here is the server's (the specs it serves).

import { promises } from 'node:fs';
import { NotFound } from '../errors.js';
import type { Reply } from '../http/replies.js';
import { type EmulatorEndpoints, endpoint, NO_BODY } from '../pipeline/endpoint.js';
import { type OpenApiDocument, type Operation, type SpecName, specFilePath } from '../spec/bundles.js';
import type { RequestValidators } from '../spec/validators.js';
import type { Tenants } from '../tenants/registry.js';
import { clockEndpoints } from './clock.js';
import { connectionEndpoints } from './connections.js';
import { faultEndpoints } from './faults.js';
import { mcpEndpoints } from './mcp.js';
import { requestEndpoints } from './requests.js';
import { resourceEndpoints } from './resources.js';
import { stateDocumentEndpoints } from './state-document.js';
import { topicEndpoints } from './topics.js';
import { workspaceEndpoints } from './workspaces.js';

export interface ServedSpecs {
  /** The management spec the engine serves, whose create bodies are the resources' forms. */
  management: OpenApiDocument;
  /** The platform APIs' request checks, which the resources' creates and deletes pass like any request. */
  validators: RequestValidators;
  /** The folder the bundles were loaded from (`--spec-dir`); default the installed @platform-api/spec. */
  specDir: string | undefined;
  /** The platform APIs' operations, which the coverage report covers. */
  operations: readonly Operation[];
  /** The workspaces' registry, whose tenants the other endpoints get with their request. */
  tenants: Tenants;
}

export function emulatorEndpoints({
  management,
  validators,
  specDir,
  operations,
  tenants,
}: ServedSpecs): EmulatorEndpoints {
  return {
    ...faultEndpoints(),
    ...topicEndpoints(),
    ...resourceEndpoints(management, validators),
    ...mcpEndpoints(),
    ...stateDocumentEndpoints(),
    ...requestEndpoints(operations),
    ...clockEndpoints(),
    ...connectionEndpoints(),
    ...workspaceEndpoints(tenants),
    get_spec: specEndpoint(specDir),
  };
}

/** The bundle the emulator loaded, as the file it read; read once, on first request. */
function specEndpoint(specDir: string | undefined): EmulatorEndpoints['get_spec'] {
  const specs = new Map<SpecName, Promise<Reply>>();
  return endpoint('get_spec', {
    body: NO_BODY,
    handle({ params: { api } }) {
      let reply = specs.get(api);
      if (!reply) {
        // fs.promises when first read (static-files.ts says why).
        reply = promises.readFile(specFilePath(api, specDir), 'utf8').then((json) => ({ status: 200, json }));
        specs.set(api, reply);
      }
      return reply.catch(() => {
        specs.delete(api);
        throw new NotFound(`No bundled spec ${api}`);
      });
    },
  });
}
