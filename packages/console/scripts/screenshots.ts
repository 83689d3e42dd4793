// Regenerates the README's screenshots (screenshots/*.png): one emulator with a little state (a topic
// with messages, a folder, a pending fault, a frozen clock, an admin token), each view as a person would leave it.
// Run: npm run screenshots -w @platform-api/console (after npm run build).
import { mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import type { Page } from 'playwright-core';
import { createTopic, launchBrowser, packageDir, startPlatform, visit } from '../test/support/harness.js';

const outDir = join(packageDir, 'screenshots');
const SETTLED = { timeout: 15_000 };

// An admin token, as an emulator beyond loopback has: the Workspaces view asks for it.
const platform = await startPlatform({ adminToken: 'screenshots-admin-token' });
const browser = await launchBrowser();
try {
  const control = (method: string, path: string, body?: unknown) =>
    fetch(`${platform.server.url}/_emulator${path}`, {
      method,
      headers: { 'content-type': 'application/json' },
      ...(body !== undefined && { body: JSON.stringify(body) }),
    });
  // Back in time, not forward: the token the platform holds stays unexpired.
  await control('PUT', '/clock', { now: '2026-03-02T09:30:00Z', frozen: true });
  const topicId = await createTopic(platform, 'orders');
  for (const [order_id, amount] of [
    ['ORD-1001', 129.5],
    ['ORD-1002', 18],
    ['ORD-1003', 342.25],
  ] as const) {
    await platform.send('POST', `/api/v1/topics/${topicId}/publish`, { order_id, amount });
  }
  await control('POST', '/faults', { operation: 'publish_message', status: 429, retry_after: 2 });
  await platform.send('POST', `/api/v1/topics/${topicId}/publish`, { order_id: 'ORD-1004' });
  await platform.send('POST', `/api/v1/topics/${topicId}/consume`, { batch_size: 2 });
  await platform.send('POST', '/api/folders', { name: 'Sales operations' });
  await platform.send('POST', '/api/folders', { name: 'Finance' });
  await control('POST', '/faults', { operation: 'consume_messages', status: 500, code: 'TIMEOUT', times: 2 });

  await mkdir(outDir, { recursive: true });
  const shoot = async (page: Page, name: string) => {
    await page.screenshot({ path: join(outDir, `${name}.png`) });
    await page.close();
  };
  const open = async (view: string) => {
    const { page } = await visit(browser, `${platform.consoleUrl}#/${view.toLowerCase()}`);
    await page.getByRole('heading', { level: 1, name: view }).waitFor(SETTLED);
    return page;
  };

  let page = await open('Requests');
  await page
    .getByRole('button', { name: `/api/v1/topics/${topicId}/publish` })
    .first()
    .click();
  await page.locator('#request-detail h2').waitFor(SETTLED);
  await shoot(page, 'requests');

  page = await open('Topics');
  await page.getByRole('button', { name: 'orders', exact: true }).click();
  await page.getByText('{"order_id":"ORD-1003","amount":342.25}').waitFor(SETTLED);
  await page.getByLabel('order_id').fill('ORD-1005');
  await page.getByLabel('amount (optional)').fill('twelve');
  await page.getByRole('button', { name: 'Publish', exact: true }).click();
  await shoot(page, 'topics');

  page = await open('Resources');
  await page.getByLabel('Resource family').selectOption('folder');
  await page.getByRole('button', { name: 'Sales operations', exact: true }).click();
  await shoot(page, 'resources');

  page = await open('Faults');
  await page.getByText('consume_messages').first().waitFor(SETTLED);
  await page.getByLabel('Operation').fill('publish_message');
  await page.getByLabel('Status').fill('429');
  await shoot(page, 'faults');

  page = await open('Clock');
  await page.locator('[data-clock-now]').getByText('2026-03-02').waitFor(SETTLED);
  await shoot(page, 'clock');

  page = await open('State');
  await page.getByRole('button', { name: 'Reset emulator' }).click();
  await page.getByRole('dialog').waitFor(SETTLED);
  await shoot(page, 'state');

  page = await open('Workspaces');
  await page.getByRole('form', { name: "The emulator's admin token" }).waitFor(SETTLED);
  await shoot(page, 'workspaces');
  console.log(`Screenshots written to ${outDir}`);
} finally {
  await browser.close();
  await platform.close();
}
