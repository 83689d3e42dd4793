/** The generated OpenAPI types of each API (`paths`, `components`, `operations`), from @platform-api/spec. */
export type * as AuthApi from '@platform-api/spec/types/auth';
/** The emulator's own API (`/_emulator/*`), served by `platform-api-mock` only. */
export type * as EmulatorApi from '@platform-api/spec/types/emulator';
export type * as EventStreamsApi from '@platform-api/spec/types/event-streams';
export type * as ManagementApi from '@platform-api/spec/types/management';
export type { ClientCredentialsOptions, TokenRequestFormat } from './auth.js';
export { clientCredentials, staticToken } from './auth.js';
export type { Checkpoint, CheckpointStore } from './checkpoint.js';
export { memoryCheckpointStore } from './checkpoint.js';
export type { ConsumeOptions, ExpiredCheckpointPolicy, MessageStream } from './consume.js';
export type { EmulatorClient, EmulatorClientOptions } from './emulator-client.js';
export { createEmulatorClient } from './emulator-client.js';
export type { BatchFailure, ErrorBodies, MergedErrorBodies, RequestLabel } from './errors.js';
export { ApiError, ConnectionError, PayloadTooLargeError, PublishBatchError, TimeoutError } from './errors.js';
export type { EventStreamsClient, EventStreamsClientOptions, EventStreamsHelpers } from './event-streams.js';
export { createEventStreamsClient } from './event-streams.js';
export type {
  CodedErrorResponse,
  EventStreamsDataCenter,
  EventStreamsErrorBodies,
  EventStreamsErrorCode,
  EventStreamsRawClient,
  Message,
  Payload,
  TypedMessage,
} from './event-streams-api.js';
export { EventStreamsError } from './event-streams-api.js';
export type { EventStreamsErrorCodes } from './generated/error-codes.js';
export { eventStreamsLimits } from './generated/limits.js';
export { managementPagination } from './generated/pagination.js';
export { eventStreamsServers, managementServers } from './generated/servers.js';
export type { LogEvent, Logger } from './log.js';
export type {
  ManagementClient,
  ManagementClientOptions,
  ManagementDataCenter,
  ManagementErrorBodies,
  ThrowingManagementClient,
} from './management.js';
export { createManagementClient, ManagementError } from './management.js';
export type { Auth, Fetch, Location, RequestOptions, TokenProvider, WithResponse } from './options.js';
export type { PageItem, Paginate, PaginatedPath, PaginateOptions } from './paginate.js';
export type { PublishBatchOptions } from './publish-batch.js';
export type { RetryOptions } from './retry.js';
export { retryAfterMs } from './retry.js';
export type { MessageHandler, SubscribeOptions, Subscription } from './subscribe.js';
export type { TokenClient, TokenClientOptions, TokenErrorBodies } from './token-client.js';
export { createTokenClient, TokenError } from './token-client.js';
export type { EventStreamsMessaging, TopicHandle, TopicOptions } from './topic.js';
