// The live loop's docs: the live pages of @platform-api/docs (packages/docs/src/live.ts), written again
// for the APIs whose bundle changed. Each page ends with the loop's reload script (reload.js), which
// carries the page's name and version: the open page reloads once its own page is written again, and
// shows the last save's error as a banner until a save fixes it.
import { tsImport } from 'tsx/esm/api';

const live = await tsImport('../../packages/docs/src/live.ts', import.meta.url);

/** The markup that makes a page follow the loop. */
function reloadScript(page, version) {
  return `<script src="/_dev/reload.js" data-page="${page}" data-version="${version}"></script>`;
}

/** Writes Redoc's script into `dir`; `render` then writes the pages there. */
export async function loopDocs(dir) {
  await live.writeLiveRedocScript(dir);
  /** The version of each page (`management`, `index`): how often it was written. */
  const versions = {};
  /** What each page shows, to write only the pages that change. */
  const shown = new Map();

  async function write(page, shows, writePage) {
    if (shown.get(page) === shows) return false;
    versions[page] = (versions[page] ?? 0) + 1;
    await writePage(reloadScript(page, versions[page]));
    shown.set(page, shows);
    return true;
  }

  return {
    versions,
    /**
     * Writes the reference pages of `names` whose document changed, and the landing page when an API's
     * title, version or summary did; `documents` maps each API's name to its bundled document. Resolves
     * with the names of the pages written.
     */
    async render(names, documents) {
      const written = [];
      for (const name of names.filter((page) => live.API_PAGES.includes(page))) {
        const document = documents.get(name);
        if (await write(name, JSON.stringify(document), (end) => live.writeLivePage(dir, name, document, end)))
          written.push(name);
      }
      const all = live.API_PAGES.map((name) => documents.get(name)).filter(Boolean);
      const infos = JSON.stringify(all.map((document) => document.info));
      if (
        all.length === live.API_PAGES.length &&
        (await write('index', infos, (end) => live.writeLiveLandingPage(dir, all, end)))
      )
        written.push('index');
      return written;
    },
  };
}
