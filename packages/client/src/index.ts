export type { Auth, ClientCredentialsOptions, TokenProvider, TokenRequestFormat } from './auth.js';
export { clientCredentials, staticToken } from './auth.js';
export type { ConsumeOptions, MessageStream } from './consume.js';
export type { BatchFailure, ErrorBodies, MergedErrorBodies } from './errors.js';
export { ApiError, PublishBatchError } from './errors.js';
export type { EventStreamsClient, EventStreamsClientOptions, EventStreamsHelpers } from './event-streams.js';
export { createEventStreamsClient } from './event-streams.js';
export type {
  EventStreamsDataCenter,
  EventStreamsErrorBodies,
  EventStreamsRawClient,
  Message,
  Payload,
} from './event-streams-api.js';
export { EventStreamsError } from './event-streams-api.js';
export type * as AuthApi from './generated/auth.js';
/** The generated OpenAPI types of each API (`paths`, `components`, `operations`). */
export type * as EventStreamsApi from './generated/event-streams.js';
export { eventStreamsLimits } from './generated/limits.js';
export type * as ManagementApi from './generated/management.js';
export { eventStreamsServers, managementServers } from './generated/servers.js';
export type { ManagementClient, ManagementClientOptions, ManagementDataCenter } from './management.js';
export { createManagementClient } from './management.js';
export type { Fetch, Location } from './options.js';
export type { PublishBatchOptions } from './publish-batch.js';
export type { RetryOptions } from './retry.js';
export { retryAfterMs } from './retry.js';
export type { TokenClient, TokenClientOptions, TokenErrorBodies } from './token-client.js';
export { createTokenClient, TokenError } from './token-client.js';
