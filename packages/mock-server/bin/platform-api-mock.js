#!/usr/bin/env node
// The platform-api-mock command. npm links a command only when its file exists at install time: this
// committed file, unlike dist/cli.js, is there right after `npm ci` in the repository, so
// `npx platform-api-mock` works at its root (and says what to do before the first build).
import { existsSync } from 'node:fs';

const cli = new URL('../dist/cli.js', import.meta.url);
if (!existsSync(cli)) {
  console.error('platform-api-mock is not built yet: run `npm run build` (or `npm start`) at the repository root.');
  process.exit(1);
}
await import(cli.href);
