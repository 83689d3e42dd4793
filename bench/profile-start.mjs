// Profiles the emulator's start-up: `node --cpu-prof` on platform-api-mock from spawn to its first
// answered token request (bench/lib/startup.mjs's method), several runs, and prints where the time went
// by phase: the main thread's time as the profiler samples it (idle time left out), the median of the
// runs. The profiler adds its own cost to every phase, and on a busy machine a phase also counts the
// time the thread waited for a core. `cli`: another build's bin, e.g. an earlier commit's, for a
// before/after; the phases are printed in one order, so that two outputs line up.
// Usage: node bench/profile-start.mjs [runs] [cli]
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { startupTimes } from './lib/startup.mjs';

const [runs = '5', cli = fileURLToPath(new URL('../packages/mock-server/bin/platform-api-mock.js', import.meta.url))] =
  process.argv.slice(2);

const UNDICI = 'undici, loaded by node:http as an ES import';
/** Packages by the first frame of a package's or the emulator's code from the sample's leaf up. */
const PACKAGES = [
  ['ajv: loading it, its set-up, compiling checks', /node_modules\/(ajv|ajv-formats|fast-uri)\//],
  ['pino', /node_modules\/(pino|sonic-boom|thread-stream|@pinojs|pino-std-serializers)\//],
  ['commander (the command line)', /node_modules\/commander\//],
  ['other packages', /node_modules\//],
];
/** The emulator's code by the nearest of these steps from the leaf up. */
const STEPS = [
  ['the bundles: reading, parsing, listing operations', (f) => BUNDLES.has(f.functionName)],
  ["the engine's vocabulary", (f) => ENGINE.has(f.functionName)],
  ['the first answer', (f) => f.url === 'node:_http_server' || f.functionName === 'parserOnHeadersComplete'],
  ["the emulator's other set-up (domain, router, dispatcher)", (f) => f.functionName === 'startMockServer'],
];
const BUNDLES = new Set(['sharedSpecs', 'loadSpecs', 'loadEmulatorSpec', 'readBundle', 'listOperations']);
const ENGINE = new Set(['createResourceEngine', 'Engine', 'readResourceTypes', 'readEngineOperations']);
const LOADING = "loading modules (node's resolving, reading, compiling and linking them)";
const BY_LEAF = new Map([
  ['(garbage collector)', 'garbage collection'],
  ['(program)', 'V8 and node outside JavaScript'],
]);
const EMULATOR = "the emulator's other code (its modules' top levels, the command line)";
const REST = 'the rest of node (its bootstrap, built-ins, the socket, the exit)';
const ORDER = [
  LOADING,
  UNDICI,
  ...PACKAGES.map(([phase]) => phase),
  ...STEPS.map(([phase]) => phase),
  EMULATOR,
  ...BY_LEAF.values(),
  REST,
];

/** The phase of a sample, from its stack (the leaf first). */
function phaseOfStack(stack) {
  const byLeaf = BY_LEAF.get(stack[0].functionName);
  if (byLeaf) return byLeaf;
  if (stack.some((f) => f.url.startsWith('node:internal/deps/undici'))) return UNDICI;
  const at = stack.findIndex((f) => f.url.startsWith('file:'));
  if (at >= 0) {
    const inPackage = PACKAGES.find(([, where]) => where.test(stack[at].url));
    if (inPackage) return inPackage[0];
    // The emulator's code importing a module (the bin the command line, the command line a chunk).
    if (stack.slice(0, at).some((f) => f.url.startsWith('node:internal/modules/'))) return LOADING;
    for (const frame of stack) {
      const step = STEPS.find(([, belongs]) => belongs(frame));
      if (step) return step[0];
    }
    return EMULATOR;
  }
  const step = STEPS.find(([, belongs]) => stack.some(belongs));
  if (step) return step[0];
  if (stack.some((f) => f.url.startsWith('node:internal/modules/'))) return LOADING;
  return REST;
}

const dir = mkdtempSync(join(tmpdir(), 'platform-api-profile-start-'));
try {
  const byPhase = new Map();
  for (let run = 0; run < Number(runs); run++) {
    const runDir = join(dir, String(run));
    await startupTimes({ cli, runs: 1, nodeFlags: ['--cpu-prof', `--cpu-prof-dir=${runDir}`] });
    const file = readdirSync(runDir).find((name) => name.endsWith('.cpuprofile'));
    for (const [phase, ms] of phasesOf(JSON.parse(readFileSync(join(runDir, file), 'utf8')))) {
      byPhase.set(phase, [...(byPhase.get(phase) ?? []), ms]);
    }
  }
  const rows = ORDER.map((phase) => [phase, median(byPhase.get(phase) ?? [], Number(runs))]);
  const total = rows.reduce((sum, [, ms]) => sum + ms, 0);
  console.log(`${cli}: ${runs} runs, the median of each phase (ms, profiled)`);
  for (const [phase, ms] of rows) console.log(`${ms.toFixed(1).padStart(8)}  ${phase}`);
  console.log(`${total.toFixed(1).padStart(8)}  in all (the sum of the medians)`);
} finally {
  rmSync(dir, { recursive: true, force: true });
}

/** The CPU time of one profile by phase; idle time is not counted. */
function phasesOf({ nodes, samples, timeDeltas }) {
  const byId = new Map(nodes.map((node) => [node.id, node]));
  const parents = new Map(nodes.flatMap((node) => (node.children ?? []).map((child) => [child, node.id])));
  const phaseOfNode = new Map();
  const phaseOf = (id) => {
    if (!phaseOfNode.has(id)) {
      const stack = [];
      for (let at = id; at !== undefined; at = parents.get(at)) stack.push(byId.get(at).callFrame);
      phaseOfNode.set(id, stack[0].functionName === '(idle)' ? undefined : phaseOfStack(stack));
    }
    return phaseOfNode.get(id);
  };
  const times = new Map();
  samples.forEach((id, i) => {
    const phase = phaseOf(id);
    if (phase) times.set(phase, (times.get(phase) ?? 0) + timeDeltas[i] / 1000);
  });
  return times;
}

/** The median of `times`, counting a run in which a phase took no time as 0. */
function median(times, count) {
  const all = [...times, ...Array(count - times.length).fill(0)].sort((a, b) => a - b);
  return all[Math.floor(count / 2)];
}
