// The live pages of `npm run dev` (src/live.ts) against the built ones: the same Redoc and options, and
// the loop's markup placed before the document's own </body>. The browser test of the live loop
// (scripts/test/dev-loop-browser.test.ts) opens them in chromium.
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { API_PAGES } from '../src/build.js';
import {
  beforeBodyEnd,
  LIVE_REDOC_SCRIPT,
  REDOC_OPTIONS,
  writeLiveLandingPage,
  writeLivePage,
  writeLiveRedocScript,
} from '../src/live.js';

const specDist = join(import.meta.dirname, '../../../spec/dist');
const distDir = join(import.meta.dirname, '../dist');
const MARKUP = '<script src="/_dev/reload.js" data-page="x" data-version="1"></script>';
let outDir: string;

beforeAll(async () => {
  outDir = await mkdtemp(join(tmpdir(), 'docs-live-'));
});

afterAll(async () => {
  await rm(outDir, { recursive: true, force: true });
});

const escapeRegExp = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
const documentOf = async (name: string) => JSON.parse(await readFile(join(specDist, `${name}.json`), 'utf8'));

describe('live pages', () => {
  it('end with the markup given, after the page script and before the document’s own </body>', async () => {
    for (const name of API_PAGES) {
      await writeLivePage(outDir, name, await documentOf(name), MARKUP);
      const html = await readFile(join(outDir, `${name}.html`), 'utf8');
      expect(html.slice(-300), name).toMatch(
        new RegExp(`</script>\\s*${escapeRegExp(MARKUP)}\\s*</body>\\s*</html>\\s*$`),
      );
      expect(html).toContain(`from './${LIVE_REDOC_SCRIPT}'`);
    }
  });

  it('hand Redoc the options and the Redoc script of the built pages', async () => {
    const built = await readFile(join(distDir, 'management.html'), 'utf8');
    expect(/const __redoc_options = (.*);$/m.exec(built)?.[1]).toBe(JSON.stringify(REDOC_OPTIONS));
    await writeLiveRedocScript(outDir);
    const script = await readFile(join(outDir, LIVE_REDOC_SCRIPT), 'utf8');
    // The built page inlines the same file, its `</script` escaped.
    expect(built).toContain(script.slice(0, 5000).replace(/<\/(script)/gi, '<\\/$1'));
    expect(script).not.toContain('cdn.redoc.ly');
  });

  it('keep a document text whose `$` signs a string replacement would expand', async () => {
    const document = await documentOf('auth');
    document.info.description = "Costs $' or $& or $1, in dollars.";
    await writeLivePage(outDir, 'auth', document);
    expect(await readFile(join(outDir, 'auth.html'), 'utf8')).toContain("Costs $' or $& or $1, in dollars.");
  });

  it('include a landing page that links every reference page, with the markup before its </body>', async () => {
    await writeLiveLandingPage(outDir, await Promise.all(API_PAGES.map(documentOf)), MARKUP);
    const html = await readFile(join(outDir, 'index.html'), 'utf8');
    for (const name of API_PAGES) expect(html).toContain(`<a href="${name}.html">`);
    expect(html).toMatch(new RegExp(`${escapeRegExp(MARKUP)}</body>`));
  });
});

describe('beforeBodyEnd', () => {
  it('inserts before the last </body>, not one inside a script', () => {
    const html = '<html><body><script>const page = "</body>";</script></body></html>';
    expect(beforeBodyEnd(html, '<i></i>')).toBe(
      '<html><body><script>const page = "</body>";</script><i></i></body></html>',
    );
  });
});
