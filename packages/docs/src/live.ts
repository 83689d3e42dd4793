// The reference pages of the spec author's live loop (`npm run dev`, scripts/dev/loop.mjs): the template,
// the Redoc and the options of the built pages (build.ts), rendered by the browser instead of on the
// server. `redocly build-docs` renders a page on the server and the browser renders it again when it
// hydrates it: for the management page that server render costs seconds at every save, writing a live
// page costs milliseconds. The live pages share one copy of Redoc's script, served beside them, and each
// ends with the markup the loop gives it (its reload script), before the page's own `</body>`.
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import {
  API_PAGES,
  escapeHtml,
  inlineOfflineAssets,
  redoclyDir,
  referenceTemplate,
  renderLandingPage,
  type SpecInfo,
  writeOfflinePage,
} from './build.js';

export { API_PAGES };

/** The Redoc that `redocly build-docs --inlineBundle` puts inside each built page. */
const redocScript = join(redoclyDir, 'lib/chunks/redoc.standalone.js');
/** Its name beside the live pages. */
export const LIVE_REDOC_SCRIPT = 'redoc.standalone.js';
/** What `redocly build-docs` hands Redoc in the built pages (their `__redoc_options`). */
export const REDOC_OPTIONS = { skipBundle: true, disableTelemetry: true };

export interface ApiDocument {
  info: SpecInfo;
}

/** Writes Redoc's script into the live pages' folder, with the built pages' inline logo. */
export async function writeLiveRedocScript(outDir: string): Promise<void> {
  await writeOfflinePage(join(outDir, LIVE_REDOC_SCRIPT), inlineOfflineAssets(await readFile(redocScript, 'utf8')));
}

/** Writes the reference page `name` (one of API_PAGES) of a bundled API document; `bodyEnd` goes last in its body. */
export async function writeLivePage(outDir: string, name: string, document: ApiDocument, bodyEnd = ''): Promise<void> {
  if (!(API_PAGES as readonly string[]).includes(name)) throw new Error(`No reference page for ${name}`);
  const template = await readFile(referenceTemplate, 'utf8');
  const redocHtml = `<div id="redoc"></div>
  <script type="module">
    import { init } from './${LIVE_REDOC_SCRIPT}';
    init(${scriptJson(document)}, ${JSON.stringify(REDOC_OPTIONS)}, document.getElementById('redoc'));
  </script>
  ${bodyEnd}`;
  const values: Record<string, string> = {
    title: escapeHtml(document.info.title),
    redocHead: '',
    redocHTML: redocHtml,
  };
  // A function as the replacement: the document's text may hold `$&` or `$'`, which a string would expand.
  const html = template.replace(/\{\{\{?(\w+)\}?\}\}/g, (_match, key: string) => values[key] ?? '');
  await writeOfflinePage(join(outDir, `${name}.html`), html);
}

/** Writes the landing page (index.html) of the four documents, in API_PAGES' order; `bodyEnd` goes last in its body. */
export async function writeLiveLandingPage(outDir: string, documents: ApiDocument[], bodyEnd = ''): Promise<void> {
  const html = await renderLandingPage(documents.map((document) => document.info));
  await writeOfflinePage(join(outDir, 'index.html'), beforeBodyEnd(html, bodyEnd));
}

/** `markup` inserted before the document's own `</body>`: the last one (a script may hold the text `</body>`). */
export function beforeBodyEnd(html: string, markup: string): string {
  const end = html.lastIndexOf('</body>');
  if (end < 0) throw new Error('The page has no </body>');
  return `${html.slice(0, end)}${markup}${html.slice(end)}`;
}

/** JSON that can sit inside a <script> element, as Redocly writes `__redoc_definition`. */
function scriptJson(value: unknown): string {
  return JSON.stringify(value)
    .replace(/</g, '\\u003c')
    .replace(/\u2028/g, '\\u2028')
    .replace(/\u2029/g, '\\u2029');
}
