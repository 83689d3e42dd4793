// Consumer smoke test: packs the package, installs the tarball into a new project outside the
// workspace (openapi-fetch, typescript and @types/node come from the registry), type-checks the
// README's quick-start example there with skipLibCheck off, and runs it against the emulator.
// Usage: npm run test:consumer (builds first). Exits non-zero on any failure.
import { execFile, execFileSync } from 'node:child_process';
import { copyFile, mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { startMockServer } from '@platform-api/mock-server';

const packageDir = fileURLToPath(new URL('..', import.meta.url));
const work = await mkdtemp(join(tmpdir(), 'client-consumer-'));
const app = join(work, 'app');
const started = performance.now();

function run(command, args, options = {}) {
  console.log(`$ ${command} ${args.join(' ')}`);
  return execFileSync(command, args, { encoding: 'utf8', stdio: ['ignore', 'pipe', 'inherit'], ...options });
}

const json = (value) => `${JSON.stringify(value, null, 2)}\n`;

let emulator;
try {
  run('npm', ['run', 'build'], { cwd: packageDir });
  const tarball = join(work, run('npm', ['pack', '--silent', '--pack-destination', work], { cwd: packageDir }).trim());

  await mkdir(join(app, 'src'), { recursive: true });
  await writeFile(join(app, 'package.json'), json({ name: 'consumer-smoke', private: true, type: 'module' }));
  await writeFile(
    join(app, 'tsconfig.json'),
    json({
      compilerOptions: {
        target: 'ES2022',
        module: 'NodeNext',
        moduleResolution: 'NodeNext',
        strict: true,
        skipLibCheck: false,
        types: ['node'],
        outDir: 'dist',
      },
      include: ['src'],
    }),
  );
  await copyFile(join(packageDir, 'examples/quick-start.ts'), join(app, 'src/quick-start.ts'));
  // Installs share the npm cache with the workspace: take the same lock.
  run('flock', ['/tmp/npm.lock', 'npm', 'install', '--no-audit', '--no-fund', tarball, 'typescript@~5.9.3', '@types/node@^20.19.0'], { cwd: app });
  run(join(app, 'node_modules/.bin/tsc'), ['-p', '.'], { cwd: app });

  emulator = await startMockServer();
  // Asynchronously: the emulator runs in this process and must keep answering.
  console.log('$ node dist/quick-start.js');
  const { stdout: output } = await promisify(execFile)('node', ['dist/quick-start.js'], {
    cwd: app,
    timeout: 60_000,
    env: {
      ...process.env,
      AUTH_URL: emulator.url,
      PLATFORM_URL: emulator.url,
      CLIENT_ID: emulator.clientId,
      CLIENT_SECRET: emulator.clientSecret,
    },
  });
  process.stdout.write(output);
  if (!/^consumed 121 messages/m.test(output)) throw new Error('The example did not consume the 121 messages it published');
  console.log(`consumer smoke test passed in ${((performance.now() - started) / 1000).toFixed(1)} s`);
} finally {
  await emulator?.close();
  await rm(work, { recursive: true, force: true });
}
