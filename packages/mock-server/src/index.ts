export { startMockServer, type LogLevel, type MockServer, type MockServerOptions } from './server.js';
export type { BatchFault, FaultSpec, Faults } from './faults.js';
export { MemoryStore, type MessageStore, type ReadResult, type StoredMessage } from './store.js';
export { EMITTED_ERROR_CODES } from './errors.js';
