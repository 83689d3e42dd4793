export type { BatchFault, Fault, FaultSpec, Faults } from './domain/faults.js';
export { EMITTED_ERROR_CODES } from './errors.js';
export type { LogLevel, MockServerOptions } from './options.js';
export { type MockServer, startMockServer } from './server.js';
export { MemoryStore } from './store/memory/messages.js';
export type { MessageStore, ReadResult, StoredMessage } from './store/message-store.js';
