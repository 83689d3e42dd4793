// The Node versions the project states: `npm ci` on the README's bootstrap Node (20.19) meets no
// engines it does not satisfy, and the oldest Node CI runs the published packages' suites on is the
// one their packed engines name.
import { readdirSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { expect, test } from 'vitest';
import { PUBLISHED_ENGINES } from '../published-engines.mjs';

const repo = new URL('../../', import.meta.url);
const manifest = (dir: string) =>
  JSON.parse(readFileSync(new URL(`${dir}/package.json`, repo), 'utf8')) as {
    engines?: { node?: string };
    workspaces?: string[];
  };

test('no workspace package declares engines, which npm ci on the bootstrap Node would warn about', () => {
  const root = manifest('.');
  expect(root.engines).toEqual({ node: '>=20.19' });
  // Every workspace package, a new one too.
  const packages = readdirSync(new URL('packages', repo)).map((name) => `packages/${name}`);
  expect(packages).toContain('packages/testcontainers');
  for (const dir of ['spec', ...packages, 'scripts']) {
    expect(manifest(dir).engines, dir).toBeUndefined();
  }
});

test('CI runs the published suites on the oldest Node the published engines allow', () => {
  const script = readFileSync(fileURLToPath(new URL('scripts/test-node22.sh', repo)), 'utf8');
  const version = /^version=(\d+\.\d+)\.0$/m.exec(script)?.[1];
  expect(PUBLISHED_ENGINES).toEqual({ node: `>=${version}` });
});
