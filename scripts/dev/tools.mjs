// The tools the live loop runs (turbo for the build at start and the regenerate after a save), and what
// it says of them: one line per step with its time, and for a failing step the problems with their file
// and line, not the tool's whole output.
import { spawn } from 'node:child_process';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { stripVTControlCharacters } from 'node:util';

export const repoDir = resolve(dirname(fileURLToPath(import.meta.url)), '..', '..');
const TOOL_ENV = {
  ...process.env,
  PATH: `${join(repoDir, 'node_modules', '.bin')}:${process.env.PATH}`,
  REDOCLY_TELEMETRY: 'off',
  REDOCLY_SUPPRESS_UPDATE_NOTICE: 'true',
  NO_COLOR: '1',
  FORCE_COLOR: '0',
};

/** Runs turbo (through scripts/turbo.sh) in the repository; resolves with its exit code and output, never rejects. */
export function turbo(args, { lowPriority = false } = {}) {
  const command = ['sh', join(repoDir, 'scripts', 'turbo.sh'), ...args];
  // A background regenerate yields the CPU to the next save's lint, bundle and restart.
  return run(lowPriority ? ['nice', '-n', '10', ...command] : command);
}

/** `{ code, output, child }`: `child` to stop it, `done` resolves with the code and output. */
function run([command, ...args]) {
  const child = spawn(command, args, { cwd: repoDir, env: TOOL_ENV, stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  const collect = (chunk) => {
    output += chunk;
  };
  child.stdout.on('data', collect);
  child.stderr.on('data', collect);
  const done = new Promise((finished) => {
    child.on('error', (error) => finished({ code: 1, output: String(error) }));
    child.on('close', (code, signal) => finished({ code: code ?? 1, signal, output }));
  });
  return { child, done };
}

/** `212 ms`, `3.4 s`. */
export function duration(ms) {
  return ms < 1000 ? `${Math.round(ms)} ms` : `${(ms / 1000).toFixed(1)} s`;
}

/** A file and line as tools print them: `spec/x.yaml:12:3`, `src/a.ts(12,3)`, `src/a.ts:12`. */
const LOCATION = /([\w@{}./-]+\.(?:ya?ml|json|[cm]?[jt]sx?))(?::(\d+)(?::(\d+))?|\((\d+),(\d+)\))/;
/** Turbo's prefix of a task's lines: `@platform-api/spec:build: `. */
const TASK_PREFIX = /^(@[\w.-]+\/)?[\w.-]+:[a-z][\w:-]*: ?/i;
/** Lines that are a tool's own narration, not a problem: npm's and turbo's, and a code frame's. */
const NOISE =
  /^(npm (error|ERR!|warn)|\s*ERROR\s+(run failed|command)|\s*(Tasks|Cached|Time|Failed):|\s*•|>|\s*\d*\s*\|)/;

/**
 * The problems in a failed tool's output, one per line with the file and line first (at most `limit`):
 * turbo's task prefixes, npm's and turbo's own lines and code frames left out. Without any file and
 * line, the lines that say `error`.
 */
export function toolProblems(output, limit = 10) {
  const lines = stripVTControlCharacters(output)
    .split('\n')
    .map((line) => line.replace(TASK_PREFIX, '').trimEnd())
    .filter((line) => line.trim() && !NOISE.test(line));
  const problems = [];
  for (const [i, line] of lines.entries()) {
    const found = LOCATION.exec(line);
    if (!found) continue;
    const row = found[2] ?? found[4];
    const column = found[3] ?? found[5];
    const where = `${found[1]}${row ? `:${row}` : ''}${column ? `:${column}` : ''}`;
    // Redocly writes the message on the line after the location; tsc and most others on the same line.
    const rest = line
      .slice(found.index + found[0].length)
      .replace(/^[\s:]+/, '')
      .trim();
    const message = /\w{3}/.test(rest.replace(/^at #\S*/, '')) ? rest : (lines[i + 1]?.trim() ?? '');
    const problem = `${where}  ${message}`.trimEnd();
    if (!problems.includes(problem)) problems.push(problem);
  }
  if (problems.length === 0) problems.push(...lines.filter((line) => /error/i.test(line)).map((line) => line.trim()));
  return problems.slice(0, limit);
}

/**
 * A task that runs in the background, one run at a time: `schedule(at)` while it runs makes it run once
 * more after it (with the earliest time scheduled meanwhile); `stop` ends the run under way. The task is
 * given the time and `track(child)`, the process to end on `stop`.
 */
export function backgroundTask(task) {
  let running;
  let next;
  let child;
  const track = (process) => {
    child = process;
  };
  return {
    schedule(at) {
      if (running) {
        next ??= at;
        return;
      }
      running = (async () => {
        let current = at;
        while (current !== undefined) {
          await task(current, track);
          current = next;
          next = undefined;
        }
      })().finally(() => {
        running = undefined;
      });
    },
    async stop() {
      next = undefined;
      child?.kill('SIGTERM');
      await running;
    },
  };
}

/** Settles with how long `promise` took, and its value or its error. */
export async function timed(promise) {
  const startedAt = Date.now();
  const [value, error] = await promise.then(
    (result) => [result, undefined],
    (failure) => [undefined, failure],
  );
  return { took: duration(Date.now() - startedAt), value, error };
}
