export { EMITTED_ERROR_CODES } from './errors.js';
export type { BatchFault, FaultSpec, Faults } from './faults.js';
export { type LogLevel, type MockServer, type MockServerOptions, startMockServer } from './server.js';
export { MemoryStore, type MessageStore, type ReadResult, type StoredMessage } from './store.js';
