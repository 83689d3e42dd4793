// The console in Debian's chromium against a real emulator: each view reached from the navigation (by
// keyboard too), driven as a person would, checked through the emulator's APIs, with no serious or
// critical axe-core violation and no request off this machine. Screenshots go to test-results/.
import { existsSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  ACTION_TIMEOUT_MS,
  type Browser,
  chromiumPath,
  createTopic,
  launchBrowser,
  type Platform,
  packageDir,
  seriousViolations,
  startPlatform,
  type Visit,
  visit,
} from './support/harness.js';

const screenshotDir = join(packageDir, 'test-results');
/**
 * A last-resort guard against a hang, for conditions the page reaches by itself: in CI, with every suite
 * running at once beside a process holding a core, a step that takes 0.3 s here took up to 20 s.
 */
const SETTLED = { timeout: ACTION_TIMEOUT_MS };
const VIEWS = ['Requests', 'Topics', 'Resources', 'Faults', 'Clock', 'State', 'Workspaces'] as const;
/** The emulator's admin token: required for its fleet-level calls, as beyond loopback (the other views need none). */
const ADMIN_TOKEN = 'console-admin-token';

const noChromium = !existsSync(chromiumPath);

describe.skipIf(noChromium)(
  `the web console in chromium${noChromium ? ` (skipped: no chromium at ${chromiumPath}; install it with sh scripts/install-chromium.sh)` : ''}`,
  () => {
    let platform: Platform;
    let browser: Browser;

    beforeAll(async () => {
      platform = await startPlatform({ adminToken: ADMIN_TOKEN });
      browser = await launchBrowser();
    });

    afterAll(async () => {
      await browser?.close();
      await platform?.close();
    });

    async function open(view: (typeof VIEWS)[number]): Promise<Visit> {
      const visited = await visit(browser, platform.consoleUrl);
      await visited.page.getByRole('link', { name: view, exact: true }).click();
      await visited.page.getByRole('heading', { level: 1, name: view }).waitFor(SETTLED);
      return visited;
    }

    /** No request off this machine, no error in the page, no serious accessibility problem; a screenshot. */
    async function finish({ page, consoleErrors, offHostRequests }: Visit, name: string) {
      expect(await seriousViolations(page)).toEqual([]);
      // The page's icon is the emulator's, never a 404 in the request journal.
      const icons = await platform.send('GET', '/_emulator/requests?path=/favicon.ico');
      expect(((await icons.json()) as { total: number }).total).toBe(0);
      expect(offHostRequests).toEqual([]);
      expect(consoleErrors).toEqual([]);
      await page.screenshot({ path: join(screenshotDir, `${name}.png`), fullPage: true });
      await page.close();
    }

    it('is linked from / and reached by keyboard: each view from the navigation, its heading focused', async () => {
      const home = await visit(browser, `${platform.server.url}/`);
      await home.page.getByRole('link', { name: 'Web console' }).click();
      await home.page.getByRole('navigation', { name: 'Views' }).waitFor(SETTLED);
      const { page } = home;
      for (const view of VIEWS) {
        const link = page.getByRole('navigation', { name: 'Views' }).getByRole('link', { name: view, exact: true });
        await link.focus();
        await page.keyboard.press('Enter');
        const heading = page.getByRole('heading', { level: 1, name: view });
        await heading.waitFor(SETTLED);
        await page.waitForFunction(() => document.activeElement?.tagName === 'H1', undefined, SETTLED);
        // Each view's accessibility is checked by its own test below, after it was used.
        expect(await link.getAttribute('aria-current')).toBe('page');
      }
      // Tab moves on from the view's heading to its first control.
      await page.keyboard.press('Tab');
      expect(await page.evaluate(() => document.activeElement?.closest('main') !== null)).toBe(true);
      await finish(home, 'navigation');
    });

    it('Requests: new rows appear live, filter, open with headers and bodies masked, copy as curl', async () => {
      const visited = await open('Requests');
      const { page } = visited;
      await page.getByText('Live', { exact: true }).waitFor(SETTLED);
      const topicId = await createTopic(platform, 'requests-view');
      const published = await platform.send('POST', `/api/v1/topics/${topicId}/publish`, { order_id: 'R-1' });
      expect(published.status).toBe(201);
      const rows = page.locator('tbody tr');
      // The page was not reloaded: the rows came from the journal's feed.
      await page.getByRole('button', { name: `/api/v1/topics/${topicId}/publish` }).waitFor(SETTLED);
      await page.getByRole('button', { name: '/oauth2/token' }).waitFor(SETTLED);

      await page.getByLabel('Operation').fill('publish_message');
      await page.waitForFunction(() => document.querySelectorAll('tbody tr').length === 1, undefined, SETTLED);
      await page.getByLabel('Operation').fill('');
      await page.getByLabel('Status').fill('4xx');
      await page.waitForFunction(() => document.querySelectorAll('tbody tr').length === 0, undefined, SETTLED);
      await page.getByLabel('Status').fill('201');
      await page.getByLabel('Client').fill(platform.server.clientId);
      expect(await rows.count()).toBeGreaterThanOrEqual(1);

      // By keyboard: the row's button takes the focus, Enter opens it.
      await page.getByRole('button', { name: `/api/v1/topics/${topicId}/publish` }).focus();
      await page.keyboard.press('Enter');
      const detail = page.locator('#request-detail');
      await detail.getByRole('heading', { level: 2 }).waitFor(SETTLED);
      const headers = await detail.getByRole('table', { name: 'Request headers' }).textContent();
      expect(headers).toContain('authorization');
      expect(headers).toContain('Bearer ***');
      expect(await detail.getByRole('region', { name: 'Request body' }).textContent()).toContain('"order_id": "R-1"');
      expect(await detail.getByRole('region', { name: 'Response body' }).textContent()).toContain('message_id');
      expect(await detail.getByRole('table', { name: 'Response headers' }).textContent()).toContain(
        'application/json; charset=utf-8',
      );

      await browser.context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: platform.server.url });
      await detail.getByRole('button', { name: 'Copy as curl' }).click();
      await detail.getByRole('status').waitFor(SETTLED);
      const curl = await detail.getByRole('region', { name: 'curl command' }).textContent();
      expect(curl).toMatch(new RegExp(`^curl -X POST '${platform.server.url}/api/v1/topics/${topicId}/publish' `));
      expect(curl).toContain(`-H "authorization: Bearer $TOKEN"`);
      expect(curl).toContain(`-H 'content-type: application/json'`);
      expect(curl).toMatch(/ --data-raw '\{"order_id":"R-1"\}'$/);
      expect(await page.evaluate(() => navigator.clipboard.readText())).toBe(curl);
      // The token request's secret is masked in the form it kept, and stays so in the command.
      await page.getByLabel('Client').fill('');
      await page.getByLabel('Status').fill('');
      await page.getByRole('button', { name: '/oauth2/token' }).first().click();
      const tokenCurl = await detail.getByRole('region', { name: 'curl command' }).textContent();
      expect(tokenCurl).not.toContain(platform.server.clientSecret);
      expect(await page.content()).not.toContain(platform.server.clientSecret);
      await finish(visited, 'requests');
    });

    it('Topics: a publish through the API appears in the live tail unasked; the form publishes, refusals inline', async () => {
      const topicId = await createTopic(platform, 'orders');
      // A consumer long-polling the topic, which the list shows; the first publish answers it.
      const polling = platform.send('POST', `/api/v1/topics/${topicId}/consume`, { timeout_secs: 60 });
      const waitingConsumers = async () => {
        const listed = (await (await fetch(`${platform.server.url}/_emulator/topics`)).json()) as {
          topics: { id: number; waiting_consumers: number }[];
        };
        return listed.topics.find((topic) => topic.id === topicId)?.waiting_consumers;
      };
      await expect.poll(waitingConsumers, SETTLED).toBe(1);
      const visited = await open('Topics');
      const { page } = visited;
      await page.getByText(`id ${topicId} · 1 consumer waiting`).waitFor(SETTLED);
      await page.getByRole('button', { name: 'orders', exact: true }).click();
      const tail = page.getByRole('log', { name: 'Messages of orders' });
      await tail.waitFor(SETTLED);
      await page.getByText('Following', { exact: true }).waitFor(SETTLED);
      // Live, not polled: the row comes over the stream the page opened before the publish, with no request
      // of the page's in between (a timed bound would measure how busy the machine is, not the console).
      const requestedSincePublish: string[] = [];
      page.on('request', (request) => requestedSincePublish.push(request.url()));
      const published = await platform.send('POST', `/api/v1/topics/${topicId}/publish`, { order_id: 'T-1' });
      expect(published.status).toBe(201);
      const { message_id: messageId } = (await published.json()) as { message_id: string };
      await tail.getByText('{"order_id":"T-1"}').waitFor(SETTLED);
      expect(requestedSincePublish).toEqual([]);
      const woken = (await (await polling).json()) as { messages: { message_id: string }[] };
      expect(woken.messages.map((m) => m.message_id)).toEqual([messageId]);
      await page.getByRole('button', { name: 'Refresh topics' }).click();
      await expect.poll(() => page.getByText('consumer waiting').count(), SETTLED).toBe(0);

      await page.getByLabel('amount (optional)').fill('twelve');
      await page.getByRole('button', { name: 'Publish', exact: true }).click();
      expect(await page.locator('#message-order_id-error').textContent()).toBe('Required');
      expect(await page.locator('#message-amount-error').textContent()).toBe('Must be a number');
      expect(await page.getByLabel('order_id').getAttribute('aria-invalid')).toBe('true');

      // A text field the emulator checks: its refusal is shown at the field.
      await page.getByLabel('order_id').fill('T-2');
      await page.getByLabel('amount (optional)').fill('12.5');
      await page.getByLabel('placed_on (optional)').fill('yesterday');
      await page.getByRole('button', { name: 'Publish', exact: true }).click();
      await page.locator('#message-placed_on-error').waitFor(SETTLED);
      expect(await page.getByLabel('placed_on (optional)').getAttribute('aria-invalid')).toBe('true');
      expect(await page.locator('#message-order_id-error').count()).toBe(0);
      await page.getByLabel('placed_on (optional)').fill('');
      await page.getByRole('button', { name: 'Publish', exact: true }).click();
      await tail.getByText('{"order_id":"T-2","amount":12.5}').waitFor(SETTLED);
      const consumed = await platform.send('POST', `/api/v1/topics/${topicId}/consume`, {});
      const { messages } = (await consumed.json()) as { messages: { payload: unknown }[] };
      expect(messages.map((m) => m.payload)).toEqual([{ order_id: 'T-1' }, { order_id: 'T-2', amount: 12.5 }]);
      await finish(visited, 'topics');
    });

    it('Resources: a folder created in the form is listed by the management API, its JSON shown, deleted', async () => {
      const visited = await open('Resources');
      const { page } = visited;
      // Before a family is picked: every family with its count, each a way in.
      await page.getByRole('heading', { name: 'All families' }).waitFor(SETTLED);
      const families = (await page.getByLabel('Resource family').locator('option').count()) - 1;
      expect(families).toBeGreaterThan(40);
      expect(await page.locator('table tbody tr').count()).toBe(families);
      await page.getByRole('button', { name: 'connection', exact: true }).click();
      await page.getByRole('heading', { name: 'Create a connection' }).waitFor(SETTLED);
      // Field help reads its Markdown: `salesforce` is code, not backticks.
      expect(await page.locator('#create-provider-hint code').allTextContents()).toEqual(['salesforce']);
      expect(await page.locator('#create-provider-hint').textContent()).not.toContain('`');
      await page.getByLabel('Resource family').selectOption('folder');
      await page.getByRole('heading', { name: 'Create a folder' }).waitFor(SETTLED);
      await page.getByLabel('name', { exact: true }).fill('Console folder');
      await page.getByRole('button', { name: 'Create', exact: true }).click();
      const item = page.getByRole('button', { name: 'Console folder', exact: true });
      await item.waitFor(SETTLED);
      const listed = (await (await platform.send('GET', '/api/folders')).json()) as { id: number; name: string }[];
      const folder = listed.find((candidate) => candidate.name === 'Console folder');
      expect(folder).toBeDefined();
      expect(await page.getByRole('region', { name: /^folder .* as JSON$/ }).textContent()).toContain(
        `"id": ${folder?.id}`,
      );
      await page.screenshot({ path: join(screenshotDir, 'resources-created.png'), fullPage: true });

      await page.getByRole('button', { name: 'Delete Console folder' }).click();
      await item.waitFor({ state: 'detached', ...SETTLED });
      const after = (await (await platform.send('GET', '/api/folders')).json()) as { name: string }[];
      expect(after.map((candidate) => candidate.name)).not.toContain('Console folder');

      // A create the management operation refuses (a parent that does not exist) shows why at the field.
      await page.getByLabel('name', { exact: true }).fill('Orphan');
      await page.getByLabel('parent_id (optional)').fill('999999');
      await page.getByRole('button', { name: 'Create', exact: true }).click();
      await page
        .locator('#create-parent_id-error')
        .getByText(/999999/)
        .waitFor(SETTLED);
      await finish(visited, 'resources');
    });

    it('Faults: a fault injected from the form is served to the next request, listed until then, cleared', async () => {
      const topicId = await createTopic(platform, 'faulty');
      const visited = await open('Faults');
      const { page } = visited;
      await page.getByLabel('Operation').fill('publish_message');
      await page.getByLabel('Status').fill('429');
      await page.getByLabel('Retry-After (optional)').fill('7');
      await page.getByRole('button', { name: 'Inject fault' }).click();
      const pending = page.getByRole('table', { name: /Pending faults/ });
      await pending.getByText('publish_message').waitFor(SETTLED);
      expect(await pending.textContent()).toContain('Retry-After 7 s');

      const failed = await platform.send('POST', `/api/v1/topics/${topicId}/publish`, { order_id: 'F-1' });
      expect([failed.status, failed.headers.get('retry-after')]).toEqual([429, '7']);
      await page.getByText('No fault is pending.').waitFor(SETTLED);
      const next = await platform.send('POST', `/api/v1/topics/${topicId}/publish`, { order_id: 'F-2' });
      expect(next.status).toBe(201);

      // A status the operation does not declare: the emulator's refusal is shown.
      await page.getByLabel('Operation').fill('publish_message');
      await page.getByLabel('Status').fill('418');
      await page.getByRole('button', { name: 'Inject fault' }).click();
      await page
        .getByRole('alert')
        .getByText(/declares no 418/)
        .waitFor(SETTLED);

      await page.getByLabel('Batch positions (optional)').fill('0, 2');
      await page.getByRole('button', { name: 'Inject fault' }).click();
      await pending.getByText('batch publish, positions 0, 2').waitFor(SETTLED);
      await page.screenshot({ path: join(screenshotDir, 'faults-pending.png'), fullPage: true });
      await page.getByRole('button', { name: 'Clear faults' }).click();
      await page.getByText('No fault is pending.').waitFor(SETTLED);
      const faults = (await (await fetch(`${platform.server.url}/_emulator/faults`)).json()) as object;
      expect(faults).toEqual({ faults: [], batch_faults: [] });
      await finish(visited, 'faults');
    });

    it('Clock: frozen, set and advanced from the page, as the emulator API reads it', async () => {
      const visited = await open('Clock');
      const { page } = visited;
      const clock = async () => (await (await fetch(`${platform.server.url}/_emulator/clock`)).json()) as object;
      await page.getByRole('button', { name: 'Freeze' }).click();
      await page.getByRole('button', { name: 'Unfreeze' }).waitFor(SETTLED);
      expect(await clock()).toMatchObject({ frozen: true });
      await page.getByLabel('Date and time').fill('2030-01-01T00:00:00Z');
      await page.getByRole('button', { name: 'Set time' }).click();
      await page.locator('[data-clock-now]').getByText('2030-01-01T00:00:00.000Z').waitFor(SETTLED);
      await page.getByLabel('Seconds').fill('90');
      await page.getByRole('button', { name: 'Advance' }).click();
      await page.locator('[data-clock-now]').getByText('2030-01-01T00:01:30.000Z').waitFor(SETTLED);
      expect(await clock()).toEqual({ now: '2030-01-01T00:01:30.000Z', frozen: true });
      await finish(visited, 'clock');
      await fetch(`${platform.server.url}/_emulator/clock`, { method: 'DELETE' });
    });

    it('State: exported as a download, imported from a file, reset after a confirmation', async () => {
      const visited = await open('State');
      const { page } = visited;
      const downloading = page.waitForEvent('download', SETTLED);
      await page.getByRole('button', { name: 'Export state' }).click();
      const download = await downloading;
      expect(download.suggestedFilename()).toBe('emulator-state.json');
      const exported = JSON.parse(await readFile((await download.path()) ?? '', 'utf8')) as {
        topics: { name: string }[];
      };
      expect(exported.topics.map((topic) => topic.name)).toContain('orders');

      await resetThroughDialog(page);
      const topicsAfterReset = (await (await fetch(`${platform.server.url}/_emulator/topics`)).json()) as {
        topics: unknown[];
      };
      expect(topicsAfterReset.topics).toEqual([]);

      await page.getByLabel('State document').setInputFiles((await download.path()) ?? '');
      await page.getByRole('button', { name: 'Import state' }).click();
      const dialog = page.getByRole('dialog');
      await dialog.getByRole('button', { name: 'Replace the state' }).click();
      await page
        .getByRole('status')
        .getByText(/Imported/)
        .waitFor(SETTLED);
      const restored = (await (await fetch(`${platform.server.url}/_emulator/topics`)).json()) as {
        topics: { name: string }[];
      };
      expect(restored.topics.map((topic) => topic.name)).toContain('orders');
      await finish(visited, 'state');
    });

    it('Workspaces: refused without the admin token, listed once it is entered, a wrong one said so', async () => {
      const made = await fetch(`${platform.server.url}/_emulator/workspaces`, {
        method: 'POST',
        headers: { authorization: `Bearer ${ADMIN_TOKEN}`, 'content-type': 'application/json' },
        body: JSON.stringify({ name: 'Team A', environments: ['dev', 'prod'] }),
      });
      expect(made.status).toBe(201);
      // From another view, so that every call of the Workspaces view is seen with the header it carried.
      const visited = await open('Clock');
      const { page } = visited;
      const sent: (string | null)[] = [];
      page.on('request', (request) => {
        if (new URL(request.url()).pathname === '/_emulator/workspaces')
          sent.push(request.headers().authorization ?? null);
      });
      await page.getByRole('link', { name: 'Workspaces', exact: true }).click();
      const form = page.getByRole('form', { name: "The emulator's admin token" });
      await form.waitFor(SETTLED);
      await page
        .getByRole('alert')
        .getByText(/needs the admin token/)
        .waitFor(SETTLED);
      const table = page.getByRole('table', { name: 'Workspaces' });
      expect(await table.count()).toBe(0);
      expect(await seriousViolations(page)).toEqual([]);

      const tokenField = page.getByLabel('Admin token', { exact: true });
      await tokenField.fill('not-the-admin-token');
      await page.getByRole('button', { name: 'Use the token' }).click();
      await form
        .getByRole('alert')
        .getByText('The emulator refused this admin token.', { exact: false })
        .waitFor(SETTLED);
      expect(await table.count()).toBe(0);

      await tokenField.fill(ADMIN_TOKEN);
      await page.getByRole('button', { name: 'Use the token' }).click();
      const teamA = table.getByRole('row', { name: /Team A/ });
      await teamA.waitFor(SETTLED);
      expect(await teamA.textContent()).toContain('dev, prod');
      expect(await form.count()).toBe(0);
      expect(sent).toEqual([null, 'Bearer not-the-admin-token', `Bearer ${ADMIN_TOKEN}`]);
      // Kept for this tab only: in sessionStorage, not in localStorage nor in the address.
      const kept = await page.evaluate(() => ({
        session: Object.values(sessionStorage),
        local: localStorage.length,
        address: location.href,
      }));
      expect(kept).toEqual({ session: [ADMIN_TOKEN], local: 0, address: `${platform.consoleUrl}#/workspaces` });

      // The tab asks no more, after a reload too; another tab asks for it once again.
      await page.reload();
      await teamA.waitFor(SETTLED);
      expect(await form.count()).toBe(0);
      const otherTab = await visit(browser, `${platform.consoleUrl}#/workspaces`);
      await otherTab.page.getByRole('form', { name: "The emulator's admin token" }).waitFor(SETTLED);
      await otherTab.page.close();
      await finish(visited, 'workspaces');
    });

    /** Reset asks first: Cancel (and Escape) change nothing; Reset resets. */
    async function resetThroughDialog(page: Page) {
      await page.getByRole('button', { name: 'Reset emulator' }).click();
      const dialog = page.getByRole('dialog', { name: 'Reset the emulator?' });
      await dialog.waitFor(SETTLED);
      expect(await page.evaluate(() => document.activeElement?.textContent)).toBe('Cancel');
      expect(await seriousViolations(page)).toEqual([]);
      await page.keyboard.press('Escape');
      await dialog.waitFor({ state: 'detached', ...SETTLED });
      const still = (await (await fetch(`${platform.server.url}/_emulator/topics`)).json()) as { topics: unknown[] };
      expect(still.topics.length).toBeGreaterThan(0);
      await page.screenshot({ path: join(screenshotDir, 'state-confirm.png') });
      await page.getByRole('button', { name: 'Reset emulator' }).click();
      await dialog.getByRole('button', { name: 'Reset', exact: true }).click();
      await page
        .getByRole('status')
        .getByText(/is reset/)
        .waitFor(SETTLED);
    }
  },
);
