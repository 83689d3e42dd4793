// Every endpoint of the emulator API, by operationId (tsc holds the list to spec/emulator).

import { promises } from 'node:fs';
import type { Clock } from '../domain/clock.js';
import type { EmulatorState } from '../domain/state.js';
import type { ResourceEngine } from '../engine/engine.js';
import type { WorkspaceState } from '../engine/state.js';
import { NotFound } from '../errors.js';
import type { Reply } from '../http/replies.js';
import { type OpenApiDocument, type Operation, type SpecName, specFilePath } from '../spec/bundles.js';
import type { RequestValidators } from '../spec/validators.js';
import { clockEndpoints } from './clock.js';
import { connectionEndpoints } from './connections.js';
import type { ControlHandlers } from './control-plane.js';
import { faultEndpoints } from './faults.js';
import type { Journal } from './journal.js';
import { mcpEndpoints } from './mcp.js';
import { NO_CONTENT } from './replies.js';
import { requestEndpoints } from './requests.js';
import { resourceEndpoints } from './resources.js';
import { stateEndpoints } from './state.js';
import { topicEndpoints } from './topics.js';

export interface ControlParts {
  /** The domain: faults, topics and their messages, limits. */
  state: EmulatorState;
  engine: ResourceEngine;
  /** The management spec the engine serves, whose create bodies are the resources' forms. */
  management: OpenApiDocument;
  /** The platform APIs' request checks, which the resources' creates and deletes pass like any request. */
  validators: RequestValidators;
  workspace: WorkspaceState;
  journal: Journal;
  clock: Clock;
  /** The folder the bundles were loaded from (`--spec-dir`); default the installed @platform-api/spec. */
  specDir: string | undefined;
  /** The platform APIs' operations, which the coverage report covers. */
  operations: readonly Operation[];
}

export function controlEndpoints({
  state,
  engine,
  management,
  validators,
  workspace,
  journal,
  clock,
  specDir,
  operations,
}: ControlParts): ControlHandlers {
  const specs = new Map<SpecName, Promise<Reply>>();
  return {
    ...faultEndpoints(state.faults),
    ...topicEndpoints(state),
    ...resourceEndpoints(engine, management, validators),
    ...mcpEndpoints(engine),
    ...stateEndpoints(workspace),
    async reset() {
      await workspace.reset();
      return NO_CONTENT;
    },
    ...requestEndpoints(journal, operations),
    ...clockEndpoints(clock, state.catchUp),
    ...connectionEndpoints(engine, clock),
    get_spec({ params }) {
      const api = params.api as SpecName;
      // The bundle the emulator loaded, as the file it read; read once, on first request.
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
  };
}
