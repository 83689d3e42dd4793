// Writes the published packages' `engines` into their package.json while npm packs them (prepack:
// `add`, postpack: `remove`). They need Node.js 22.13 or later (the emulator's data dir uses
// node:sqlite, and CI runs their suites on 22.13: npm run test:node22), which the tarball says. The
// workspace's own package.json files leave it out: npm checks the engines of every workspace
// package at `npm ci`, which runs on the Node 20 the README bootstraps from (npm scripts then run on
// the Node 24 it installs), and would warn twice per package for a requirement that does not apply
// there. `npm test` runs the repository's checks (the registry suite packs too; the start test's
// build hashes every package.json) after every package's `lint:package` (turbo.json), so two packs
// of one package never overlap and no build sees a package.json mid-pack.
import { readFileSync, renameSync, writeFileSync } from 'node:fs';
import { pathToFileURL } from 'node:url';

export const PUBLISHED_ENGINES = { node: '>=22.13' };

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  const [action] = process.argv.slice(2);
  if (action !== 'add' && action !== 'remove') {
    console.error('usage: node published-engines.mjs add|remove (in the package directory)');
    process.exit(2);
  }
  const manifest = JSON.parse(readFileSync('package.json', 'utf8'));
  if (action === 'add') manifest.engines = PUBLISHED_ENGINES;
  else delete manifest.engines;
  // Replaced in one step: suites running meanwhile resolve the package through this file, and a file
  // rewritten in place can be read empty.
  writeFileSync('package.json.packing', `${JSON.stringify(manifest, null, 2)}\n`);
  renameSync('package.json.packing', 'package.json');
}
