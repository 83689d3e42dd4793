// `npm run dev` on a temporary copy of the specs: each save reloads the running emulator (its state,
// tokens and keys kept, and the printed credentials too) and the docs, however the editor saves; a
// broken edit keeps the last good spec serving and names the file and line; the next good save recovers.
import { execFileSync } from 'node:child_process';
import { cpSync, mkdtempSync, readFileSync, renameSync, rmSync, unlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
// @ts-expect-error: a plain-JS script without type declarations
import { startDevLoop } from '../dev/loop.mjs';

interface Status {
  specVersion: number;
  error: string | null;
  pages: Record<string, number>;
}
interface DevLoop {
  url: string;
  status: Status;
  close(): Promise<void>;
}

const repo = fileURLToPath(new URL('../..', import.meta.url));
const specDir = join(mkdtempSync(join(tmpdir(), 'dev-loop-')), 'spec');
const logged: string[] = [];
let loop: DevLoop;
let credentials: { clientId: string; clientSecret: string };
let token: string;

/** Resolves once `check` holds; polled, without a deadline of its own (the test's timeout is the guard). */
async function until(check: () => boolean | Promise<boolean>): Promise<void> {
  while (!(await check())) await new Promise((resolve) => setTimeout(resolve, 100));
}

const pathOf = (file: string) => join(specDir, file);
const read = (file: string) => readFileSync(pathOf(file), 'utf8');

/** The file's text with `from` replaced by `to` (which must be there). */
function edited(file: string, from: string | RegExp, to: string): string {
  const text = read(file);
  if (typeof from === 'string' ? !text.includes(from) : !from.test(text)) throw new Error(`${file} has no '${from}'`);
  return text.replace(from, to);
}

function edit(file: string, from: string | RegExp, to: string): void {
  writeFileSync(pathOf(file), edited(file, from, to));
}

/** The bundled spec the running emulator serves. */
async function served(api = 'management'): Promise<string> {
  return (await fetch(`${loop.url}/_emulator/spec/${api}.json`)).text();
}

/** Resolves once the emulator serves a spec that holds `text` (and none of `gone`). */
async function untilServed(text: string, { api = 'management', gone = [] as string[] } = {}): Promise<void> {
  await until(async () => {
    const spec = await served(api);
    return spec.includes(text) && gone.every((old) => !spec.includes(old));
  });
}

async function accessToken(clientId: string, clientSecret: string): Promise<Response> {
  return fetch(`${loop.url}/oauth2/token`, {
    method: 'POST',
    headers: { authorization: `Basic ${Buffer.from(`${clientId}:${clientSecret}`).toString('base64')}` },
    body: new URLSearchParams({ grant_type: 'client_credentials' }),
  });
}

async function api(method: string, path: string, body?: unknown, bearer = token) {
  const response = await fetch(`${loop.url}${path}`, {
    method,
    headers: { authorization: `Bearer ${bearer}`, 'content-type': 'application/json' },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  return { status: response.status, body: await response.json().catch(() => undefined) };
}

/** The operation summary this test file edits, in the file that holds it. */
const FOLDERS = 'management/paths/api@folders.yaml';
const RECIPES = 'management/paths/api@recipes.yaml';
const PUBLISH = 'event-streams/paths/api@v1@topics@{topic_id}@publish.yaml';

/** Gives the first summary of `file` a new text, `marker` (quoted: it may hold `: `), and returns that file's new text. */
function withSummary(file: string, marker: string): string {
  return edited(file, /^( {2}summary: ).*$/m, `$1${JSON.stringify(marker)}`);
}

beforeAll(async () => {
  cpSync(join(repo, 'spec'), specDir, {
    recursive: true,
    filter: (source) => !/[/\\](node_modules|dist|released|test|\.turbo)$/.test(source),
  });
  // No credentials given: the emulator makes them up at the first start, and the loop keeps them.
  loop = await startDevLoop({
    specDir,
    emulatorArgs: ['--port', '0', '--log-level', 'silent'],
    log: (line: string) => {
      logged.push(line);
      if (process.env.DEV_LOOP_LOG) console.log(line);
    },
  });
  const banner = logged.find((line) => line.startsWith('Platform API emulator listening on')) ?? '';
  const field = (name: string) => new RegExp(`^\\s*${name}\\s+(\\S+)$`, 'm').exec(banner)?.[1] ?? '';
  credentials = { clientId: field('Client ID'), clientSecret: field('Client secret') };
  token = (
    (await (await accessToken(credentials.clientId, credentials.clientSecret)).json()) as { access_token: string }
  ).access_token;
}, 240_000);

afterAll(async () => {
  await loop?.close();
  rmSync(join(specDir, '..'), { recursive: true, force: true });
});

describe('npm run dev', { timeout: 240_000 }, () => {
  test("prints the emulator at the loop's own address, and the docs of every API are written", () => {
    const banner = logged.find((line) => line.startsWith('Platform API emulator listening on')) ?? '';
    expect(banner).toContain(`listening on ${loop.url}`);
    expect(credentials.clientId).toMatch(/\S/);
    expect(Object.keys(loop.status.pages).sort()).toEqual(['auth', 'emulator', 'event-streams', 'index', 'management']);
  });

  test('a new optional field is served after the save, and what was stored before is still there', async () => {
    const before = await api('POST', '/api/folders', { name: 'kept across reloads' });
    expect(before.status).toBe(200);
    edit(
      'management/components/schemas/Folder.yaml',
      '  created_at:\n',
      '  colour:\n    type: string\n    description: A colour for the folder.\n  created_at:\n',
    );
    await untilServed('A colour for the folder.');
    const spec = JSON.parse(await served());
    expect(spec.components.schemas.Folder.properties.colour).toMatchObject({ type: 'string' });
    const created = await api('POST', '/api/folders', { name: 'coloured', colour: 'teal' });
    expect(created.body).toMatchObject({ name: 'coloured', colour: 'teal' });
    const listed = await api('GET', '/api/folders');
    expect(listed.body).toContainEqual(expect.objectContaining({ id: before.body.id, name: 'kept across reloads' }));
  });

  test('the printed credentials, a token taken before a save and a key made before it work after it', async () => {
    const client = (await api('POST', '/api/v2/api_clients', { name: 'kept client' })).body.data;
    const key = (await api('POST', `/api/v2/api_clients/${client.id}/api_keys`, { name: 'kept key' })).body.data;
    const keyToken = ((await (await accessToken(key.client_id, key.auth_token)).json()) as { access_token: string })
      .access_token;
    writeFileSync(pathOf(FOLDERS), withSummary(FOLDERS, 'List folders, after a save'));
    await untilServed('List folders, after a save');

    expect((await api('GET', '/api/folders')).status).toBe(200);
    expect((await api('GET', '/api/folders', undefined, keyToken)).status).not.toBe(401);
    const again = await accessToken(credentials.clientId, credentials.clientSecret);
    expect(again.status).toBe(200);
    expect((await accessToken(key.client_id, key.auth_token)).status).toBe(200);
  });

  test('a new path answers after the save, and its docs page shows it', async () => {
    expect((await api('GET', '/api/folders_by_name')).status).toBe(404);
    const { management: page } = loop.status.pages;
    writeFileSync(
      pathOf('management/paths/api@folders_by_name.yaml'),
      read(FOLDERS)
        .replace(/\npost:[\s\S]*$/, '\n')
        .replace('operationId: list_folders', 'operationId: list_folders_by_name')
        .replace(/summary: .*/, 'summary: List folders again, under a new path'),
    );
    edit(
      'management/openapi.yaml',
      '  /api/folders:\n',
      '  /api/folders_by_name:\n    $ref: paths/api@folders_by_name.yaml\n  /api/folders:\n',
    );
    await until(async () => (await api('GET', '/api/folders_by_name')).status === 200);
    await until(() => (loop.status.pages.management ?? 0) > (page ?? 0));
    const html = await (await fetch(`${loop.url}/docs/management.html`)).text();
    expect(html).toContain('List folders again, under a new path');
    // The reload script is referenced in the page's body, after Redoc's own script.
    expect(html).toMatch(
      /<script src="\/_dev\/reload\.js" data-page="management" data-version="\d+"><\/script>\s*<\/body>/,
    );
  });

  test('a broken edit keeps the last good spec serving and names the file and line; the fix recovers', async () => {
    const { specVersion } = loop.status;
    const file = 'management/paths/api@folders_by_name.yaml';
    edit(file, 'operationId: list_folders_by_name', 'operationId: [list_folders_by_name');
    await until(() => loop.status.error !== null);
    expect(loop.status.error).toMatch(/api@folders_by_name\.yaml:\d+:\d+/);
    expect(loop.status.specVersion).toBe(specVersion);
    expect((await api('GET', '/api/folders_by_name')).status).toBe(200);
    const status = await (await fetch(`${loop.url}/_dev/status`)).json();
    expect(status.error).toBe(loop.status.error);

    edit(file, 'operationId: [list_folders_by_name', 'operationId: list_folders_by_name');
    await until(() => loop.status.error === null);
    expect((await api('GET', '/api/folders_by_name')).status).toBe(200);
  });

  test('a lint error keeps the last good spec serving, before any request meets the new one', async () => {
    expect(loop.status.error).toBeNull();
    // The first operation without its description: operation-description is an error in redocly.yaml.
    writeFileSync(
      pathOf(FOLDERS),
      withSummary(FOLDERS, 'Lint error: no description').replace(/^ {2}description: .*\n/m, ''),
    );
    await until(() => loop.status.error !== null);
    expect(loop.status.error).toMatch(/lint management[\s\S]*api@folders\.yaml:\d+:\d+.*operation-description/);
    expect(await served()).not.toContain('Lint error: no description');
    const fixed = withSummary(FOLDERS, 'List folders, linted again').replace(
      '\n  tags:',
      '\n  description: Lists folders.\n  tags:',
    );
    writeFileSync(pathOf(FOLDERS), fixed);
    await untilServed('List folders, linted again');
    expect(loop.status.error).toBeNull();
  });
});

describe('every way an editor saves reaches the emulator', { timeout: 240_000 }, () => {
  test('writing the file in place', async () => {
    writeFileSync(pathOf(RECIPES), withSummary(RECIPES, 'Saved in place'));
    await untilServed('Saved in place');
  });

  test('writing a temporary file and renaming it over the original (sed -i, safe write), then in place again', async () => {
    writeFileSync(`${pathOf(RECIPES)}.tmp`, withSummary(RECIPES, 'Saved through a rename'));
    renameSync(`${pathOf(RECIPES)}.tmp`, pathOf(RECIPES));
    await untilServed('Saved through a rename');
    // fs.watch lost the file at the rename: later saves went unseen.
    writeFileSync(pathOf(RECIPES), withSummary(RECIPES, 'Saved in place after the rename'));
    await untilServed('Saved in place after the rename');
  });

  test('renaming the original away, then writing a new file', async () => {
    const text = withSummary(RECIPES, 'Saved after a rename away');
    renameSync(pathOf(RECIPES), join(specDir, '..', 'recipes-away.yaml'));
    writeFileSync(pathOf(RECIPES), text);
    await untilServed('Saved after a rename away');
  });

  test("vim's backup and rename: the original renamed to file~, a new file written, the backup removed", async () => {
    const text = withSummary(RECIPES, 'Saved as vim saves');
    renameSync(pathOf(RECIPES), `${pathOf(RECIPES)}~`);
    writeFileSync(pathOf(RECIPES), text);
    unlinkSync(`${pathOf(RECIPES)}~`);
    await untilServed('Saved as vim saves');
    // A broken save after it is reported, and the fix after that recovers.
    writeFileSync(pathOf(RECIPES), `${text}broken: [\n`);
    await until(() => loop.status.error?.includes('api@recipes.yaml') ?? false);
    writeFileSync(pathOf(RECIPES), withSummary(RECIPES, 'Saved as vim saves, fixed').replace(/broken: \[\n$/, ''));
    await untilServed('Saved as vim saves, fixed');
    expect(loop.status.error).toBeNull();
  });

  test('a git checkout of several files of two APIs at once', async () => {
    const git = (...args: string[]) => execFileSync('git', args, { cwd: specDir, encoding: 'utf8' });
    git('init', '--quiet');
    git('-c', 'user.name=t', '-c', 'user.email=t@example.com', 'commit', '--quiet', '--allow-empty', '-m', 'empty');
    git('add', '.');
    git('-c', 'user.name=t', '-c', 'user.email=t@example.com', 'commit', '--quiet', '-m', 'before');
    const markers = ['Checked out: folders', 'Checked out: recipes'];
    writeFileSync(pathOf(FOLDERS), withSummary(FOLDERS, markers[0] ?? ''));
    writeFileSync(pathOf(RECIPES), withSummary(RECIPES, markers[1] ?? ''));
    writeFileSync(pathOf(PUBLISH), withSummary(PUBLISH, 'Checked out: publish'));
    git('add', '.');
    git('-c', 'user.name=t', '-c', 'user.email=t@example.com', 'commit', '--quiet', '-m', 'after');
    await untilServed('Checked out: publish', { api: 'event-streams' });
    await untilServed(markers[1] ?? '');

    git('checkout', '--quiet', 'HEAD~1', '--', '.');
    await untilServed('Saved as vim saves, fixed', { gone: markers });
    await until(async () => !(await served('event-streams')).includes('Checked out: publish'));
    git('checkout', '--quiet', 'HEAD', '--', '.');
    await untilServed(markers[0] ?? '');
    await untilServed(markers[1] ?? '');
    await untilServed('Checked out: publish', { api: 'event-streams' });
  });

  test('a burst of saves: the last one is served', async () => {
    for (let i = 1; i <= 10; i++) {
      writeFileSync(pathOf(RECIPES), withSummary(RECIPES, `Burst save ${i} of 10`));
      writeFileSync(pathOf(FOLDERS), withSummary(FOLDERS, `Burst save ${i} of 10, folders`));
    }
    await untilServed('Burst save 10 of 10', { gone: ['Burst save 9 of 10'] });
    await untilServed('Burst save 10 of 10, folders');
    expect(loop.status.error).toBeNull();
  });
});

describe('what the loop prints', () => {
  test('one line per step with its time, no NaN, and the emulator banner once', () => {
    const steps = logged.filter((line) => /^[✓✗] /.test(line));
    expect(steps.length).toBeGreaterThan(5);
    for (const step of steps) expect(step.split('\n')[0]).toMatch(/: \d+(\.\d)? (ms|s)\b/);
    expect(logged.join('\n')).not.toContain('NaN');
    expect(logged.filter((line) => line.includes('Platform API emulator listening on'))).toHaveLength(1);
  });
});
