// Sees every save under the spec folder, however it is written. Editors and tools save in place, or
// write a temporary file and rename it over the original (vim, `sed -i`, an IDE's "safe write"), or
// rename the original away first (vim's backup); `fs.watch` loses a file after the first rename, so
// later saves went unseen. chokidar follows the file through each of these (its atomic-save handling
// turns a remove and re-create into one change) and ignores the editors' temporary and backup files.
// Saves that come together (a `git checkout` of several files, a burst of saves) are handed over as
// one batch once the folder has been quiet for a moment.
import { relative, sep } from 'node:path';
import { watch } from 'chokidar';

/** What a spec is made of: its YAML or JSON files, the lint config, and the config's JavaScript plugins. */
const SOURCE = /\.(ya?ml|json|[cm]?js)$/;
/** How long the folder stays quiet before a batch is handed over: the files of one checkout arrive together. */
const QUIET_MS = 40;

/**
 * Watches `dir` (not the top-level folders in `ignoredFolders`) and calls `onSaves(files, savedAt)` with the
 * absolute paths saved, added or removed, and the time the first of them was seen. Resolves once watching.
 */
export async function watchSources({ dir, ignoredFolders, onSaves, onError }) {
  const ignored = (path) => {
    const inside = relative(dir, path);
    return inside !== '' && ignoredFolders.includes(inside.split(sep)[0]);
  };
  const watcher = watch(dir, { ignoreInitial: true, atomic: true, ignored });
  let batch = new Set();
  let firstSeen;
  let timer;
  watcher.on('all', (event, path) => {
    if (!['add', 'change', 'unlink'].includes(event) || !SOURCE.test(path)) return;
    batch.add(path);
    firstSeen ??= Date.now();
    clearTimeout(timer);
    timer = setTimeout(() => {
      const files = [...batch];
      const savedAt = firstSeen;
      batch = new Set();
      firstSeen = undefined;
      onSaves(files, savedAt);
    }, QUIET_MS);
  });
  await new Promise((ready, failed) => {
    watcher.once('ready', ready);
    watcher.once('error', failed);
  });
  watcher.on('error', onError);
  return {
    async close() {
      clearTimeout(timer);
      await watcher.close();
    },
  };
}
