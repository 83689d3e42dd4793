#!/usr/bin/env node
// The platform-api-mock command. npm links a command only when its file exists at install time: this
// committed file, unlike dist/cli.js, is there right after `npm ci` in the repository, so
// `npx platform-api-mock` works at its root (and says what to do before the first build).
// Built-ins by getBuiltinModule: an ES import of node:fs loads its streams, readline and more (start-up).
const { existsSync } = process.getBuiltinModule('node:fs');
const module = process.getBuiltinModule('node:module');

const cli = new URL('../dist/cli.js', import.meta.url);
if (!existsSync(cli)) {
  console.error('platform-api-mock is not built yet: run `npm run build` (or `npm start`) at the repository root.');
  process.exit(1);
}
// Node keeps V8's compiled code of the emulator's modules on disk (in the OS temp folder): every start
// after the first skips compiling them (BENCHMARKS.md, start-up). NODE_DISABLE_COMPILE_CACHE=1 turns it off.
module.enableCompileCache?.();
await import(cli.href);
