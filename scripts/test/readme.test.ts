// What the READMEs tell a newcomer to rely on: the toolchain table names the versions the package.json
// files pin, and every curl command works as printed.
import { readFileSync } from 'node:fs';
import { expect, test } from 'vitest';

const repo = new URL('../../', import.meta.url);
const read = (path: string) => readFileSync(new URL(path, repo), 'utf8');
const MANIFESTS = [
  'package.json',
  'spec/package.json',
  'packages/client/package.json',
  'packages/mock-server/package.json',
  'scripts/package.json',
];
const READMES = ['README.md', 'packages/client/README.md', 'packages/mock-server/README.md'];

/** Every version range the workspace's package.json files declare, by package name. */
function declaredRanges(): Map<string, Set<string>> {
  const ranges = new Map<string, Set<string>>();
  for (const path of MANIFESTS) {
    const manifest = JSON.parse(read(path)) as Record<string, Record<string, string> | undefined>;
    for (const [name, range] of Object.entries({ ...manifest.dependencies, ...manifest.devDependencies })) {
      ranges.set(name, (ranges.get(name) ?? new Set()).add(range));
    }
  }
  return ranges;
}

test("the README's toolchain table names the pinned versions", () => {
  const table = read('README.md').split('## Toolchain pins')[1]?.split('\n## ')[0] ?? '';
  const rows = table.split('\n').filter((line) => line.startsWith('| ') && !line.startsWith('| Tool |'));
  const ranges = declaredRanges();
  const compared: string[] = [];
  for (const row of rows) {
    const [tools = '', pins = ''] = row
      .split('|')
      .slice(1, 3)
      .map((cell) => cell.trim());
    const names = tools.split(' / ').map((tool) => (tool === 'Node' ? 'node' : tool.toLowerCase()));
    const versions = pins.split(' / ').map((pin) => pin.split(' ')[0]);
    names.forEach((name, i) => {
      expect(ranges.get(name), `${name} in package.json`).toBeDefined();
      expect([...(ranges.get(name) ?? [])], `README pin of ${name}`).toContain(versions[i]);
      compared.push(name);
    });
  }
  expect(compared).toEqual(expect.arrayContaining(['node', 'typescript', '@biomejs/biome', 'turbo', 'vitest']));
});

test('curl commands with brackets in their URL turn off globbing (-g), or curl prints nothing with -s', () => {
  for (const path of READMES) {
    const commands = read(path)
      .split('\n')
      .filter((line) => /\bcurl\b/.test(line) && /https?:\/\/\S*[[\]{}]/.test(line));
    for (const command of commands) expect(command, path).toMatch(/\s(-g|--globoff)\s/);
  }
});
