// `npm run dev` on a temporary copy of the specs: each save reloads the running emulator (its state and
// credentials kept) and the docs; a broken edit keeps the last good spec serving and names the file and
// line; the next good save recovers.
import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
// @ts-expect-error: a plain-JS script without type declarations
import { startDevLoop } from '../dev/loop.mjs';

interface Status {
  specVersion: number;
  docsVersion: number;
  docsOf: number;
  error: string | null;
}
interface DevLoop {
  url: string;
  status: Status;
  docsRendered: Promise<void>;
  close(): Promise<void>;
}

const repo = fileURLToPath(new URL('../..', import.meta.url));
const specDir = join(mkdtempSync(join(tmpdir(), 'dev-loop-')), 'spec');
let loop: DevLoop;
let token: string;

/** Resolves once `check` holds; polled, without a deadline of its own (the test's timeout is the guard). */
async function until(check: () => boolean | Promise<boolean>): Promise<void> {
  while (!(await check())) await new Promise((resolve) => setTimeout(resolve, 50));
}

function edit(file: string, from: string, to: string): void {
  const path = join(specDir, file);
  const text = readFileSync(path, 'utf8');
  if (!text.includes(from)) throw new Error(`${file} has no '${from}'`);
  writeFileSync(path, text.replace(from, to));
}

async function api(method: string, path: string, body?: unknown) {
  const response = await fetch(`${loop.url}${path}`, {
    method,
    headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  return { status: response.status, body: await response.json().catch(() => undefined) };
}

beforeAll(async () => {
  cpSync(join(repo, 'spec'), specDir, {
    recursive: true,
    filter: (source) => !/[/\\](node_modules|dist|released|test|\.turbo)$/.test(source),
  });
  loop = await startDevLoop({
    specDir,
    emulatorArgs: ['--port', '0', '--client-id', 'dev', '--client-secret', 'dev-secret', '--log-level', 'silent'],
    log: (line: string) => process.env.DEV_LOOP_LOG && console.log(line),
  });
  const answer = await fetch(`${loop.url}/oauth2/token`, {
    method: 'POST',
    headers: { authorization: `Basic ${Buffer.from('dev:dev-secret').toString('base64')}` },
    body: new URLSearchParams({ grant_type: 'client_credentials' }),
  });
  token = ((await answer.json()) as { access_token: string }).access_token;
  await loop.docsRendered;
}, 120_000);

afterAll(async () => {
  await loop?.close();
  rmSync(join(specDir, '..'), { recursive: true, force: true });
});

describe('npm run dev', { timeout: 120_000 }, () => {
  test('a new optional field is served after the save, and what was stored before is still there', async () => {
    const before = await api('POST', '/api/folders', { name: 'kept across reloads' });
    expect(before.status).toBe(200);
    const version = loop.status.specVersion;
    edit(
      'management/components/schemas/Folder.yaml',
      '  created_at:\n',
      '  colour:\n    type: string\n    description: A colour for the folder.\n  created_at:\n',
    );
    await until(() => loop.status.specVersion > version);
    // The running emulator says which contract it loaded.
    const served = await (await fetch(`${loop.url}/_emulator/spec/management.json`)).json();
    expect(served.components.schemas.Folder.properties.colour).toMatchObject({ type: 'string' });
    const created = await api('POST', '/api/folders', { name: 'coloured', colour: 'teal' });
    expect(created.body).toMatchObject({ name: 'coloured', colour: 'teal' });
    const listed = await api('GET', '/api/folders');
    expect(listed.body).toContainEqual(expect.objectContaining({ id: before.body.id, name: 'kept across reloads' }));
  });

  test('a new path answers after the save, and its docs page shows it', async () => {
    expect((await api('GET', '/api/folders_by_name')).status).toBe(404);
    const { specVersion } = loop.status;
    writeFileSync(
      join(specDir, 'management/paths/api@folders_by_name.yaml'),
      readFileSync(join(specDir, 'management/paths/api@folders.yaml'), 'utf8')
        .replace(/\npost:[\s\S]*$/, '\n')
        .replace('operationId: list_folders', 'operationId: list_folders_by_name')
        .replace(/summary: .*/, 'summary: List folders again, under a new path'),
    );
    edit(
      'management/openapi.yaml',
      '  /api/folders:\n',
      '  /api/folders_by_name:\n    $ref: paths/api@folders_by_name.yaml\n  /api/folders:\n',
    );
    await until(() => loop.status.specVersion > specVersion);
    const listed = await api('GET', '/api/folders_by_name');
    expect(listed.status).toBe(200);
    await until(() => loop.status.docsOf > specVersion);
    const page = await (await fetch(`${loop.url}/docs/management.html`)).text();
    expect(page.includes('List folders again, under a new path')).toBe(true);
    expect(page.includes('/_dev/status')).toBe(true);
  });

  test('a broken edit keeps the last good spec serving and names the file and line; the fix recovers', async () => {
    const { specVersion } = loop.status;
    const file = 'management/paths/api@folders_by_name.yaml';
    edit(file, 'operationId: list_folders_by_name', 'operationId: [list_folders_by_name');
    await until(() => loop.status.error !== null);
    expect(loop.status.error).toMatch(/api@folders_by_name\.yaml/);
    expect(loop.status.error).toMatch(/\d+:\d+|line \d+/);
    expect(loop.status.specVersion).toBe(specVersion);
    expect((await api('GET', '/api/folders_by_name')).status).toBe(200);
    const status = await (await fetch(`${loop.url}/_dev/status`)).json();
    expect(status.error).toBe(loop.status.error);

    edit(file, 'operationId: [list_folders_by_name', 'operationId: list_folders_by_name');
    await until(() => loop.status.specVersion > specVersion);
    expect(loop.status.error).toBeNull();
    expect((await api('GET', '/api/folders_by_name')).status).toBe(200);
  });
});
