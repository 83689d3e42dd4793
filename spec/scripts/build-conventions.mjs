// Compiles conventions/ into dist/conventions without a moment where it is missing: tsc writes a fresh
// directory beside it (nothing stale from a renamed module survives), which then takes its place by
// rename. A build started while tests import the conventions (npm start's, beside npm test's suites)
// must not pull them from under the running emulators.
import { execFileSync } from 'node:child_process';
import { existsSync, renameSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';

const fresh = 'dist/conventions.building';
const previous = 'dist/conventions.previous';
rmSync(fresh, { recursive: true, force: true });
rmSync(previous, { recursive: true, force: true });
const tsc = createRequire(import.meta.url).resolve('typescript/bin/tsc');
execFileSync(process.execPath, [tsc, '-p', 'tsconfig.build.json', '--outDir', fresh], { stdio: 'inherit' });
if (existsSync('dist/conventions')) renameSync('dist/conventions', previous);
renameSync(fresh, 'dist/conventions');
rmSync(previous, { recursive: true, force: true });
