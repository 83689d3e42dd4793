// The live loop's linter, in a worker thread: Redocly's lint walks the whole document without yielding,
// so in the loop's own thread it would hold up the emulator's restart (which waits for the old
// process's exit) for as long as it runs. Here it lints on the other core while the loop bundles and
// restarts the emulator. Each message is a call of openSpecs (specs.mjs) by name, answered by its id.
import { isMainThread, parentPort, Worker, workerData } from 'node:worker_threads';
import { openSpecs } from './specs.mjs';

if (!isMainThread) {
  const specs = await openSpecs(workerData.specDir);
  // One call at a time, in the order sent: a lint sees every file saved before it was asked for.
  let previous = Promise.resolve();
  parentPort.on('message', ({ id, method, args }) => {
    previous = previous.then(async () => {
      try {
        parentPort.postMessage({ id, result: await specs[method](...args) });
      } catch (error) {
        parentPort.postMessage({ id, failure: error.stack ?? String(error) });
      }
    });
  });
}

/** Opens the spec folder in a worker thread: `lint(api)` and `changed(files)` as openSpecs's, and `close`. */
export function openLinter(specDir) {
  const worker = new Worker(new URL(import.meta.url), { workerData: { specDir } });
  const calls = new Map();
  let lastId = 0;
  worker.on('message', ({ id, result, failure }) => {
    const call = calls.get(id);
    calls.delete(id);
    if (failure) call.failed(new Error(`the linter failed: ${failure}`));
    else call.done(result);
  });
  worker.on('error', (error) => {
    for (const call of calls.values()) call.failed(error);
    calls.clear();
  });
  const send = (method, ...args) =>
    new Promise((done, failed) => {
      lastId += 1;
      calls.set(lastId, { done, failed });
      worker.postMessage({ id: lastId, method, args });
    });
  return {
    lint: (api) => send('lint', api),
    changed: (files) => send('changed', files),
    close: () => worker.terminate(),
  };
}
