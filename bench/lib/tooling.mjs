// Codegen timings through turbo, and the client package's size as size-limit reports it.
import { readFile, rm } from 'node:fs/promises';
import { run } from './processes.mjs';

const TURBO_ENV = { TURBO_TELEMETRY_DISABLED: '1', REDOCLY_TELEMETRY: 'off', REDOCLY_SUPPRESS_UPDATE_NOTICE: 'true' };

/**
 * Cold: `turbo run generate --force` (no cache read: every task of the generate graph runs, including
 * the builds it depends on). Cached: the same without --force, all tasks from the cache, timed by
 * hyperfine (median of runs after a warm-up); `npm run generate` adds npm's own start-up on top.
 */
export async function codegenTimes({ root, turbo, cachedRuns = 10 }) {
  const began = performance.now();
  await run(turbo, ['run', 'generate', '--force', '--output-logs=errors-only'], { cwd: root, env: TURBO_ENV });
  const coldSeconds = (performance.now() - began) / 1000;
  const cached = await hyperfine(root, `${turbo} run generate --output-logs=errors-only`, cachedRuns);
  const viaNpm = await hyperfine(root, 'npm run generate --silent', 3);
  return {
    coldSeconds,
    cachedTurboSeconds: cached.median,
    cachedTurboRuns: cachedRuns,
    cachedNpmRunSeconds: viaNpm.median,
  };
}

async function hyperfine(cwd, command, runs) {
  const exportFile = `/tmp/bench-hyperfine-${process.pid}.json`;
  await run(
    'hyperfine',
    ['--warmup', '1', '--runs', String(runs), '--style', 'none', '--export-json', exportFile, command],
    {
      cwd,
      env: TURBO_ENV,
    },
  );
  const [result] = JSON.parse(await readFile(exportFile, 'utf8')).results;
  await rm(exportFile);
  return result;
}

/** The client's runtime (with openapi-fetch), minified and gzipped, from its size-limit check. */
export async function clientSize({ root }) {
  const { stdout } = await run('npm', ['run', 'size', '--silent', '-w', '@platform-api/client', '--', '--json'], {
    cwd: root,
  });
  const [entry] = JSON.parse(stdout.slice(stdout.indexOf('[')));
  return { name: entry.name, bytes: entry.size, budgetBytes: entry.sizeLimit ?? null };
}
