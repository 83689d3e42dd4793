// The published packages as a downstream team gets them: `npm pack` of spec, client and
// mock-server, installed as tarballs into a fresh project outside the workspace (everything else
// from the registry, the npm cache first), type-checked with the tsconfig of `tsc --init` (strict,
// exactOptionalPropertyTypes, noUncheckedIndexedAccess) and skipLibCheck off by TypeScript 7 (what
// `npm i typescript` installs) and 6, and run: the client's quick start against the emulator started
// from the installed package.
import { execFileSync } from 'node:child_process';
import { cpSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, expect, test } from 'vitest';

const repo = fileURLToPath(new URL('../..', import.meta.url));
const work = mkdtempSync(join(tmpdir(), 'consumer-'));
const app = join(work, 'app');
// Two TypeScripts and the emulator's dependencies: many files to remove.
afterAll(() => rmSync(work, { recursive: true, force: true }), 120_000);

const run = (command: string, args: string[], cwd: string) =>
  execFileSync(command, args, { cwd, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'], timeout: 240_000 });
const json = (value: unknown) => `${JSON.stringify(value, null, 2)}\n`;

/** Starts the installed emulator, runs the client's quick start against it, stops it. */
const runner = `import { startMockServer } from '@platform-api/mock-server';
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

/** Type-checked only: the packed client types a recipe's `running` as a boolean and refuses a string recipe id. */
const typedManagement = `import { createManagementClient } from '@platform-api/client';

const management = createManagementClient({ baseUrl: 'http://127.0.0.1:4010', auth: { token: 't' }, throwOnError: true });
export async function isRunning(id: number): Promise<boolean> {
  const { data } = await management.GET('/api/recipes/{id}', { params: { path: { id } } });
  const running: boolean = data.running;
  return running;
}
// @ts-expect-error a recipe id is a number
management.GET('/api/recipes/{id}', { params: { path: { id: '7821' } } });
`;

/** Type-checked only: the test kit's handle as a suite would use it. */
const testkit = `import { startEmulator } from '@platform-api/mock-server/testkit';

const { emulator, close } = await startEmulator();
try {
  await emulator.clock.advance(60);
  const sent = await emulator.expectRequest({ operation: 'publish_message', body: { order_id: 'A-1' } }, { atMost: 0 });
  console.log(sent.map((entry) => entry.response.status));
} finally {
  await close();
}
`;

/** The package.json inside a tarball made by `npm pack`. */
const packedManifest = (tarball: string) =>
  JSON.parse(run('tar', ['-xzOf', tarball, 'package/package.json'], work)) as { engines?: { node?: string } };

test('spec, client and mock-server install from their tarballs, type-check on TypeScript 7 and 6 and run together', {
  timeout: 300_000,
}, () => {
  const tarballs = ['spec', 'packages/client', 'packages/mock-server'].map((dir) =>
    join(
      work,
      run('npm', ['pack', '--silent', '--pack-destination', work], join(repo, dir)).trim().split('\n').at(-1) ?? '',
    ),
  );
  // The Node the code needs is in the tarballs (scripts/published-engines.mjs).
  expect(tarballs.map((tarball) => packedManifest(tarball).engines)).toEqual([
    { node: '>=22.13' },
    { node: '>=22.13' },
    { node: '>=22.13' },
  ]);
  mkdirSync(app, { recursive: true });
  writeFileSync(join(app, 'package.json'), json({ name: 'consumer', private: true, type: 'module' }));
  // Every example of the client's README, with the generated topic type one of them imports, and the
  // emulator README's whole programs (its other snippets continue them); type-checked, not run.
  cpSync(join(repo, 'packages/client/examples'), join(app, 'src'), { recursive: true });
  const emulatorReadme = readFileSync(join(repo, 'packages/mock-server/README.md'), 'utf8');
  // A program that imports what this consumer does not install (testcontainers, vitest, the reader's own
  // modules) is left to the packages that have them: the example suites type-check those.
  const installed = /^(node:|@platform-api\/(client|mock-server|spec)(\/|$)|yaml$)/;
  const programs = [...emulatorReadme.matchAll(/```ts\n(.*?)```/gs)].flatMap(([, code = '']) => {
    const imports = [...code.matchAll(/^import .* from '([^']+)';/gm)].map(([, from = '']) => from);
    return imports.length > 0 && imports.every((from) => installed.test(from)) ? [code] : [];
  });
  expect(programs.length).toBeGreaterThan(0);
  for (const [i, code] of programs.entries()) writeFileSync(join(app, `src/mock-server-readme-${i + 1}.ts`), code);
  writeFileSync(join(app, 'src/run.ts'), runner);
  writeFileSync(join(app, 'src/typed-management.ts'), typedManagement);
  writeFileSync(join(app, 'src/testkit.ts'), testkit);

  run(
    'npm',
    [
      'install',
      '--no-audit',
      '--no-fund',
      '--prefer-offline',
      ...tarballs,
      'typescript@^7',
      'typescript6@npm:typescript@^6',
      '@types/node@^22.13.0',
    ],
    app,
  );
  const tsc7 = join(app, 'node_modules/typescript/bin/tsc');
  const tsc6 = join(app, 'node_modules/typescript6/bin/tsc');
  expect(run('node', [tsc7, '--version'], app)).toMatch(/^Version 7\./);
  expect(run('node', [tsc6, '--version'], app)).toMatch(/^Version 6\./);
  run('node', [tsc7, '--init'], app);
  const tsconfig = readFileSync(join(app, 'tsconfig.json'), 'utf8');
  for (const option of ['"strict": true', '"exactOptionalPropertyTypes": true', '"noUncheckedIndexedAccess": true']) {
    expect(tsconfig).toContain(option);
  }
  // What a user adds to the defaults: Node's types (the examples read process.env).
  writeFileSync(join(app, 'tsconfig.json'), tsconfig.replace('"types": []', '"types": ["node"]'));
  const check = ['-p', '.', '--skipLibCheck', 'false', '--rootDir', 'src', '--outDir', 'dist'];
  run('node', [tsc7, ...check, '--noEmit'], app);
  run('node', [tsc6, ...check], app);
  const output = run('node', ['dist/run.js'], app);

  expect(output).toMatch(/^published \S+ and 120 more$/m);
  expect(output).toMatch(/^consumed 121 messages, last \S+$/m);
});
