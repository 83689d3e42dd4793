// How many cases each property checks, and from which seed. `npm test` checks a few from a fixed seed,
// so it is quick and gives the same answer every time; `npm run fuzz` checks many (FUZZ_RUNS, default
// 1000 there) from a new seed each time. A failure prints its seed and path: FUZZ_SEED and FUZZ_PATH
// run that case again. A failure is reported as found; FUZZ_SHRINK=1 shrinks it to a smallest case
// first (it replays many runs).
import type { Parameters } from 'fast-check';

/** The seed of `npm test`'s runs. */
const NPM_TEST_SEED = 20261122;

/**
 * `fuzzShare`: the part of FUZZ_RUNS a slow property checks (a long poll that stores nothing waits a
 * second).
 */
export function propertyRuns<T>(runsInNpmTest: number, fuzzShare = 1): Parameters<T> {
  const { FUZZ_SEED, FUZZ_PATH, FUZZ_SHRINK } = process.env;
  const fuzzing = fuzzRuns(fuzzShare) !== undefined;
  const seed = FUZZ_SEED ? Number(FUZZ_SEED) : fuzzing ? undefined : NPM_TEST_SEED;
  return {
    numRuns: fuzzRuns(fuzzShare) ?? runsInNpmTest,
    endOnFailure: FUZZ_SHRINK !== '1',
    ...(seed === undefined ? {} : { seed }),
    ...(FUZZ_PATH ? { path: FUZZ_PATH } : {}),
  };
}

/** A test's time limit for its runs, at `msPerRun` each (the runs `npm test` checks, or FUZZ_RUNS). */
export function propertyTimeout(runsInNpmTest: number, msPerRun: number, fuzzShare = 1): number {
  return 10_000 + (fuzzRuns(fuzzShare) ?? runsInNpmTest) * msPerRun;
}

function fuzzRuns(share: number): number | undefined {
  const runs = Number(process.env.FUZZ_RUNS);
  return Number.isInteger(runs) && runs > 0 ? Math.ceil(runs * share) : undefined;
}
