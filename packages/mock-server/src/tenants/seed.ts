// A seed that declares workspaces beside workspace 1's state: each with its environments, each
// environment a state document's sections and, optionally, its bootstrap key's credentials, fixed so
// that CI knows them ahead. Made at start, in the order listed (ids 2, 3, ...), after workspace 1:
//
//   workspaces:
//     - name: Team A
//       environments:
//         dev: { client_id: team-a, client_secret: team-a-secret, topics: [...], resources: {...} }
//         prod: {}
import { isObject } from '../engine/schema.js';
import { STATE_VERSION, StateError } from '../engine/state-document.js';
import { Refused } from '../errors.js';
import type { GivenCredentials, Tenants } from './registry.js';
import { ENVIRONMENTS, type EnvironmentName, isEnvironment } from './tenant.js';

/** What an environment starts with: its bootstrap key's credentials (both or neither) and its state. */
export interface EnvironmentSeed {
  credentials: GivenCredentials;
  /** A state document, as `PUT /_emulator/state` takes it. */
  state: Record<string, unknown>;
}

export interface WorkspaceSeed {
  name: string;
  environments: Partial<Record<EnvironmentName, EnvironmentSeed>>;
}

/** The workspace name's bounds, as `POST /_emulator/workspaces` holds it (WorkspaceCreation). */
const NAME_LENGTH = { min: 1, max: 200 };

/** Workspace 1's part of the seed and the workspaces it declares; StateError naming the entry at fault. */
export function splitSeed(seed: unknown): { own: unknown; workspaces: WorkspaceSeed[] } {
  if (!isObject(seed) || seed.workspaces === undefined) return { own: seed, workspaces: [] };
  const { workspaces, ...own } = seed;
  if (!Array.isArray(workspaces)) throw new StateError('workspaces must be a list of workspaces');
  const parsed = workspaces.map((workspace, index) => workspaceSeed(workspace, `workspaces[${index}]`));
  const clientIds = parsed.flatMap(({ environments }) =>
    Object.values(environments).flatMap(({ credentials }) => credentials.clientId ?? []),
  );
  const repeated = clientIds.find((clientId, index) => clientIds.indexOf(clientId) !== index);
  if (repeated !== undefined) throw new StateError(`workspaces: client_id ${repeated} is given more than once`);
  return { own, workspaces: parsed };
}

function workspaceSeed(workspace: unknown, where: string): WorkspaceSeed {
  if (!isObject(workspace)) throw new StateError(`${where} must be an object`);
  const { name, environments = { dev: {} }, ...rest } = workspace;
  const unknown = Object.keys(rest);
  if (unknown.length > 0) throw new StateError(`${where}: unknown keys ${unknown.join(', ')}`);
  if (typeof name !== 'string' || name.length < NAME_LENGTH.min || name.length > NAME_LENGTH.max)
    throw new StateError(`${where}.name must be a string of ${NAME_LENGTH.min} to ${NAME_LENGTH.max} characters`);
  if (!isObject(environments))
    throw new StateError(`${where}.environments must map ${ENVIRONMENTS.join(', ')} to their states`);
  const seeds: WorkspaceSeed['environments'] = {};
  for (const [environment, given] of Object.entries(environments)) {
    if (!isEnvironment(environment))
      throw new StateError(`${where}.environments.${environment}: no such environment (${ENVIRONMENTS.join(', ')})`);
    seeds[environment] = environmentSeed(given ?? {}, `${where}.environments.${environment}`);
  }
  return { name, environments: seeds };
}

function environmentSeed(given: unknown, where: string): EnvironmentSeed {
  if (!isObject(given)) throw new StateError(`${where} must be an object`);
  const { client_id: clientId, client_secret: clientSecret, ...state } = given;
  for (const [key, value] of [
    ['client_id', clientId],
    ['client_secret', clientSecret],
  ] as const) {
    if (value !== undefined && (typeof value !== 'string' || value === ''))
      throw new StateError(`${where}.${key} must be a non-empty string`);
  }
  // A secret nobody knows would make a fixed client ID useless, and the secret alone names no key.
  if ((clientId === undefined) !== (clientSecret === undefined))
    throw new StateError(`${where}: give client_id and client_secret together, or neither`);
  return {
    credentials: { clientId: clientId as string | undefined, clientSecret: clientSecret as string | undefined },
    state: { version: STATE_VERSION, ...state },
  };
}

/**
 * Makes the seed's workspaces and loads each environment's state; `takenClientId` is workspace 1's
 * bootstrap client ID, which no workspace may reuse. StateError naming the entry at fault.
 */
export async function seedWorkspaces(
  tenants: Tenants,
  workspaces: readonly WorkspaceSeed[],
  takenClientId: string,
): Promise<void> {
  for (const [index, { name, environments }] of workspaces.entries()) {
    const where = `workspaces[${index}]`;
    const seeded = Object.entries(environments) as [EnvironmentName, EnvironmentSeed][];
    const taken = seeded.find(([, { credentials }]) => credentials.clientId === takenClientId);
    if (taken) throw new StateError(`${where}.environments.${taken[0]}.client_id is workspace 1's bootstrap client ID`);
    const credentials = Object.fromEntries(seeded.map(([environment, seed]) => [environment, seed.credentials]));
    const made = await asStateError(where, () =>
      tenants.create(
        name,
        seeded.map(([environment]) => environment),
        credentials,
      ),
    );
    for (const [environment, { state }] of seeded) {
      const tenant = tenants.tenant(made.id, environment);
      await asStateError(`${where}.environments.${environment}`, () => tenant.stateDocument.load(state));
    }
  }
}

/** A refusal of the seed (a storage that keeps no workspaces, a state document refused) as a StateError saying where. */
async function asStateError<T>(where: string, run: () => Promise<T>): Promise<T> {
  try {
    return await run();
  } catch (error) {
    if (error instanceof Refused || error instanceof StateError) throw new StateError(`${where}: ${error.message}`);
    throw error;
  }
}
