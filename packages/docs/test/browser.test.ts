// Loads every built page in Debian's chromium (driven by playwright-core, never a downloaded browser)
// from a local server and checks that it renders its operations without errors and without network.
import { existsSync } from 'node:fs';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { extname, join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { type BrowserContext, chromium, type Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { API_PAGES } from '../src/build.js';

const packageDir = resolve(import.meta.dirname, '..');
const distDir = join(packageDir, 'dist');
const screenshotDir = join(packageDir, 'test-results');
const chromiumPath = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
const chromiumArgs = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
];

/** Redoc renders after a click; on a busy machine that takes longer than expect.poll's default second. */
const RENDER_TIMEOUT = { timeout: 60_000 };

let server: Server;
let baseUrl: string;
let userDataDir: string;
let context: BrowserContext;

beforeAll(async () => {
  if (!existsSync(chromiumPath)) {
    throw new Error(`Chromium not found at ${chromiumPath}. Install it with: sh scripts/install-chromium.sh`);
  }
  for (const name of [...API_PAGES, 'index']) {
    if (!existsSync(join(distDir, `${name}.html`))) {
      throw new Error(`dist/${name}.html is missing. Build the docs first: npm run build -w @platform-api/docs`);
    }
  }
  server = await serveDirectory(distDir);
  baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  userDataDir = await mkdtemp(join(tmpdir(), 'docs-chromium-'));
  context = await chromium.launchPersistentContext(userDataDir, { executablePath: chromiumPath, args: chromiumArgs });
  // Playwright's own 30 s default for each action would fail on a machine busy with every other suite.
  context.setDefaultTimeout(RENDER_TIMEOUT.timeout);
});

afterAll(async () => {
  await context?.close();
  await new Promise((done) => (server ? server.close(done) : done(undefined)));
  if (userDataDir) await rm(userDataDir, { recursive: true, force: true });
});

/** Serves the files of one directory, and nothing outside it, on a free loopback port. */
async function serveDirectory(root: string): Promise<Server> {
  const contentTypes: Record<string, string> = { '.html': 'text/html; charset=utf-8' };
  const httpServer = createServer(async (request, response) => {
    const path = new URL(request.url ?? '/', 'http://localhost').pathname;
    const file = resolve(root, `.${path === '/' ? '/index.html' : decodeURIComponent(path)}`);
    const body = file.startsWith(`${root}/`) ? await readFile(file).catch(() => undefined) : undefined;
    if (!body) return response.writeHead(404).end();
    response.writeHead(200, { 'content-type': contentTypes[extname(file)] ?? 'application/octet-stream' }).end(body);
  });
  await new Promise<void>((listening) => httpServer.listen(0, '127.0.0.1', listening));
  return httpServer;
}

interface PageVisit {
  page: Page;
  consoleErrors: string[];
  /** Requests the page tried to send anywhere but this machine; all of them were aborted. */
  offHostRequests: string[];
}

function isLocal(url: string) {
  const { protocol, hostname } = new URL(url);
  return protocol === 'file:' || protocol === 'data:' || protocol === 'blob:' || hostname === '127.0.0.1';
}

async function visit(url: string): Promise<PageVisit> {
  const page = await context.newPage();
  const consoleErrors: string[] = [];
  const offHostRequests: string[] = [];
  page.on('console', (message) => {
    if (message.type() === 'error') consoleErrors.push(message.text());
  });
  page.on('pageerror', (error) => consoleErrors.push(error.message));
  await page.route('**/*', (route) => {
    const requested = route.request().url();
    if (isLocal(requested)) return route.continue();
    offHostRequests.push(requested);
    return route.abort('blockedbyclient');
  });
  await page.goto(url);
  await settle(page);
  return { page, consoleErrors, offHostRequests };
}

/** Waits until lazy requests (fonts, images, scripts added at run time) have had their chance. */
async function settle(page: Page) {
  await page.waitForLoadState('networkidle');
}

async function expectCleanAndScreenshot({ page, consoleErrors, offHostRequests }: PageVisit, name: string) {
  await settle(page);
  expect(offHostRequests).toEqual([]);
  expect(consoleErrors).toEqual([]);
  await page.screenshot({ path: join(screenshotDir, `${name}.png`) });
  await page.close();
}

interface Operation {
  operationId?: string;
  summary?: string;
  tags?: string[];
}

type Paths = Record<string, Record<string, Operation>>;
/** The `paths` of the API description each page embeds, read once per page (the pages are megabytes). */
const embeddedPaths = new Map<string, Promise<Paths>>();

async function readEmbeddedPaths(name: string): Promise<Paths> {
  const html = await readFile(join(distDir, `${name}.html`), 'utf8');
  const definition = /const __redoc_definition = (.*);$/m.exec(html);
  if (!definition) throw new Error(`dist/${name}.html embeds no __redoc_definition; did the Redoc template change?`);
  return (JSON.parse(definition[1] ?? '') as { paths: Paths }).paths;
}

/** The operation with this id in the API description the page embeds, i.e. what Redoc rendered. */
async function embeddedOperation(name: string, operationId: string) {
  let pending = embeddedPaths.get(name);
  if (!pending) {
    pending = readEmbeddedPaths(name);
    embeddedPaths.set(name, pending);
  }
  const paths = await pending;
  const operation = Object.values(paths)
    .flatMap((pathItem) => Object.values(pathItem))
    .find((candidate) => candidate.operationId === operationId);
  if (!operation?.summary || !operation.tags?.[0])
    throw new Error(`${name}: no operation ${operationId} with a summary and a tag`);
  return { summary: operation.summary, tag: operation.tags[0] };
}

/** Opens the operation as a reader would (its group, then its entry in the sidebar) and checks its heading. */
async function openOperation(page: Page, name: string, operationId: string) {
  const { summary, tag } = await embeddedOperation(name, operationId);
  await page.getByRole('link', { name: tag, exact: true }).first().click();
  await page.locator(`a[href$="/${operationId}"]`).first().click();
  await expect.poll(() => page.url(), RENDER_TIMEOUT).toContain(`/${operationId}`);
  // Matched on the text: the heading's accessible name also holds its anchor link's label.
  const heading = page.getByRole('heading').filter({ hasText: new RegExp(`^${escapeRegExp(summary)}$`) });
  await expect.poll(() => heading.first().isVisible(), RENDER_TIMEOUT).toBe(true);
}

function escapeRegExp(text: string) {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

describe('rendered docs in chromium', () => {
  it('event-streams shows consume, batch publish and publish', async () => {
    const visited = await visit(`${baseUrl}/event-streams.html`);
    for (const operationId of ['consume_messages', 'publish_messages_batch', 'publish_message']) {
      await openOperation(visited.page, 'event-streams', operationId);
    }
    await expectCleanAndScreenshot(visited, 'event-streams');
  });

  it('auth shows the token request', async () => {
    const visited = await visit(`${baseUrl}/auth.html`);
    await openOperation(visited.page, 'auth', 'request_access_token');
    await expectCleanAndScreenshot(visited, 'auth');
  });

  it('management shows the Topics group and its operations', async () => {
    const visited = await visit(`${baseUrl}/management.html`);
    for (const operationId of ['list_topics', 'create_topic']) {
      await openOperation(visited.page, 'management', operationId);
    }
    await expectCleanAndScreenshot(visited, 'management');
  });

  it("management shows a resource's fields: get_recipe answers running, a boolean", async () => {
    const visited = await visit(`${baseUrl}/management.html`);
    await openOperation(visited.page, 'management', 'get_recipe');
    const operation = visited.page.locator('[data-section-id$="/get_recipe"]');
    await operation
      .getByRole('button', { name: /^200\b/ })
      .first()
      .click();
    // Redoc lays a field out as its name followed by its type.
    await expect.poll(() => operation.first().textContent(), RENDER_TIMEOUT).toMatch(/\brunning\s*boolean/);
    await visited.page.close();
  });

  it('the landing page links the three reference pages and shows the quick start', async () => {
    const visited = await visit(`${baseUrl}/index.html`);
    for (const name of API_PAGES) {
      expect(await visited.page.locator(`a[href="${name}.html"]`).isVisible(), `link to ${name}.html`).toBe(true);
    }
    const steps = await visited.page.locator('[data-quickstart="steps"]').textContent();
    for (const path of [
      '/oauth2/token',
      '/api/event_streams/topics',
      '/api/v1/topics/$TOPIC_ID/publish',
      '/api/v1/topics/$TOPIC_ID/consume',
    ]) {
      expect(steps).toContain(path);
    }
    await expectCleanAndScreenshot(visited, 'index');
  });

  it('the pages open as files: the landing page links lead to the rendered references', async () => {
    const indexUrl = pathToFileURL(join(distDir, 'index.html')).href;
    for (const name of API_PAGES) {
      const visited = await visit(indexUrl);
      await visited.page.locator(`a[href="${name}.html"]`).click();
      await settle(visited.page);
      expect(visited.page.url()).toBe(pathToFileURL(join(distDir, `${name}.html`)).href);
      await expect
        .poll(() => visited.page.locator('#redoc h1').first().textContent(), RENDER_TIMEOUT)
        .toMatch(/\(\d+\.\d+\.\d+\)$/);
      expect(visited.offHostRequests).toEqual([]);
      expect(visited.consoleErrors).toEqual([]);
      await visited.page.close();
    }
  });
});
