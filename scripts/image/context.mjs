// Stages the build context of the Containerfile in the directory given: app/ is an installed layout of the
// emulator (node_modules/@platform-api/{mock-server,spec,docs,console} with their built files, and the emulator's
// production dependencies copied from this checkout's node_modules, so no registry is needed), data/ the
// empty --data-dir volume. Type declarations, TypeScript sources, source maps, markdown and the dependencies'
// own test folders are left out: the image only runs (and must stay under 200 MB).
// Usage: node scripts/image/context.mjs DIR   (after the packages are built; scripts/image.sh does both)
import {
  copyFileSync,
  existsSync,
  linkSync,
  lstatSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  readlinkSync,
  realpathSync,
  rmSync,
  symlinkSync,
} from 'node:fs';
import { basename, dirname, join, relative, resolve, sep } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = resolve(fileURLToPath(new URL('../..', import.meta.url)));
const out = process.argv[2];
if (!out) throw new Error('Usage: node scripts/image/context.mjs DIR');

/** The workspace packages the image holds, by folder; each becomes node_modules/NAME in the image. */
const WORKSPACES = ['packages/mock-server', 'spec', 'packages/docs', 'packages/console'];
/** What each must have built, or the image would not serve it. */
const BUILT = [
  'packages/mock-server/dist/cli.js',
  'spec/dist/event-streams.yaml',
  'packages/docs/dist/index.html',
  'packages/console/dist/index.html',
];
const NOT_RUN_FILE = /\.([cm]?ts|map|md|markdown)$/i;
const NOT_RUN_DIR = /^(test|tests|__tests__|\.github|benchmark)$/;

for (const file of BUILT) {
  if (!existsSync(join(root, file))) throw new Error(`${file} is missing: build first (npm run build)`);
}
const workspaceName = new Map(WORKSPACES.map((dir) => [join(root, dir), readManifest(join(root, dir)).name]));

rmSync(out, { recursive: true, force: true });
mkdirSync(join(out, 'data'), { recursive: true });

const staged = new Set();
for (const dir of workspaceName.keys()) stage(dir);
console.log(`image context: ${staged.size} packages staged in ${out}`);

/** Copies the package at `dir` (a real folder of this checkout) and, first time only, its runtime dependencies. */
function stage(dir) {
  if (staged.has(dir)) return;
  staged.add(dir);
  const manifest = readManifest(dir);
  const target = join(out, 'app', imagePath(dir));
  if (workspaceName.has(dir)) {
    // What `npm publish` would ship: package.json and its `files` (the built output).
    mkdirSync(target, { recursive: true });
    link(join(dir, 'package.json'), join(target, 'package.json'));
    // An entry written only while npm packs (the emulator's web/, a copy of the docs and the console) is
    // absent here: the image holds those packages themselves, beside the emulator's.
    for (const entry of manifest.files ?? ['dist']) {
      if (existsSync(join(dir, entry))) link(join(dir, entry), join(target, entry));
    }
  } else {
    // Nested node_modules are staged on their own, as the dependencies that need them are reached.
    link(dir, target, join(dir, 'node_modules'));
  }
  const required = Object.keys(manifest.dependencies ?? {});
  const optional = [
    ...Object.keys(manifest.optionalDependencies ?? {}),
    ...Object.keys(manifest.peerDependencies ?? {}),
  ];
  for (const name of [...required, ...optional]) {
    if (name.startsWith('@types/')) continue; // declarations only
    const found = resolvePackage(dir, name);
    if (found) stage(found);
    else if (required.includes(name) && !optional.includes(name)) {
      throw new Error(`${manifest.name} needs ${name}, which is not installed: run npm ci`);
    }
  }
}

/** Node's lookup: node_modules/NAME in the folder and each parent, as far as the checkout's root. */
function resolvePackage(from, name) {
  for (let dir = from; dir.startsWith(root); dir = dirname(dir)) {
    const candidate = join(dir, 'node_modules', name);
    if (existsSync(join(candidate, 'package.json'))) return realpathSync(candidate);
    if (dir === dirname(dir)) break;
  }
  return undefined;
}

/** Where a package of this checkout goes under app/: workspaces become installed packages, the rest keeps its path. */
function imagePath(dir) {
  for (const [workspace, name] of workspaceName) {
    if (dir === workspace || dir.startsWith(workspace + sep))
      return join('node_modules', name, relative(workspace, dir));
  }
  return relative(root, dir);
}

/**
 * Hard-links (on another file system: copies) the files the image runs from `source` to `target`, leaving
 * out `skip`: no data is written, so restaging takes seconds even on a busy disk.
 */
function link(source, target, skip) {
  const stats = lstatSync(source);
  if (stats.isDirectory()) {
    mkdirSync(target, { recursive: true });
    for (const name of readdirSync(source)) {
      const from = join(source, name);
      if (from !== skip && !(NOT_RUN_DIR.test(name) && lstatSync(from).isDirectory())) link(from, join(target, name));
    }
  } else if (stats.isSymbolicLink()) {
    symlinkSync(readlinkSync(source), target);
  } else if (!NOT_RUN_FILE.test(basename(source)) || /license/i.test(basename(source))) {
    try {
      linkSync(source, target);
    } catch (error) {
      if (error.code !== 'EXDEV') throw error;
      copyFileSync(source, target);
    }
  }
}

function readManifest(dir) {
  return JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8'));
}
