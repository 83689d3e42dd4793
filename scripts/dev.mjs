// npm run dev [-- emulator flags]: builds what the live loop runs (the emulator and the web console,
// from turbo's cache when nothing changed), then starts the spec author's live loop (see dev/loop.mjs).
// It prints one line per step with its time; a failing step prints its problems with their file and
// line, not the tools' output.
import { SpecsBroken, startDevLoop } from './dev/loop.mjs';
import { duration, toolProblems, turbo } from './dev/tools.mjs';

const BUILD = ['run', 'build', '--filter=@platform-api/mock-server', '--filter=@platform-api/console'];

let loop;
let stopping = false;
// A stop asked for while building or starting waits for the start, so the loop's temporary files go too.
for (const signal of ['SIGINT', 'SIGTERM']) {
  process.on(signal, () => {
    if (stopping) return;
    stopping = true;
    if (loop) stop();
  });
}

function stop() {
  loop.close().then(() => process.exit(0));
}

const builtAt = Date.now();
const built = await turbo([...BUILD, '--output-logs=errors-only']).done;
if (stopping) process.exit(0);
const step = 'build the emulator and the web console';
if (built.code !== 0) {
  console.log(`✗ ${step}: failed after ${duration(Date.now() - builtAt)}; fix:`);
  for (const problem of toolProblems(built.output)) console.log(`    ${problem}`);
  process.exit(1);
}
const cached = built.output.includes('FULL TURBO') ? ' (cached)' : '';
console.log(`✓ ${step}: ${duration(Date.now() - builtAt)}${cached}`);

try {
  loop = await startDevLoop({ emulatorArgs: process.argv.slice(2) });
} catch (error) {
  if (error instanceof SpecsBroken) {
    console.log('✗ bundle and lint the specs: they do not pass; fix:');
    for (const problem of error.problems.split('\n')) console.log(`    ${problem}`);
  } else if (error.code === 'EADDRINUSE') {
    console.log(`✗ start the live loop: ${error.address}:${error.port} is already in use (try -- --port 0)`);
  } else {
    console.log(`✗ start the live loop: ${error.message}`);
  }
  process.exit(1);
}
if (stopping) stop();
