// A test's handle on a running emulator: its URL and bootstrap credentials, and the emulator API
// through the generated client: reset, the journal and its verification, the clock, faults.
import type { operations } from '@platform-api/spec/types/emulator';
import type { Fault } from '../domain/faults.js';
import {
  createEmulatorApiClient,
  type EmulatorApiClient,
  type EmulatorErrorBody,
  type JournalEntry,
  type RequestMatch,
  type TenantScope,
  type VerificationFailure,
  type VerificationResult,
} from './client.js';
import type { CoverageReport } from './coverage.js';

/** Where the emulator is and the credentials of its bootstrap key (every right). */
export interface EmulatorConnection {
  url: string;
  clientId: string;
  clientSecret: string;
  /** The emulator's admin token (`MockServer.adminToken`), which its fleet-level calls need beyond loopback. */
  adminToken?: string;
}

export interface ExpectOptions {
  /** Exactly this many matching requests. */
  times?: number;
  /** At least this many (default 1 unless `times` or `atMost` says otherwise). */
  atLeast?: number;
  atMost?: number;
  /** Wait up to this long for enough matching requests to be answered (at most 30,000); default 0. */
  waitMs?: number;
}

/** Fault injection through the emulator API, spelled as `server.faults` spells it. */
export interface EmulatorFaults {
  /** The next `times` requests to the operation (an operationId) fail with `status`, which its spec declares. */
  failNext(operation: string, fault: Fault): Promise<void>;
  /** @deprecated Give the fault as one object: `failNext(operation, { status, code, retryAfter, times })`. */
  failNext(operation: string, status: number, options?: Omit<Fault, 'status'>): Promise<void>;
  /** The next `times` batch publishes fail at these 0-based positions (`omit`: with no entry at all). */
  failBatchPositions(positions: number[], options?: { times?: number; omit?: boolean }): Promise<void>;
  /** Disarms every fault not yet used. */
  clear(): Promise<void>;
}

export type RequestFilter = NonNullable<operations['list_requests']['parameters']['query']>;

/** The expected requests were not answered: the message shows the expectation and the closest requests. */
export class RequestVerificationError extends Error {
  override readonly name = 'RequestVerificationError';

  constructor(readonly failure: VerificationFailure) {
    super(describeFailure(failure));
  }
}

/** The emulator refused a call of the emulator API (a malformed verification, an unknown operation for a fault). */
export class EmulatorApiError extends Error {
  override readonly name = 'EmulatorApiError';

  constructor(
    readonly status: number,
    readonly body: EmulatorErrorBody | undefined,
  ) {
    super(`The emulator answered ${status}: ${body?.message ?? 'no message'}`);
  }
}

/** What `Emulator.workspace()` makes: a name (default "Test workspace") and environments besides `dev`. */
export interface WorkspaceOptions {
  name?: string;
  environments?: Exclude<TenantScope['environment'], 'dev'>[];
}

export class Emulator {
  /** The generated client of the emulator API, for what the helpers below do not cover. */
  readonly api: EmulatorApiClient;

  /** `scope`: the workspace and environment whose state the helpers read and change (default workspace 1's `dev`). */
  constructor(
    readonly connection: EmulatorConnection,
    readonly scope?: TenantScope,
  ) {
    this.api = createEmulatorApiClient(connection.url, scope, connection.adminToken);
  }

  /**
   * A new workspace on this emulator, its `dev` environment's handle (its bootstrap credentials, and
   * its own reset, journal, faults and clock): a test file of its own on a shared emulator.
   */
  async workspace(options: WorkspaceOptions = {}): Promise<EmulatorWorkspace> {
    const fleet = createEmulatorApiClient(this.url, undefined, this.connection.adminToken);
    const body = {
      name: options.name ?? 'Test workspace',
      environments: ['dev' as const, ...(options.environments ?? [])],
    };
    const { data, error, response } = await fleet.POST('/_emulator/workspaces', { body });
    if (!data) throw new EmulatorApiError(response.status, error);
    const environments = new Map(
      data.environments.map(({ name, client_id, client_secret }) => [
        name,
        new Emulator(
          { url: this.url, clientId: client_id, clientSecret: client_secret, adminToken: this.connection.adminToken },
          { workspace: data.id, environment: name },
        ),
      ]),
    );
    return new EmulatorWorkspace(data.id, environments);
  }

