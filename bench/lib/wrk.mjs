// Runs wrk (one thread, a fixed number of connections, a fixed duration) with the POST script and
// reads requests/s, p50/p99 latency and the count of failed answers from its --latency output.
import { fileURLToPath } from 'node:url';
import { run } from './processes.mjs';

const POST_SCRIPT = fileURLToPath(new URL('../wrk/post.lua', import.meta.url));

export async function wrkPost({ url, path, bodyFile, token = '', connections = 10, seconds = 10 }) {
  const { stdout } = await run(
    'wrk',
    ['-t1', `-c${connections}`, `-d${seconds}s`, '--latency', '-s', POST_SCRIPT, url],
    {
      env: { BENCH_PATH: path, BENCH_BODY_FILE: bodyFile, BENCH_TOKEN: token },
    },
  );
  return parseWrk(stdout);
}

export function parseWrk(output) {
  const requestsPerSecond = Number(/Requests\/sec:\s+([\d.]+)/.exec(output)?.[1]);
  const requests = Number(/(\d+) requests in/.exec(output)?.[1]);
  if (!Number.isFinite(requestsPerSecond) || !Number.isFinite(requests))
    throw new Error(`Unexpected wrk output:\n${output}`);
  const failed = Number(/Non-2xx or 3xx responses: (\d+)/.exec(output)?.[1] ?? 0);
  const socketErrors = /Socket errors: (.*)/.exec(output)?.[1];
  return {
    requestsPerSecond,
    requests,
    failed,
    socketErrors: socketErrors ?? null,
    p50Ms: latencyMs(output, '50%'),
    p99Ms: latencyMs(output, '99%'),
  };
}

function latencyMs(output, percentile) {
  const match = new RegExp(`^\\s*${percentile}\\s+([\\d.]+)(us|ms|s)\\s*$`, 'm').exec(output);
  if (!match) throw new Error(`No ${percentile} latency in the wrk output:\n${output}`);
  const scale = { us: 0.001, ms: 1, s: 1000 }[match[2]];
  return Number(match[1]) * scale;
}
