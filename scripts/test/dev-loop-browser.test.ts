// The docs of `npm run dev` in Debian's chromium (driven by playwright-core, never a downloaded browser),
// on a temporary copy of the specs: every page opens without a script error and its search works; an
// open page reloads by itself after a save of its API (the others stay), shows the error banner after
// a broken save, and recovers after the next good one.
import { cpSync, existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { type BrowserContext, chromium, type Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
// @ts-expect-error: a plain-JS script without type declarations
import { startDevLoop } from '../dev/loop.mjs';

const repo = fileURLToPath(new URL('../..', import.meta.url));
const specDir = join(mkdtempSync(join(tmpdir(), 'dev-loop-browser-')), 'spec');
const chromiumPath = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
const chromiumArgs = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--no-first-run',
  '--disable-background-networking',
];
/** Redoc renders the management page in seconds on an idle machine; a loaded one takes longer. */
const RENDERED = { timeout: 120_000, interval: 100 };
const PAGES = ['event-streams', 'auth', 'management', 'emulator'];

let loop: { url: string; close(): Promise<void> };
let context: BrowserContext;
let userDataDir: string;

interface Visit {
  page: Page;
  errors: string[];
  offHost: string[];
}

beforeAll(async () => {
  if (!existsSync(chromiumPath)) {
    throw new Error(`Chromium not found at ${chromiumPath}. Install it with: sh scripts/install-chromium.sh`);
  }
  cpSync(join(repo, 'spec'), specDir, {
    recursive: true,
    filter: (source) => !/[/\\](node_modules|dist|released|test|\.turbo)$/.test(source),
  });
  loop = await startDevLoop({ specDir, emulatorArgs: ['--port', '0', '--log-level', 'silent'], log: () => {} });
  userDataDir = mkdtempSync(join(tmpdir(), 'dev-loop-chromium-'));
  context = await chromium.launchPersistentContext(userDataDir, { executablePath: chromiumPath, args: chromiumArgs });
}, 240_000);

afterAll(async () => {
  await context?.close();
  await loop?.close();
  rmSync(join(specDir, '..'), { recursive: true, force: true });
  if (userDataDir) rmSync(userDataDir, { recursive: true, force: true });
});

async function open(name: string): Promise<Visit> {
  const page = await context.newPage();
  const errors: string[] = [];
  const offHost: string[] = [];
  page.on('console', (message) => {
    if (message.type() === 'error') errors.push(message.text());
  });
  page.on('pageerror', (error) => errors.push(error.message));
  await page.route('**/*', (route) => {
    const { protocol, hostname } = new URL(route.request().url());
    if (['data:', 'blob:'].includes(protocol) || hostname === '127.0.0.1') return route.continue();
    offHost.push(route.request().url());
    return route.abort('blockedbyclient');
  });
  await page.goto(`${loop.url}/docs/${name}.html`);
  return { page, errors, offHost };
}

/** The page as the reader sees it: its text, including the collapsed parts of the sidebar. */
const text = (page: Page) => page.evaluate(() => document.body.textContent ?? '').catch(() => '');

/** Resolves once Redoc has rendered the page: its title heading shows. */
async function rendered(page: Page, title: RegExp): Promise<void> {
  await expect.poll(() => page.locator('#redoc h1').first().textContent(), RENDERED).toMatch(title);
}

/** Edits the first operation summary of a management file. */
function saveSummary(file: string, summary: string, extra = ''): void {
  const path = join(specDir, file);
  writeFileSync(path, `${readFileSync(path, 'utf8').replace(/^( {2}summary: ).*$/m, `$1${summary}`)}${extra}`);
}

describe('the docs under npm run dev, in chromium', { timeout: 300_000 }, () => {
  test.each(PAGES)('%s.html renders without a script error, and its search finds an operation', async (name) => {
    const visit = await open(name);
    const spec = JSON.parse(readFileSync(join(repo, 'spec', 'dist', `${name}.json`), 'utf8'));
    await rendered(visit.page, new RegExp(`^${spec.info.title.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}`));
    const summary: string = Object.values(spec.paths as Record<string, Record<string, { summary?: string }>>)
      .flatMap((item) => Object.values(item))
      .find((operation) => typeof operation?.summary === 'string')?.summary as string;
    // Searching needs the search box ready and Redoc's index of the page built (in a worker): typed again
    // while nothing is found.
    await visit.page.getByTestId('search-trigger').click();
    const input = visit.page.getByPlaceholder(/search/i);
    const results = visit.page.getByTestId('search-dialog').locator('[data-component-name="Search/SearchItem"]');
    const found = async () => {
      const texts = await results.allTextContents();
      if (texts.length === 0) await input.fill(summary);
      return texts.join('\n');
    };
    await expect.poll(found, { ...RENDERED, interval: 1000 }).toContain(summary);
    expect(visit.errors).toEqual([]);
    expect(visit.offHost).toEqual([]);
    await visit.page.close();
  });

  test('the landing page links every reference page', async () => {
    const visit = await open('index');
    for (const name of PAGES) expect(await visit.page.locator(`a[href="${name}.html"]`).isVisible()).toBe(true);
    expect(visit.errors).toEqual([]);
    await visit.page.close();
  });

  test('an open page reloads by itself after a save, shows the error banner after a broken one, and recovers', async () => {
    const management = await open('management');
    const auth = await open('auth');
    await rendered(management.page, /^Management API/);
    await rendered(auth.page, /^Token endpoint/);
    // Set on the pages as loaded now: a reload clears it.
    for (const { page } of [management, auth]) await page.evaluate(() => Object.assign(window, { notReloaded: true }));
    const stillLoaded = (page: Page) => page.evaluate(() => 'notReloaded' in window);

    saveSummary('management/paths/api@folders.yaml', 'List folders, as saved under the browser');
    await expect.poll(() => text(management.page), RENDERED).toContain('List folders, as saved under the browser');
    expect(await stillLoaded(management.page)).toBe(false);
    // Only the page of the API that changed is written again.
    expect(await stillLoaded(auth.page)).toBe(true);

    saveSummary('management/paths/api@folders.yaml', 'List folders, broken', 'broken: [\n');
    const banner = management.page.locator('#dev-loop-error');
    await expect.poll(() => banner.textContent().catch(() => ''), RENDERED).toMatch(/api@folders\.yaml:\d+:\d+/);
    await expect.poll(() => auth.page.locator('#dev-loop-error').isVisible(), RENDERED).toBe(true);

    const path = join(specDir, 'management/paths/api@folders.yaml');
    writeFileSync(
      path,
      readFileSync(path, 'utf8').replace('broken: [\n', '').replace('List folders, broken', 'List folders, fixed'),
    );
    await expect.poll(() => text(management.page), RENDERED).toContain('List folders, fixed');
    await expect.poll(() => banner.isVisible(), RENDERED).toBe(false);
    await expect.poll(() => auth.page.locator('#dev-loop-error').isVisible(), RENDERED).toBe(false);
    expect(management.errors).toEqual([]);
    expect(auth.errors).toEqual([]);
    await management.page.close();
    await auth.page.close();
  });
});
