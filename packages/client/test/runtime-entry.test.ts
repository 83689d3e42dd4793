import { readFile } from 'node:fs/promises';
import { describe, expect, it } from 'vitest';

const source = new URL('../src/', import.meta.url);

/** Every module the file imports at run time (`import type` excluded), followed through the relative ones. */
async function runtimeImports(file: string, seen = new Set<string>()): Promise<Set<string>> {
  if (seen.has(file)) return seen;
  seen.add(file);
  const text = await readFile(new URL(file, source), 'utf8');
  for (const [, specifier = ''] of text.matchAll(/^(?:import|export) (?!type )[^;]*? from '([^']+)';/gms)) {
    if (specifier.startsWith('./')) await runtimeImports(specifier.slice(2).replace(/\.js$/, '.ts'), seen);
    else seen.add(specifier);
  }
  return seen;
}

describe('the runtime entry (@platform-api/client)', () => {
  it('imports openapi-fetch, the conventions and its own modules only: no Node.js module, no CLI, no typegen', async () => {
    const modules = [...(await runtimeImports('index.ts'))];
    // The conventions are plain ES2022 (no Node.js API), as the runtime is.
    expect(modules.filter((m) => !m.endsWith('.ts')).sort()).toEqual([
      '@platform-api/spec/conventions',
      'openapi-fetch',
    ]);
    expect(modules).not.toContain('cli-program.ts');
    expect(modules).not.toContain('node.ts');
    expect(modules).not.toContain('typegen.ts');
  });

  it('is not where the CLI and the file store live', async () => {
    const cli = [...(await runtimeImports('cli.ts'))];
    expect(cli).toEqual(expect.arrayContaining(['commander', 'node:fs/promises', 'node.ts', 'typegen.ts', 'index.ts']));
  });
});
