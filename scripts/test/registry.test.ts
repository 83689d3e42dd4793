// The published packages as a team gets them: from a registry. A local npm registry (verdaccio, pinned
// in scripts/registry, installed once into .cache/verdaccio) takes every published package, packed
// (`engines` written at pack time) and published; a fresh project outside the repository installs
// the client and the emulator by name, @platform-api/* from that registry only and everything else
// from the public registry through npm's cache (--prefer-offline). Then, in that project: a vitest
// suite on the test kit (scripts/registry/consumer), the client's examples and the emulator README's
// programs type-checked with `tsc --init`'s options by TypeScript 7 (what `npm i typescript`
// installs) and 6, the client's quick start run against the installed emulator, and the installed
// `platform-api-mock` serving its console and docs to chromium.
import { type ChildProcess, execFile, spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import { cpSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { chromium } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { PUBLISHED_ENGINES } from '../published-engines.mjs';

const repo = fileURLToPath(new URL('../..', import.meta.url));
const PUBLISHED = ['spec', 'packages/client', 'packages/mock-server', 'packages/testcontainers'];
/**
 * What a download of the emulator's package may weigh: its code, the console and docs it ships, the
 * checks of the bundled specs compiled at build time (dist/checks/, 1.7 MB unpacked, which spare each
 * start their compiling) and the bundled command line (dist/cli.js): 3.86 MB, 15.7 MB unpacked.
 */
const EMULATOR_TARBALL_BUDGET = { packed: 4.2e6, unpacked: 17e6 };
const chromiumPath = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';

const work = mkdtempSync(join(tmpdir(), 'registry-'));
const app = join(work, 'app');
const registryLog: string[] = [];
const children: ChildProcess[] = [];
let registry = '';
const timings: Record<string, number> = {};

const execute = promisify(execFile);
/** Runs a command to its end (8 minutes at most: an install beside the other suites), rejecting with its output when it fails. */
async function run(command: string, args: string[], cwd: string, env: NodeJS.ProcessEnv = process.env) {
  try {
    const { stdout } = await execute(command, args, { cwd, env, encoding: 'utf8', timeout: 480_000, maxBuffer: 64e6 });
    return stdout;
  } catch (error) {
    const { stdout = '', stderr = '' } = error as { stdout?: string; stderr?: string };
    throw new Error(`${command} ${args.join(' ')} failed in ${cwd}:\n${stdout}\n${stderr}`);
  }
}
async function timed<T>(step: string, body: () => Promise<T>): Promise<T> {
  const began = performance.now();
  try {
    return await body();
  } finally {
    timings[step] = Math.round(performance.now() - began);
  }
}
const json = (value: unknown) => `${JSON.stringify(value, null, 2)}\n`;

/** verdaccio as the lockfile pins it, in .cache/verdaccio: installed again only when the lockfile changed. */
async function installVerdaccio(): Promise<string> {
  const pinned = join(repo, 'scripts/registry');
  const dir = join(repo, '.cache/verdaccio');
  const lock = readFileSync(join(pinned, 'package-lock.json'), 'utf8');
  const installed = join(dir, 'node_modules/verdaccio/bin/verdaccio');
  if (!existsSync(installed) || readFileSync(join(dir, 'installed-lock.json'), 'utf8') !== lock) {
    rmSync(dir, { recursive: true, force: true });
    mkdirSync(dir, { recursive: true });
    cpSync(join(pinned, 'package.json'), join(dir, 'package.json'));
    cpSync(join(pinned, 'package-lock.json'), join(dir, 'package-lock.json'));
    await run('npm', ['ci', '--no-audit', '--no-fund', '--prefer-offline', '--ignore-scripts'], dir);
    writeFileSync(join(dir, 'installed-lock.json'), lock);
  }
  return installed;
}

async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  await new Promise((resolve) => server.close(resolve));
  return port;
}

/** Starts verdaccio with no uplink (it serves what is published to it, nothing else) on a free port. */
async function startRegistry(verdaccio: string): Promise<string> {
  const config = join(work, 'verdaccio.yaml');
  writeFileSync(
    config,
    json({
      storage: join(work, 'storage'),
      auth: { htpasswd: { file: join(work, 'htpasswd'), max_users: 10 } },
      uplinks: {},
      packages: { '@platform-api/*': { access: '$all', publish: '$authenticated' }, '**': { access: '$all' } },
      web: { enable: false },
      log: { type: 'stdout', format: 'pretty', level: 'warn' },
    }),
  );
  const url = `http://127.0.0.1:${await freePort()}/`;
  const child = spawn(process.execPath, [verdaccio, '--config', config, '--listen', url.slice(7, -1)], {
    cwd: work,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  children.push(child);
  child.stdout.on('data', (chunk) => registryLog.push(String(chunk)));
  child.stderr.on('data', (chunk) => registryLog.push(String(chunk)));
  // Ready once it answers its ping; a registry that exits (a port taken meanwhile) fails the suite with its log.
  const exited = new Promise<never>((_, reject) =>
    child.once('exit', (code) => reject(new Error(`verdaccio exited (${code}): ${registryLog.join('')}`))),
  );
  const pinged = async () => {
    for (let tries = 0; tries < 300; tries++) {
      if (
        await fetch(`${url}-/ping`).then(
          (answer) => answer.ok,
          () => false,
        )
      )
        return;
      await new Promise((resolve) => setTimeout(resolve, 200));
    }
    throw new Error(`verdaccio did not answer at ${url} within a minute: ${registryLog.join('')}`);
  };
  await Promise.race([pinged(), exited]);
  return url;
}

/** A user of the registry, as `npm adduser` makes one; the project's .npmrc holds its token. */
async function signUp(url: string): Promise<string> {
  const answer = await fetch(`${url}-/user/org.couchdb.user:ci`, {
    method: 'PUT',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ name: 'ci', password: 'ci-password-0', type: 'user', roles: [] }),
  });
  expect(answer.status, registryLog.join('')).toBe(201);
  return ((await answer.json()) as { token: string }).token;
}

/** `npm pack` of a published package, as npm reports it. */
async function pack(dir: string): Promise<Packed> {
  const [report] = JSON.parse(await run('npm', ['pack', '--json', '--pack-destination', work], join(repo, dir))) as [
    { filename: string; size: number; unpackedSize: number; files: { path: string; size: number }[] },
  ];
  const tarball = join(work, report.filename);
  const manifest = JSON.parse(await run('tar', ['-xzOf', tarball, 'package/package.json'], work)) as PackedManifest;
  return { tarball, manifest, size: report.size, unpackedSize: report.unpackedSize, files: report.files };
}

interface PackedManifest {
  name: string;
  version: string;
  engines?: { node?: string };
  dependencies?: Record<string, string>;
}
interface Packed {
  tarball: string;
  manifest: PackedManifest;
  size: number;
  unpackedSize: number;
  files: { path: string; size: number }[];
}

const packed: Packed[] = [];

beforeAll(async () => {
  const verdaccio = await timed('install verdaccio', installVerdaccio);
  registry = await timed('start the registry', () => startRegistry(verdaccio));
  const token = await signUp(registry);
  // The packs run one after the other: each writes its package.json for a moment (engines).
  for (const dir of PUBLISHED) packed.push(await timed(`pack ${dir}`, () => pack(dir)));
  mkdirSync(app, { recursive: true });
  // npm reads the project's .npmrc: @platform-api/* from the local registry, the rest from the public one.
  const host = registry.slice('http:'.length);
  writeFileSync(join(app, '.npmrc'), `@platform-api:registry=${registry}\n${host}:_authToken=${token}\n`);
  writeFileSync(join(app, 'package.json'), json({ name: 'team-project', private: true, type: 'module' }));
  await timed('publish', () =>
    Promise.all(packed.map(({ tarball }) => run('npm', ['publish', tarball, '--registry', registry], app))),
  );
  // As a team would: the packages by name, then its tools.
  await timed('install', () =>
    run(
      'npm',
      [
        'install',
        '--no-audit',
        '--no-fund',
        '--prefer-offline',
        '@platform-api/client',
        '@platform-api/mock-server',
        'vitest@~4.1.12',
        'typescript@^7',
        'typescript6@npm:typescript@^6',
        '@types/node@^22.13.0',
      ],
      app,
    ),
  );
  // About 3 minutes on an idle machine; 5 to 8 beside the other suites of npm test on two cores.
}, 900_000);

afterAll(async () => {
  for (const child of children) child.kill('SIGTERM');
  console.log(`registry suite, ms: ${JSON.stringify(timings)}`);
  // TypeScript twice, vitest and the emulator's dependencies: many files to remove.
  rmSync(work, { recursive: true, force: true });
}, 120_000);

describe('the packages published to a registry', () => {
  test('every published package declares engines, and names the others by real ranges', () => {
    expect(packed.map(({ manifest }) => manifest.name)).toEqual([
      '@platform-api/spec',
      '@platform-api/client',
      '@platform-api/mock-server',
      '@platform-api/testcontainers',
    ]);
    for (const { manifest } of packed) {
      expect(manifest.engines, manifest.name).toEqual(PUBLISHED_ENGINES);
      for (const [name, range] of Object.entries(manifest.dependencies ?? {})) {
        if (name.startsWith('@platform-api/'))
          expect(range, `${manifest.name} -> ${name}`).toMatch(/^\^\d+\.\d+\.\d+$/);
      }
    }
  });

  test("the emulator's tarball ships the console and the docs it serves, within its size budget", async () => {
    const { files, size, unpackedSize } = packed[2] as Packed;
    const paths = files.map((file) => file.path);
    for (const file of ['web/console/index.html', 'web/console/console.js', 'web/docs/index.html']) {
      expect(paths).toContain(file);
    }
    expect(paths.filter((path) => /^web\/docs\/[a-z-]+\.html$/.test(path))).toHaveLength(5);
    console.log(`@platform-api/mock-server tarball: ${size} bytes, ${unpackedSize} unpacked, ${files.length} files`);
    expect(size).toBeLessThan(EMULATOR_TARBALL_BUDGET.packed);
    expect(unpackedSize).toBeLessThan(EMULATOR_TARBALL_BUDGET.unpacked);
  });

  test('installed by name, the packages are the tarballs published, the spec along with the client and the emulator', () => {
    const lock = JSON.parse(readFileSync(join(app, 'package-lock.json'), 'utf8')) as {
      packages: Record<string, { version?: string; integrity?: string }>;
    };
    for (const { tarball, manifest } of packed.slice(0, 3)) {
      const integrity = `sha512-${createHash('sha512').update(readFileSync(tarball)).digest('base64')}`;
      expect(lock.packages[`node_modules/${manifest.name}`], manifest.name).toMatchObject({
        version: manifest.version,
        integrity,
      });
    }
    expect(lock.packages['node_modules/@platform-api/testcontainers']).toBeUndefined();
  });

  test('a vitest suite on the test kit passes: publish, consume, verify, a fault, the clock, reset', {
    timeout: 300_000,
  }, async () => {
    cpSync(join(repo, 'scripts/registry/consumer'), app, { recursive: true });
    const output = await timed('vitest suite', () =>
      run(process.execPath, ['node_modules/vitest/vitest.mjs', 'run'], app, { ...process.env, NO_COLOR: '1' }),
    );
    expect(output).toMatch(/Tests +4 passed \(4\)/);
    expect(output).toMatch(/^event-streams +2\/3 \(66\.6%\)/m);
    const coverage = JSON.parse(readFileSync(join(app, 'api-coverage.json'), 'utf8'));
    expect(coverage.apis[0].never_called).toEqual(['publish_messages_batch']);
  });

  test("the client's examples and the emulator README's programs type-check on TypeScript 7 and 6, and run", {
    timeout: 480_000,
  }, async () => {
    const src = join(app, 'src');
    // Every example of the client's README, with the generated topic type one of them imports, and the
    // emulator README's whole programs (its other snippets continue them); type-checked, not run.
    cpSync(join(repo, 'packages/client/examples'), src, { recursive: true });
    const emulatorReadme = readFileSync(join(repo, 'packages/mock-server/README.md'), 'utf8');
    // A program that imports what this project does not install (testcontainers, the reader's own
    // modules) is left to the packages that have them: the example suites type-check those.
    const installed = /^(node:|vitest$|@platform-api\/(client|mock-server|spec)(\/|$)|yaml$)/;
    const programs = [...emulatorReadme.matchAll(/```ts\n(.*?)```/gs)].flatMap(([, code = '']) => {
      const imports = [...code.matchAll(/^import .* from '([^']+)';/gm)].map(([, from = '']) => from);
      return imports.length > 0 && imports.every((from) => installed.test(from)) ? [code] : [];
    });
    expect(programs.length).toBeGreaterThan(2);
    for (const [i, code] of programs.entries()) writeFileSync(join(src, `mock-server-readme-${i + 1}.ts`), code);
    writeFileSync(join(src, 'run.ts'), RUNNER);
    writeFileSync(join(src, 'typed-management.ts'), TYPED_MANAGEMENT);
    const tsc7 = join(app, 'node_modules/typescript/bin/tsc');
    const tsc6 = join(app, 'node_modules/typescript6/bin/tsc');
    expect(await run('node', [tsc7, '--version'], app)).toMatch(/^Version 7\./);
    expect(await run('node', [tsc6, '--version'], app)).toMatch(/^Version 6\./);
    await run('node', [tsc7, '--init'], app);
    const tsconfig = readFileSync(join(app, 'tsconfig.json'), 'utf8');
    for (const option of ['"strict": true', '"exactOptionalPropertyTypes": true', '"noUncheckedIndexedAccess": true']) {
      expect(tsconfig).toContain(option);
    }
    // What a user adds to the defaults: Node's types (the examples read process.env), and where the
    // sources are (the vitest suite beside them runs under vitest, not tsc).
    const adapted = tsconfig.replace('"types": []', '"types": ["node"]').replace('{', '{\n  "include": ["src"],');
    writeFileSync(join(app, 'tsconfig.json'), adapted);
    const check = ['-p', '.', '--skipLibCheck', 'false', '--rootDir', 'src', '--outDir', 'dist'];
    // Side by side, one core each: TypeScript 6 (in JavaScript) takes about three times as long as 7.
    await Promise.all([
      timed('tsc 7', () => run('node', [tsc7, ...check, '--noEmit'], app)),
      timed('tsc 6', () => run('node', [tsc6, ...check], app)),
    ]);
    const output = await run('node', ['dist/run.js'], app);
    expect(output).toMatch(/^published \S+ and 120 more$/m);
    expect(output).toMatch(/^consumed 121 messages, last \S+$/m);
  });

  test('the installed platform-api-mock serves its console and docs to a browser, with no request unanswered', {
    timeout: 300_000,
  }, async () => {
    expect(existsSync(chromiumPath), `no chromium at ${chromiumPath}: sh scripts/install-chromium.sh`).toBe(true);
    const bin = join(app, 'node_modules/.bin/platform-api-mock');
    const child = spawn(bin, ['--port', '0', '--log-level', 'silent'], { cwd: app, stdio: ['ignore', 'pipe', 'pipe'] });
    children.push(child);
    let banner = '';
    child.stdout.on('data', (chunk) => (banner += chunk));
    child.stderr.on('data', (chunk) => (banner += chunk));
    await expect.poll(() => banner, { timeout: 60_000, interval: 100 }).toContain('Try it:');
    const url = /listening on (http:\/\/\S+)/.exec(banner)?.[1] ?? '';
    expect(banner).toContain(`  Console         ${url}/_emulator/console/\n`);
    expect(banner).toContain(`  Docs            ${url}/docs/\n`);
    const browser = await chromium.launch({
      executablePath: chromiumPath,
      args: ['--headless', '--no-sandbox', '--disable-gpu'],
    });
    try {
      const page = await browser.newPage();
      const failed: string[] = [];
      page.on('response', (response) => {
        if (response.status() >= 400) failed.push(`${response.status()} ${response.url()}`);
      });
      // Leaving the console ends its live feed of the journal (net::ERR_ABORTED): not a failure.
      page.on('requestfailed', (request) => {
        const reason = request.failure()?.errorText;
        if (reason !== 'net::ERR_ABORTED') failed.push(`${reason} ${request.url()}`);
      });
      await page.goto(`${url}/_emulator/console/`);
      await expect.poll(() => page.locator('h1').textContent(), { timeout: 30_000 }).toBe('Requests');
      await page.goto(`${url}/docs/`);
      await expect
        .poll(() => page.locator('a[href="event-streams.html"]').count(), { timeout: 30_000 })
        .toBeGreaterThan(0);
      await page.goto(`${url}/docs/event-streams.html`);
      // Redoc renders the page from the spec it embeds: its title heads it.
      const { title } = JSON.parse(readFileSync(join(repo, 'spec/dist/event-streams.json'), 'utf8')).info;
      await expect.poll(() => page.locator('#redoc h1').first().textContent(), { timeout: 60_000 }).toContain(title);
      expect(failed).toEqual([]);
      // Nothing the browser asked for (a page, a script, an icon) entered the request journal.
      const journal = (await (await fetch(`${url}/_emulator/requests`)).json()) as { total: number };
      expect(journal.total).toBe(0);
    } finally {
      await browser.close();
      child.kill('SIGTERM');
    }
  });
});

/** Starts the installed emulator, runs the client's quick start against it, stops it. */
const RUNNER = `import { startMockServer } from '@platform-api/mock-server';
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';

const emulator = await startMockServer();
try {
  const env = { ...process.env, AUTH_URL: emulator.url, PLATFORM_URL: emulator.url, CLIENT_ID: emulator.clientId, CLIENT_SECRET: emulator.clientSecret };
  // A child process, not execFileSync: the emulator in this process must keep answering.
  const { stdout } = await promisify(execFile)('node', ['dist/quick-start.js'], { env, timeout: 60_000 });
  process.stdout.write(stdout);
} finally {
  await emulator.close();
}
`;

/** Type-checked only: the packed client types a recipe's \`running\` as a boolean and refuses a string recipe id. */
const TYPED_MANAGEMENT = `import { createManagementClient } from '@platform-api/client';

const management = createManagementClient({ baseUrl: 'http://127.0.0.1:4010', auth: { token: 't' }, throwOnError: true });
export async function isRunning(id: number): Promise<boolean> {
  const { data } = await management.GET('/api/recipes/{id}', { params: { path: { id } } });
  const running: boolean = data.running;
  return running;
}
// @ts-expect-error a recipe id is a number
management.GET('/api/recipes/{id}', { params: { path: { id: '7821' } } });
`;