  get url(): string {
    return this.connection.url;
  }

  get clientId(): string {
    return this.connection.clientId;
  }

  get clientSecret(): string {
    return this.connection.clientSecret;
  }

  /** A fresh emulator: empty state, the bootstrap key as at start, no faults, an empty journal, real time. */
  async reset(): Promise<void> {
    const { error, response } = await this.api.POST('/_emulator/reset');
    if (!response.ok) throw new EmulatorApiError(response.status, error);
  }

  /** The journal's entries that pass the filter, oldest first. */
  async requests(filter: RequestFilter = {}): Promise<JournalEntry[]> {
    const { data, error, response } = await this.api.GET('/_emulator/requests', { params: { query: filter } });
    if (!data) throw new EmulatorApiError(response.status, error);
    return data.requests;
  }

  /** Empties the journal: what the test's own setup sent is not counted. */
  async clearRequests(): Promise<void> {
    const { error, response } = await this.api.DELETE('/_emulator/requests');
    if (!response.ok) throw new EmulatorApiError(response.status, error);
  }

  /**
   * The requests matching `match` (operation, method, path, status, client_id, query, and a subset of
   * the JSON body), checked against the count; a RequestVerificationError naming the closest requests
   * and what differed in each when it does not hold.
   */
  async verify(match: RequestMatch, options: ExpectOptions = {}): Promise<VerificationResult> {
    const min = options.times ?? options.atLeast ?? (options.atMost === undefined ? 1 : 0);
    const max = options.times ?? options.atMost;
    const { data, error, response } = await this.api.POST('/_emulator/requests/verify', {
      body: { match, count: max === undefined ? { min } : { min, max }, wait_ms: options.waitMs ?? 0 },
    });
    if (data) return data;
    if (response.status === 409) throw new RequestVerificationError(error as VerificationFailure);
    throw new EmulatorApiError(response.status, error as EmulatorErrorBody);
  }

  /** verify() for a test's assertion: resolves with the matching requests, rejects with a readable failure. */
  async expectRequest(match: RequestMatch, options: ExpectOptions = {}): Promise<JournalEntry[]> {
    return (await this.verify(match, options)).requests;
  }

  /**
   * The API coverage of the requests answered since the emulator started (or since clearCoverage()):
   * which operations were called, with which statuses, against what the specs declare. A reset leaves it.
   */
  async coverage(): Promise<CoverageReport> {
    const { data, error, response } = await this.api.GET('/_emulator/coverage');
    if (!data) throw new EmulatorApiError(response.status, error);
    return data;
  }

  /** Starts counting the coverage again. */
  async clearCoverage(): Promise<void> {
    const { error, response } = await this.api.DELETE('/_emulator/coverage');
    if (!response.ok) throw new EmulatorApiError(response.status, error);
  }

  /**
   * How many consumers long-poll the topic on this emulator now (0 for a topic it does not have;
   * emulators sharing state on Redis each count their own). A test whose consumer must be woken by a
   * publish waits for this to reach 1 before it publishes.
   */
  async waitingConsumers(topicId: number): Promise<number> {
    const { data, error, response } = await this.api.GET('/_emulator/topics');
    if (!data) throw new EmulatorApiError(response.status, error);
    return data.topics.find((topic) => topic.id === topicId)?.waiting_consumers ?? 0;
  }

