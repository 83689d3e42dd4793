#!/usr/bin/env node
// Fails when a committed generated file differs from what its generator just wrote (run after
// `turbo run generate`): shows the diff and says what to run. Generated files live in the paths below
// (spec/dist holds the bundles and, in spec/dist/types, the APIs' types; EXTENSIONS.md's vocabulary tables
// are written from spec/management/vocabulary.json).
import { execFileSync } from 'node:child_process';

const GENERATED = [
  'spec/dist',
  'spec/management/EXTENSIONS.md',
  'packages/client/src/generated',
  'packages/mock-server/src/generated',
];
const git = (...args) => execFileSync('git', args, { encoding: 'utf8', maxBuffer: 64 << 20 });

const changed = git('status', '--porcelain', '--untracked-files=all', '--', ...GENERATED).trim();
if (!changed) {
  console.log(`No drift: ${GENERATED.join(', ')} are what the generators produce.`);
  process.exit(0);
}
const diff =
  git('diff', '--stat', '--', ...GENERATED) +
  git('diff', '--', ...GENERATED)
    .split('\n')
    .slice(0, 80)
    .join('\n');
console.error(
  `Generated files are out of step with the specs:\n${changed}\n\n${diff}\n\n` +
    'Run `npm run generate` and commit the result together with the spec change.',
);
process.exit(1);
