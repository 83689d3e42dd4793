// node:http, taken with process.getBuiltinModule rather than an ES import. Importing a built-in as an
// ES module builds its module facade, which reads every export; node:http's WebSocket, CloseEvent and
// MessageEvent are getters that load undici, node's whole fetch stack: the emulator's costliest
// import at start, which an emulator that never calls fetch does not need (BENCHMARKS.md, start-up).
const http = process.getBuiltinModule('node:http');

export const { createServer, request, STATUS_CODES } = http;
