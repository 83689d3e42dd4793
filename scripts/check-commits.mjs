#!/usr/bin/env node
// Holds commit subjects to at most 72 characters, the details in the body, so that `git log --oneline`
// stays readable. CI runs it over the commits it tests: every commit from the one that set the rule
// (RULE_SINCE, whose subject already kept it) to HEAD. `node scripts/check-commits.mjs --message FILE`
// checks one message, as a commit-msg hook does (`git config core.hooksPath .githooks` installs ours).
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';

export const MAX_SUBJECT = 72;
/** The first commit held to the rule; the history before it is left as it was written. */
export const RULE_SINCE = '460bbd8';

/**
 * Commits after RULE_SINCE that are longer, merged before CI checked the branches they were written on:
 * main's history is not rewritten, so each is named here with its length, and nothing else passes.
 */
export const KNOWN_LONG = new Map([['4448ef28375b938e238a41b018c504d870c44269', 73]]);

/** What is wrong with a commit message's subject, or undefined. */
export function subjectProblem(message) {
  const subject = message.split('\n').find((line) => !line.startsWith('#')) ?? '';
  if (subject.trim() === '') return 'the subject is empty';
  if (subject.length > MAX_SUBJECT) {
    return `the subject has ${subject.length} characters, more than ${MAX_SUBJECT}: keep it short, the details in the body`;
  }
  return undefined;
}

const git = (...args) => execFileSync('git', args, { encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] });

/** `base` and the commits after it; every reachable one where a shallow clone does not hold `base`. */
function commitsSince(base) {
  let before = [];
  try {
    git('cat-file', '-e', `${base}^{commit}`);
    before = ['--not', ...git('rev-parse', `${base}^@`).split('\n').filter(Boolean)];
  } catch {}
  return git('log', '--format=%H%x00%B%x01', 'HEAD', ...before)
    .split('\x01')
    .map((entry) => entry.trim())
    .filter(Boolean)
    .map((entry) => {
      const [hash, message] = entry.split('\x00');
      return { hash, message };
    });
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const at = process.argv.indexOf('--message');
  const checked =
    at >= 0 ? [{ hash: 'message', message: readFileSync(process.argv[at + 1], 'utf8') }] : commitsSince(RULE_SINCE);
  const problems = checked.flatMap(({ hash, message }) => {
    const problem = KNOWN_LONG.get(hash) === message.split('\n')[0].length ? undefined : subjectProblem(message);
    return problem ? [`${hash.slice(0, 7)} ${message.split('\n')[0].slice(0, 60)}...: ${problem}`] : [];
  });
  for (const problem of problems) console.error(problem);
  if (problems.length > 0) process.exitCode = 1;
  else console.log(`check-commits: ${checked.length} commit subject(s) within ${MAX_SUBJECT} characters`);
}
