// The build graph caches what did not change: no task hashes files that a task writes (it depends on
// that task instead), else a run's own outputs change the next run's hashes and it misses the cache.
import { execFileSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { expect, test } from 'vitest';

interface DryTask {
  taskId: string;
  directory: string;
  inputs: Record<string, string>;
  outputs: string[] | null;
}

test('no task of npm test or npm start has another task’s (or its own) outputs among its inputs', () => {
  const dry = execFileSync(
    'sh',
    [
      'scripts/turbo.sh',
      'run',
      'lint',
      'typecheck',
      'build',
      'test',
      'check:breaking',
      'lint:package',
      'size',
      '--dry=json',
    ],
    { cwd: fileURLToPath(new URL('../..', import.meta.url)), encoding: 'utf8', maxBuffer: 64 << 20 },
  );
  const tasks = (JSON.parse(dry) as { tasks: DryTask[] }).tasks;
  // Outputs are folder globs (`dist/**`, `src/generated/**`): a file under the folder is an output.
  const outputFolders = tasks.flatMap(({ directory, outputs }) =>
    (outputs ?? []).map((glob) => `${directory}/${glob.replace(/\*\*$/, '')}`),
  );
  const overlaps = tasks.flatMap(({ taskId, directory, inputs }) =>
    Object.keys(inputs)
      .map((file) => `${directory}/${file}`)
      .filter((path) => outputFolders.some((folder) => path.startsWith(folder)))
      .map((path) => `${taskId}: ${path}`),
  );
  expect(tasks.length).toBeGreaterThan(10);
  expect(overlaps).toEqual([]);
});
