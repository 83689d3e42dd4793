// The endpoints of the event-streams API and the token endpoint, one per operation: their type requires
// exactly one per operation of the two specs (pipeline/endpoint.ts).
import type { PlatformEndpoints } from '../pipeline/endpoint.js';
import type { ClientIdLookup } from '../tenants/tenant.js';
import { eventStreamEndpoints } from './event-streams.js';
import { tokenEndpoints } from './token.js';

export function platformEndpoints(tenants: ClientIdLookup): PlatformEndpoints {
  return { ...eventStreamEndpoints(), ...tokenEndpoints(tenants) };
}