  /** The emulator's clock: what token expiry, message times, retention and rate limits follow. */
  readonly clock = {
    now: async (): Promise<{ now: Date; frozen: boolean }> => {
      const { data, error, response } = await this.api.GET('/_emulator/clock');
      if (!data) throw new EmulatorApiError(response.status, error);
      return { now: new Date(data.now), frozen: data.frozen };
    },
    /** Sets the time (frozen there when `frozen` is true). */
    set: (time: Date | string, options: { frozen?: boolean } = {}) =>
      this.changeClock({ now: typeof time === 'string' ? time : time.toISOString(), frozen: options.frozen }),
    /** Moves the clock forward (not back). */
    advance: (seconds: number) => this.changeClock({ advance_seconds: seconds }),
    freeze: () => this.changeClock({ frozen: true }),
    unfreeze: () => this.changeClock({ frozen: false }),
    /** Real time again. */
    reset: async (): Promise<void> => {
      const { error, response } = await this.api.DELETE('/_emulator/clock');
      if (!response.ok) throw new EmulatorApiError(response.status, error);
    },
  };

  /** Fault injection: the next requests to an operation fail with a status its spec declares. */
  readonly faults: EmulatorFaults = {
    failNext: async (operation: string, fault: Fault | number, deprecated: Omit<Fault, 'status'> = {}) => {
      const { status, code, retryAfter, times } = typeof fault === 'number' ? { ...deprecated, status: fault } : fault;
      await this.armFault({ operation, status, code, retry_after: retryAfter, times });
    },
    failBatchPositions: (positions: number[], options: { times?: number; omit?: boolean } = {}) =>
      this.armFault({ batch_fail_positions: positions, omit: options.omit, times: options.times }),
    clear: async (): Promise<void> => {
      const { error, response } = await this.api.DELETE('/_emulator/faults');
      if (!response.ok) throw new EmulatorApiError(response.status, error);
    },
  };

  private async armFault(body: operations['add_fault']['requestBody']['content']['application/json']) {
    const { error, response } = await this.api.POST('/_emulator/faults', { body });
    if (!response.ok) throw new EmulatorApiError(response.status, error);
  }

  private async changeClock(change: operations['set_clock']['requestBody']['content']['application/json']) {
    const { data, error, response } = await this.api.PUT('/_emulator/clock', { body: change });
    if (!data) throw new EmulatorApiError(response.status, error);
    return { now: new Date(data.now), frozen: data.frozen };
  }
}

/** The expectation, then each near miss: its id, method, path, operation and status, and what differed. */
export function describeFailure(failure: VerificationFailure): string {
  const lines = [failure.message ?? `${failure.matched} requests matched`];
  if (failure.near_misses.length > 0) lines.push('Closest requests:');
  for (const { request, differences } of failure.near_misses) {
    lines.push(
      `  #${request.id} ${request.method} ${request.path} (${request.operation ?? 'no operation'}, ${request.response.status})`,
    );
    for (const difference of differences) lines.push(`    - ${difference}`);
  }
  return lines.join('\n');
}

/** A workspace made by `Emulator.workspace()`: its `dev` environment's handle, its other environments', and delete(). */
export class EmulatorWorkspace extends Emulator {
  constructor(
    readonly id: number,
    private readonly environments: ReadonlyMap<TenantScope['environment'], Emulator>,
  ) {
    const dev = environments.get('dev') as Emulator;
    super(dev.connection, dev.scope);
  }

  /** The handle of one of its environments. */
  environment(name: TenantScope['environment']): Emulator {
    const found = this.environments.get(name);
    if (!found) throw new Error(`Workspace ${this.id} has no environment ${name}`);
    return found;
  }

  /** Frees everything the workspace held; its tokens are unknown from now on. */
  async delete(): Promise<void> {
    const fleet = createEmulatorApiClient(this.url, undefined, this.connection.adminToken);
    const { error, response } = await fleet.DELETE('/_emulator/workspaces/{id}', {
      params: { path: { id: this.id } },
    });
    if (!response.ok) throw new EmulatorApiError(response.status, error);
  }
}
