// Builds the console into dist/: one script (Preact and the emulator API's client bundled in,
// minified), one stylesheet and the page. Nothing is loaded from elsewhere: the console works offline.
import { copyFile, mkdir, rm } from 'node:fs/promises';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { type BuildOptions, build } from 'esbuild';

const packageDir = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const outDir = join(packageDir, 'dist');

await rm(outDir, { recursive: true, force: true });
await mkdir(outDir, { recursive: true });
const common: BuildOptions = {
  outdir: outDir,
  bundle: true,
  minify: true,
  legalComments: 'none',
  logLevel: 'warning',
  target: ['chrome120', 'firefox120', 'safari17'],
};
await Promise.all([
  build({
    ...common,
    entryPoints: { console: join(packageDir, 'src/app/main.tsx') },
    format: 'esm',
    platform: 'browser',
    jsx: 'automatic',
    jsxImportSource: 'preact',
  }),
  build({ ...common, entryPoints: { console: join(packageDir, 'src/app/styles.css') } }),
]);
await copyFile(join(packageDir, 'src/index.html'), join(outDir, 'index.html'));
