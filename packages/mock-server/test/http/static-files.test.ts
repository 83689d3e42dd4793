// Which build of the docs and the console the emulator serves: the workspace package's dist/ in the
// repository (also while npm packs, when web/ is a half-made copy), the copy in web/ once installed.
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { consoleSite, docsSite } from '../../src/http/static-files.js';
import { tempDir } from '../support/temp-dirs.js';

/** A folder holding `files` (paths relative to it), each with some HTML. */
function tree(files: string[]): string {
  const root = tempDir();
  for (const file of files) {
    mkdirSync(join(root, file, '..'), { recursive: true });
    writeFileSync(join(root, file), '<!doctype html>');
  }
  return root;
}

describe('the front ends served', () => {
  it("are the workspace packages' builds in the repository, even while web/ is being packed", () => {
    const packages = tree([
      'mock-server/web/docs/index.html',
      'mock-server/web/console/index.html',
      'docs/package.json',
      'docs/dist/index.html',
      'console/package.json',
      'console/dist/index.html',
    ]);
    const root = join(packages, 'mock-server');
    expect(docsSite(undefined, root).dir).toBe(join(packages, 'docs', 'dist'));
    expect(consoleSite(undefined, root).dir).toBe(join(packages, 'console', 'dist'));
  });

  it('are the copies the package ships in web/ once installed, with nothing beside it', () => {
    const modules = tree(['mock-server/web/docs/index.html', 'mock-server/web/console/index.html']);
    const root = join(modules, 'mock-server');
    expect(docsSite(undefined, root).dir).toBe(join(root, 'web', 'docs'));
    expect(consoleSite(undefined, root).dir).toBe(join(root, 'web', 'console'));
  });

  it('are none, saying how to get them, when neither is there', () => {
    const packages = tree(['docs/package.json']);
    const site = docsSite(undefined, join(packages, 'mock-server'));
    expect(site.dir).toBeUndefined();
    expect(site.notBuilt).toContain('run `npm run build` at the repository root');
  });
});
