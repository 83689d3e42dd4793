// Every endpoint of the emulator API, by operationId (tsc holds the list to spec/emulator).

import { readFile } from 'node:fs/promises';
import type { Clock } from '../domain/clock.js';
import type { Faults } from '../domain/faults.js';
import type { WorkspaceState } from '../engine/state.js';
import { NotFound } from '../errors.js';
import type { Reply } from '../http/replies.js';
import { type SpecName, specFilePath } from '../spec/bundles.js';
import { clockEndpoints } from './clock.js';
import type { ControlHandlers } from './control-plane.js';
import { faultEndpoints } from './faults.js';
import type { Journal } from './journal.js';
import { NO_CONTENT } from './replies.js';
import { requestEndpoints } from './requests.js';
import { stateEndpoints } from './state.js';

export interface ControlParts {
  faults: Faults;
  workspace: WorkspaceState;
  journal: Journal;
  clock: Clock;
  catchUp: (() => Promise<void>) | undefined;
  /** The folder the bundles were loaded from (`--spec-dir`); default the installed @platform-api/spec. */
  specDir: string | undefined;
}

export function controlEndpoints({
  faults,
  workspace,
  journal,
  clock,
  catchUp,
  specDir,
}: ControlParts): ControlHandlers {
  const specs = new Map<SpecName, Promise<Reply>>();
  return {
    ...faultEndpoints(faults),
    ...stateEndpoints(workspace),
    async reset() {
      await workspace.reset();
      return NO_CONTENT;
    },
    ...requestEndpoints(journal),
    ...clockEndpoints(clock, catchUp),
    get_spec({ params }) {
      const api = params.api as SpecName;
      // The bundle the emulator loaded, as the file it read; read once, on first request.
      let reply = specs.get(api);
      if (!reply) {
        reply = readFile(specFilePath(api, specDir), 'utf8').then((json) => ({ status: 200, json }));
        specs.set(api, reply);
      }
      return reply.catch(() => {
        specs.delete(api);
        throw new NotFound(`No bundled spec ${api}`);
      });
    },
  };
}
