// Bundles the command line: src/cli.ts and the emulator's modules it imports become one module, written
// over tsc's dist/cli.js, and chunks in dist/cli-chunks/ for what it imports only when used (Redis, the data
// dir, the snapshot commands). At start node then resolves, reads and links one file instead of about
// eighty (BENCHMARKS.md, start-up). The packages it imports stay outside, loaded from node_modules;
// the library (dist/index.js, the test kit) stays tsc's modules. Run by the package's build after tsc.
// Usage: node scripts/bundle-cli.mjs
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';

/**
 * node's built-ins imported statically, taken with process.getBuiltinModule instead. An ES import of
 * a built-in builds its module facade, which reads every export: node:fs's ReadStream and promises
 * getters load its streams, readline and the REPL's history; node:http's WebSocket loads undici. As a
 * CommonJS module inside the bundle, a built-in's members are read where they are used. A dynamic
 * import stays one (node:sqlite's, whose absence on an older Node is reported).
 */
const builtins = {
  name: 'builtins',
  setup(build) {
    build.onResolve({ filter: /^node:/ }, ({ path, kind }) =>
      kind === 'import-statement' ? { path, namespace: 'builtin' } : undefined,
    );
    build.onLoad({ filter: /.*/, namespace: 'builtin' }, ({ path }) => ({
      contents: `module.exports = process.getBuiltinModule(${JSON.stringify(path)});`,
      loader: 'js',
    }));
  },
};

const dist = fileURLToPath(new URL('../dist/', import.meta.url));
const { outputFiles } = await build({
  // From the sources (esbuild strips the types as tsc does): running this again gives the same files.
  entryPoints: { cli: fileURLToPath(new URL('../src/cli.ts', import.meta.url)) },
  outdir: dist,
  chunkNames: 'cli-chunks/[name]-[hash]',
  bundle: true,
  splitting: true,
  format: 'esm',
  platform: 'node',
  target: 'node22',
  packages: 'external',
  plugins: [builtins],
  // A stack trace read with --enable-source-maps names the TypeScript sources.
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
