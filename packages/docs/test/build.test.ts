import { mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { API_PAGES, buildDocs, remoteAssetUrls } from '../src/build.js';

describe('remoteAssetUrls', () => {
  it('finds remote scripts, style sheets, fonts and images, in markup and in bundled code', () => {
    const html = `
      <script src="https://cdn.example.net/redoc.standalone.js"></script>
      <link rel="stylesheet" href="https://fonts.googleapis.com/css?family=Montserrat:300,400,700">
      <style>@font-face { font-family: X; src: url(https://fonts.gstatic.com/s/x.woff2) format("woff2"); }</style>
      <script>const logo = \`https://cdn.redoc.ly/redoc/logo-mini-full.svg\`;</script>`;
    expect(remoteAssetUrls(html).sort()).toEqual([
      'https://cdn.example.net/redoc.standalone.js',
      'https://cdn.redoc.ly/redoc/logo-mini-full.svg',
      'https://fonts.googleapis.com/css?family=Montserrat:300,400,700',
      'https://fonts.gstatic.com/s/x.woff2',
    ]);
  });

  it('ignores links the reader may follow, server addresses and XML namespaces', () => {
    const html = `
      <a href="https://redocly.com/redoc/">API docs by Redocly</a>
      <a href="https://docs.workato.com/event-streams.html">Event streams</a>
      <svg xmlns="http://www.w3.org/2000/svg"></svg>
      <script>const servers = [{ url: "https://event-streams.workato.com" }];</script>`;
    expect(remoteAssetUrls(html)).toEqual([]);
  });
});

describe('buildDocs', () => {
  // dist was built by the `build` task that turbo runs before `test`.
  it('writes the same bytes as the previous build, so turbo can cache and restore dist', async () => {
    const distDir = join(import.meta.dirname, '../dist');
    const outDir = await mkdtemp(join(tmpdir(), 'docs-build-'));
    try {
      await buildDocs({ outDir });
      const files = (await readdir(outDir)).sort();
      expect(files).toEqual([...API_PAGES, 'index'].map((name) => `${name}.html`).sort());
      for (const file of files) {
        const [rebuilt, previous] = await Promise.all([readFile(join(outDir, file)), readFile(join(distDir, file))]);
        const hint = `${file} differs from dist/${file}: if it still does after \`npm run build -w @platform-api/docs\`, the build is not deterministic`;
        expect(rebuilt.equals(previous), hint).toBe(true);
      }
    } finally {
      await rm(outDir, { recursive: true, force: true });
    }
  });
});
