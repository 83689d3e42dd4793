// The published packages depend on each other by real ranges (`^1.7.1`, never `*`, which once
// published would accept any future major of the types they were built against), and changesets
// keeps those ranges right when it versions: run on a copy of the workspace's manifests and the
// repository's changesets config, `changeset version` moves a dependent's range to a new major of
// its dependency (and releases the dependent), and to the new version when both are released.
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, expect, test } from 'vitest';

const repo = fileURLToPath(new URL('../..', import.meta.url));
const WORKSPACES = ['spec', 'packages/client', 'packages/mock-server', 'packages/testcontainers'];

interface Manifest {
  name: string;
  version: string;
  private?: boolean;
  dependencies?: Record<string, string>;
  devDependencies?: Record<string, string>;
}
const manifestIn = (dir: string): Manifest => JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8'));
const published = WORKSPACES.map((dir) => manifestIn(join(repo, dir)));

const work = mkdtempSync(join(tmpdir(), 'changesets-'));
afterAll(() => rmSync(work, { recursive: true, force: true }));

test("each published package names another by a caret range on that package's version", () => {
  const versions = new Map(published.map(({ name, version }) => [name, version]));
  const internal = published.flatMap(({ name, dependencies = {} }) =>
    Object.entries(dependencies).flatMap(([dependency, range]) =>
      versions.has(dependency) ? [`${name} -> ${dependency}@${range}`] : [],
    ),
  );
  expect(internal).toEqual([
    `@platform-api/client -> @platform-api/spec@^${versions.get('@platform-api/spec')}`,
    `@platform-api/mock-server -> @platform-api/spec@^${versions.get('@platform-api/spec')}`,
    `@platform-api/testcontainers -> @platform-api/client@^${versions.get('@platform-api/client')}`,
    `@platform-api/testcontainers -> @platform-api/mock-server@^${versions.get('@platform-api/mock-server')}`,
  ]);
});

/** A workspace of the published packages' manifests with the repository's changesets config; `changeset version` there. */
function versionWith(name: string, changeset: Record<string, 'major' | 'minor' | 'patch'>): Map<string, Manifest> {
  const root = join(work, name);
  mkdirSync(join(root, '.changeset'), { recursive: true });
  writeFileSync(
    join(root, 'package.json'),
    JSON.stringify({ name: 'workspace', private: true, workspaces: WORKSPACES }),
  );
  writeFileSync(join(root, '.changeset/config.json'), readFileSync(join(repo, '.changeset/config.json')));
  for (const [i, dir] of WORKSPACES.entries()) {
    mkdirSync(join(root, dir), { recursive: true });
    const { name: packageName, version, dependencies } = published[i] as Manifest;
    writeFileSync(join(root, dir, 'package.json'), JSON.stringify({ name: packageName, version, dependencies }));
  }
  const bumps = Object.entries(changeset).map(([pkg, bump]) => `'${pkg}': ${bump}`);
  writeFileSync(join(root, '.changeset/change.md'), `---\n${bumps.join('\n')}\n---\n\nA change.\n`);
  const cli = join(repo, 'node_modules/@changesets/cli/bin.js');
  execFileSync(process.execPath, [cli, 'version'], { cwd: root, stdio: 'pipe', timeout: 60_000 });
  return new Map(WORKSPACES.map((dir) => [dir, manifestIn(join(root, dir))]));
}

test('changeset version moves the ranges to a new major of the spec, releasing its dependents', {
  timeout: 120_000,
}, () => {
  const [major] = (published[0] as Manifest).version.split('.');
  const next = `${Number(major) + 1}.0.0`;
  const after = versionWith('major', { '@platform-api/spec': 'major' });
  expect(after.get('spec')?.version).toBe(next);
  for (const dir of ['packages/client', 'packages/mock-server']) {
    expect(after.get(dir)?.dependencies?.['@platform-api/spec'], dir).toBe(`^${next}`);
    expect(after.get(dir)?.version, dir).not.toBe(published[WORKSPACES.indexOf(dir)]?.version);
  }
});

test('changeset version moves a released dependent to the version of its dependency released beside it', {
  timeout: 120_000,
}, () => {
  const after = versionWith('both', { '@platform-api/spec': 'minor', '@platform-api/client': 'minor' });
  const spec = after.get('spec')?.version;
  expect(after.get('packages/client')?.dependencies?.['@platform-api/spec']).toBe(`^${spec}`);
  const client = after.get('packages/client')?.version;
  expect(after.get('packages/testcontainers')?.dependencies?.['@platform-api/client']).toBe(`^${client}`);
});
