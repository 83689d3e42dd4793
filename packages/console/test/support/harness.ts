// What the browser suite and the screenshot script share: an emulator serving the built console, a
// token for its platform APIs, and Debian's chromium (driven by playwright-core; never a downloaded
// browser) that may reach this machine only.
import { existsSync } from 'node:fs';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { type MockServer, startMockServer } from '@platform-api/mock-server';
import { type BrowserContext, chromium, type Page } from 'playwright-core';

export const packageDir = resolve(import.meta.dirname, '../..');
export const distDir = join(packageDir, 'dist');
export const chromiumPath = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
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

/** An emulator with the console, and a bearer token for its platform APIs. */
export interface Platform {
  server: MockServer;
  consoleUrl: string;
  /** A request to the platform's APIs with the token, as a client of the emulator sends it. */
  send(method: string, path: string, body?: unknown): Promise<Response>;
  close(): Promise<void>;
}

/** `adminToken`: the emulator requires it for its fleet-level calls, as one beyond loopback does. */
export async function startPlatform({ adminToken }: { adminToken?: string } = {}): Promise<Platform> {
  if (!existsSync(join(distDir, 'index.html'))) {
    throw new Error('dist/index.html is missing. Build the console first: npm run build -w @platform-api/console');
  }
  const server = await startMockServer({ host: '127.0.0.1', port: 0, consoleDir: distDir, adminToken });
  const basic = Buffer.from(`${server.clientId}:${server.clientSecret}`).toString('base64');
  const tokenAnswer = await fetch(`${server.url}/oauth2/token`, {
    method: 'POST',
    headers: { authorization: `Basic ${basic}`, 'content-type': 'application/x-www-form-urlencoded' },
    body: 'grant_type=client_credentials',
  });
  const { access_token: token } = (await tokenAnswer.json()) as { access_token: string };
  return {
    server,
    consoleUrl: `${server.url}/_emulator/console/`,
    send: (method, path, body) =>
      fetch(`${server.url}${path}`, {
        method,
        headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
        ...(body !== undefined && { body: JSON.stringify(body) }),
      }),
    close: () => server.close(),
  };
}

/** Creates a topic through the management API; its id. */
export async function createTopic(platform: Platform, name: string): Promise<number> {
  const answer = await platform.send('POST', '/api/event_streams/topics', {
    name,
    schema: [
      { name: 'order_id', type: 'string' },
      { name: 'amount', type: 'number', optional: true },
      { name: 'placed_on', type: 'date', optional: true },
    ],
  });
  if (answer.status !== 201 && answer.status !== 200) throw new Error(`create_topic answered ${answer.status}`);
  return ((await answer.json()) as { id: number }).id;
}

export interface Browser {
  context: BrowserContext;
  close(): Promise<void>;
}

/** How long any page action or wait may take before the test fails: a guard against a hang, not a speed goal. */
export const ACTION_TIMEOUT_MS = 60_000;

export async function launchBrowser(): Promise<Browser> {
  const userDataDir = await mkdtemp(join(tmpdir(), 'console-chromium-'));
  const context = await chromium.launchPersistentContext(userDataDir, {
    executablePath: chromiumPath,
    args: chromiumArgs,
    acceptDownloads: true,
    viewport: { width: 1280, height: 860 },
  });
  // Playwright's own 30 s default would fail a click on a machine busy with every other suite.
  context.setDefaultTimeout(ACTION_TIMEOUT_MS);
  return {
    context,
    async close() {
      await context.close();
      await rm(userDataDir, { recursive: true, force: true });
    },
  };
}

export interface Visit {
  page: Page;
  /** Errors the page logged or threw (a 4xx answer aside). */
  consoleErrors: string[];
  /** Requests the page tried to send anywhere but this machine; all of them were aborted. */
  offHostRequests: string[];
}

/** Opens a page of the console; a request off this machine is aborted and noted. */
export async function visit(browser: Browser, url: string): Promise<Visit> {
  const page = await browser.context.newPage();
  const consoleErrors: string[] = [];
  const offHostRequests: string[] = [];
  page.on('console', (message) => {
    // The browser logs each 4xx answer; the refusals the tests provoke are shown by the page, and checked there.
    if (message.type() === 'error' && !/^Failed to load resource: .* status of 4\d\d/.test(message.text())) {
      consoleErrors.push(message.text());
    }
  });
  page.on('pageerror', (error) => consoleErrors.push(error.message));
  await page.route('**/*', (route) => {
    const requested = route.request().url();
    const { protocol, hostname } = new URL(requested);
    if (protocol === 'blob:' || protocol === 'data:' || hostname === '127.0.0.1') return route.continue();
    offHostRequests.push(requested);
    return route.abort('blockedbyclient');
  });
  await page.goto(url);
  return { page, consoleErrors, offHostRequests };
}

interface AxeViolation {
  id: string;
  impact: string | null;
  help: string;
  nodes: { target: string[] }[];
}

const axeSource = readFile(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8');

/** The page's axe-core violations of serious or critical impact, each as `rule: help (where)`. */
export async function seriousViolations(page: Page): Promise<string[]> {
  await page.addScriptTag({ content: await axeSource });
  const violations = await page.evaluate(async () => {
    const { axe } = window as unknown as { axe: { run(): Promise<{ violations: AxeViolation[] }> } };
    return (await axe.run()).violations;
  });
  return violations
    .filter((violation) => violation.impact === 'serious' || violation.impact === 'critical')
    .map((v) => `${v.id}: ${v.help} (${v.nodes.map((node) => node.target.join(' ')).join(', ')})`);
}
