// The spec author's live loop (npm run dev) on a temporary copy of the specs, with every reference page
// open in Debian's chromium: from a save of an operation of the management API to the emulator serving
// the new spec, and to the open management page showing it (reloaded by itself and rendered by Redoc),
// median of a few saves. Both are timed from just before the file is written. Each save starts from a
// settled machine, SETTLE_MS after the last one showed, as an author reads the page before saving
// again: saved back to back, a save shares the two cores with the last one's lint and with chromium
// still laying out and indexing the management page (938-2622 ms then, 1664 ms median).
import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { chromium } from 'playwright-core';
import { startDevLoop } from '../../scripts/dev/loop.mjs';
import { median } from './stats.mjs';

const EDITS = 5;
/** How long the bench lets the last save's lint and the browser's work end before the next save. */
const SETTLE_MS = 3000;
const PAGES = ['event-streams', 'auth', 'management', 'emulator'];
/** What the loop may take on a loaded machine before the bench gives up on a save. */
const PATIENCE = { timeout: 120_000, polling: 50 };

async function until(check) {
  const deadline = Date.now() + PATIENCE.timeout;
  while (!check()) {
    if (Date.now() > deadline) throw new Error('the live loop did not serve the save');
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

/** Opens a reference page and waits until Redoc has rendered it. */
async function openPage(browser, url) {
  const page = await browser.newPage();
  await page.goto(url);
  await page.waitForFunction(() => document.querySelector('#redoc h1'), null, PATIENCE);
  return page;
}

export async function devLoopTimes({ root, chromiumPath = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium' }) {
  const dir = mkdtempSync(join(tmpdir(), 'bench-dev-'));
  const specDir = join(dir, 'spec');
  cpSync(join(root, 'spec'), specDir, {
    recursive: true,
    filter: (source) => !/[/\\](node_modules|dist|released|test|\.turbo)$/.test(source),
  });
  const loop = await startDevLoop({ specDir, emulatorArgs: ['--port', '0', '--log-level', 'silent'], log: () => {} });
  const browser = await chromium.launch({ executablePath: chromiumPath, args: ['--headless', '--no-sandbox'] });
  try {
    const pages = new Map();
    for (const name of PAGES) pages.set(name, await openPage(browser, `${loop.url}/docs/${name}.html`));
    const file = join(specDir, 'management/paths/api@recipes.yaml');
    const original = readFileSync(file, 'utf8');
    const saves = [];
    for (let i = 1; i <= EDITS; i++) {
      const summary = `List recipes (edit ${i})`;
      await new Promise((resolve) => setTimeout(resolve, SETTLE_MS));
      const reloads = loop.status.reloads.length;
      const savedAt = Date.now();
      writeFileSync(file, original.replace('summary: List recipes', `summary: ${summary}`));
      await until(() => loop.status.reloads.length > reloads);
      const reload = loop.status.reloads.at(-1);
      await pages
        .get('management')
        .waitForFunction((text) => document.body.textContent?.includes(text), summary, PATIENCE);
      saves.push({
        emulatorMs: reload.servedAt - savedAt,
        docsMs: Date.now() - savedAt,
        written: reload.docsAt - savedAt,
      });
    }
    return {
      edits: EDITS,
      emulatorMs: median(saves.map((save) => save.emulatorMs)),
      docsMs: median(saves.map((save) => save.docsMs)),
      pageWrittenMs: median(saves.map((save) => save.written)),
      saves,
    };
  } finally {
    await browser.close();
    await loop.close();
    rmSync(dir, { recursive: true, force: true });
  }
}
