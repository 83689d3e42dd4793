// The published package ships the front ends it serves (the web console and the rendered docs) in
// web/: npm pack runs this (prepack: `add`, postpack: `remove`), so that a project that installs
// @platform-api/mock-server from a registry gets the console and the docs its banner lists. In the
// repository web/ exists only while npm packs (it is gitignored); the emulator serves the workspace
// packages' dist/ folders. A pack without both builds fails, naming the one missing.
import { cpSync, existsSync, rmSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

/** The folders of web/ and the builds they are copied from. */
const WEB_FOLDERS = { console: '../console/dist', docs: '../docs/dist' };

const packageDir = new URL('../', import.meta.url);
const web = fileURLToPath(new URL('web', packageDir));
const [action] = process.argv.slice(2);
if (action === 'add') {
  rmSync(web, { recursive: true, force: true });
  for (const [name, from] of Object.entries(WEB_FOLDERS)) {
    const build = fileURLToPath(new URL(from, packageDir));
    if (!existsSync(`${build}/index.html`)) {
      console.error(`bundle-web: ${build} is not built; run npm run build at the repository root first`);
      process.exit(1);
    }
    cpSync(build, `${web}/${name}`, { recursive: true });
  }
} else if (action === 'remove') {
  rmSync(web, { recursive: true, force: true });
} else {
  console.error('usage: node scripts/bundle-web.mjs add|remove (in packages/mock-server)');
  process.exit(2);
}
