// How many cases each property checks: a few in `npm test`, many under `npm run fuzz` (FUZZ_RUNS),
// and one failing run again with the seed (and path) fast-check prints (FUZZ_SEED, FUZZ_PATH).
import type { Parameters } from 'fast-check';

export function propertyRuns<T>(runsInNpmTest: number): Parameters<T> {
  const { FUZZ_RUNS, FUZZ_SEED, FUZZ_PATH } = process.env;
  return {
    numRuns: FUZZ_RUNS ? Number(FUZZ_RUNS) : runsInNpmTest,
    ...(FUZZ_SEED ? { seed: Number(FUZZ_SEED) } : {}),
    ...(FUZZ_PATH ? { path: FUZZ_PATH } : {}),
  };
}
