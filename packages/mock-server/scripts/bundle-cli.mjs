// Bundles the command line: dist/cli.js and the emulator's modules it imports become one module, written
// over dist/cli.js, and chunks in dist/cli-chunks/ for what it imports only when used (Redis, the data
// dir, the snapshot commands). At start node then resolves, reads and links one file instead of about
// eighty (BENCHMARKS.md, start-up). The packages it imports stay outside, loaded from node_modules;
// the library (dist/index.js, the test kit) stays tsc's modules. Run by the package's build after tsc.
// Usage: node scripts/bundle-cli.mjs
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';

const dist = fileURLToPath(new URL('../dist/', import.meta.url));
const { outputFiles } = await build({
  entryPoints: { cli: `${dist}cli.js` },
  outdir: dist,
  chunkNames: 'cli-chunks/[name]-[hash]',
  bundle: true,
  splitting: true,
  format: 'esm',
  platform: 'node',
  target: 'node22',
  packages: 'external',
  // Chained to tsc's maps: a stack trace read with --enable-source-maps names the TypeScript sources.
  sourcemap: true,
  // esbuild refuses to write over its input, dist/cli.js: the files are written below.
  write: false,
  logLevel: 'warning',
});
rmSync(`${dist}cli-chunks`, { recursive: true, force: true });
for (const { path, contents } of outputFiles) {
  mkdirSync(dirname(path), { recursive: true });
  writeFileSync(path, contents);
}
