// Management round trips with wrk: create a recipe, then get it by the id the create answered
// (bench/wrk/roundtrip.lua). The same requests go to the emulator's resource engine and to Prism
// mocking the management spec.
import { fileURLToPath } from 'node:url';
import { run } from './processes.mjs';
import { parseWrk } from './wrk.mjs';

const SCRIPT = fileURLToPath(new URL('../wrk/roundtrip.lua', import.meta.url));

export async function roundTrips({ url, token, seconds, warmupSeconds = 1, connections = 10 }) {
  const wrk = (duration) =>
    run('wrk', ['-t1', `-c${connections}`, `-d${duration}s`, '--latency', '-s', SCRIPT, url], {
      env: { BENCH_TOKEN: token },
    });
  await wrk(warmupSeconds);
  const { stdout } = await wrk(seconds);
  const result = parseWrk(stdout);
  if (result.failed > 0 || result.socketErrors)
    throw new Error(`${url}: ${result.failed} failed answers, ${result.socketErrors}`);
  const roundTrips = Number(/Round trips: (\d+)/.exec(stdout)?.[1]);
  return { ...result, roundTrips, roundTripsPerSecond: roundTrips / seconds, connections, seconds };
}
