#!/usr/bin/env node
// The `platform-api` executable: runs the command line with this process's streams and environment.
import { run } from './cli-program.js';

const stop = new AbortController();
// Once: a second Ctrl-C ends the process at once.
for (const signal of ['SIGINT', 'SIGTERM'] as const) process.once(signal, () => stop.abort());

process.exitCode = await run(process.argv.slice(2), {
  stdin: process.stdin,
  stdout: process.stdout,
  stderr: process.stderr,
  env: process.env,
  signal: stop.signal,
});
