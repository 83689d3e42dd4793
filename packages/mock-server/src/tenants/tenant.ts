// A tenant: one platform's state and what goes with it (its journal, the controls of its clock, its
// state as one document), handed to every endpoint with its request (EndpointRequest.tenant) rather
// than held by the endpoints. An emulator holds one tenant today, which admit gives every request
// (pipeline/admit.ts); resolving a request's tenant from the request (workspace and environment) is
// that one place.
import type { Journal } from '../control/journal.js';
import type { Clock } from '../domain/clock.js';
import type { DomainState } from '../domain/state.js';
import type { ResourceEngine } from '../engine/engine.js';
import type { StateAsDocument } from '../engine/state-document.js';

export interface Tenant {
  /** Topics and their messages, credentials, faults, the rate limit, the limits and the clock's time. */
  readonly domain: DomainState;
  /** The management resources, served from the spec's `x-resource` annotations. */
  readonly engine: ResourceEngine;
  /** The answered requests of the platform's APIs. */
  readonly journal: Journal;
  /** The clock the domain's time comes from: set, advanced, frozen over the emulator API. */
  readonly clock: Clock;
  /** The whole state as one document: exported, loaded, reset. */
  readonly stateDocument: StateAsDocument;
}
