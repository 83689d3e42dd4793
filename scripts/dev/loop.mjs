// The spec author's live loop (`npm run dev`): serves the emulator and the docs from the specs as they
// are edited. On each save under spec/ (watch.mjs) it bundles the APIs the file belongs to and lints them
// beside (with Redocly's library: specs.mjs, the lint in a worker); when the bundle changed, it restarts the
// emulator on the new bundles over the same data dir, with the same credentials (emulator.mjs), so its
// state, tokens and keys are kept, while requests wait in the loop's own listener instead of failing;
// then it writes those APIs' docs pages (docs.mjs; an open page reloads by itself) and, for the
// repository's own specs, regenerates the committed bundles and types in the background. A broken edit
// (one that does not bundle, or on which the emulator does not start) keeps the last good spec serving;
// it, and a lint finding, say which file and line to fix in the terminal and as a banner on the docs
// pages; the next good save recovers. It prints one line per step, with its time.
import { mkdir, mkdtemp, readFile, rename, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join, relative, resolve, sep } from 'node:path';
import { parse as parseYaml } from 'yaml';
import { loopDocs } from './docs.mjs';
import { loopEmulator, ownAddress } from './emulator.mjs';
import { openLinter } from './lint-worker.mjs';
import { loopListener } from './listener.mjs';
import { openSpecs } from './specs.mjs';
import { backgroundTask, duration, repoDir, timed, toolProblems, turbo } from './tools.mjs';
import { watchSources } from './watch.mjs';

/** Folders under the spec folder that are outputs or tests, not sources. */
const IGNORED = ['dist', 'released', 'node_modules', 'test', 'scripts', '.turbo'];
/** The committed files a spec change regenerates: spec/dist (spec#build, which both depend on) and the two generated tables. */
const REGENERATE = ['run', 'generate', '--filter=@platform-api/client', '--filter=@platform-api/mock-server'];

/** The APIs of the folder's redocly.yaml: short name (`management`), lint name (`management@v1`), root folder. */
async function readApis(specDir) {
  const config = parseYaml(await readFile(join(specDir, 'redocly.yaml'), 'utf8'));
  return Object.entries(config.apis ?? {}).map(([id, api]) => ({
    id,
    name: id.split('@')[0],
    root: join(specDir, api.root),
    folder: dirname(join(specDir, api.root)),
  }));
}

/** The APIs a changed file can affect: its own API's, or all for shared components and the lint config. */
function affectedApis(apis, file) {
  const own = apis.filter((api) => file.startsWith(api.folder + sep));
  return own.length > 0 ? own : apis;
}

/** The emulator's resource types (x-resource of the management bundle's schemas). */
function resourceTypes(bundle) {
  const schemas = bundle?.components?.schemas ?? {};
  return new Set(Object.values(schemas).flatMap((schema) => (schema['x-resource'] ? [schema['x-resource'].type] : [])));
}

/** The specs do not bundle or lint at the start: `problems`, one per line with its file and line. */
export class SpecsBroken extends Error {
  constructor(problems) {
    super(`The specs do not bundle or lint; fix:\n${problems}`);
    this.problems = problems;
  }
}

/** `✓ step: detail` or `✗ step: detail`, and the problems below it, indented. */
function stepLine(ok, step, detail, problems = []) {
  return [`${ok ? '✓' : '✗'} ${step}: ${detail}`, ...problems.map((problem) => `    ${problem}`)].join('\n');
}

/**
 * Starts the loop. `specDir`: the folder with redocly.yaml (default the repository's spec/); `emulatorArgs`:
 * flags for platform-api-mock (`--port` and `--host` are the loop's own address); `log`: where its lines go.
 * For the repository's own spec folder it also regenerates the committed bundles and generated types.
 */
export async function startDevLoop({ specDir = join(repoDir, 'spec'), emulatorArgs = [], log = console.log } = {}) {
  specDir = resolve(specDir);
  const regenerates = specDir === join(repoDir, 'spec');
  const { host, port, args } = ownAddress(emulatorArgs);
  const work = await mkdtemp(join(tmpdir(), 'platform-api-dev-'));
  const bundles = join(work, 'bundles');
  const docsDir = join(work, 'docs');
  await Promise.all([mkdir(bundles), mkdir(docsDir)]);
  const apis = await readApis(specDir);
  const specs = await openSpecs(specDir);
  const linter = openLinter(specDir);
  // specVersion counts the specs the emulator served; pages the versions of the docs pages; reloads the saves that reached the emulator.
  const docs = await loopDocs(docsDir);
  const status = { specVersion: 0, error: null, pages: docs.versions, reloads: [] };
  /** Each API's bundled document, and its JSON as the emulator reads it. */
  const documents = new Map();
  const emulator = loopEmulator({
    args,
    bundles,
    docs: docsDir,
    onLine: (line) => log(line),
  });
  const dataDir = join(work, 'data');

  const regenerate = backgroundTask(regenerateCommittedFiles);
  /** The last save handled; when the bundles last changed with no passing lint since (to regenerate then); closed. */
  const saves = { last: 0, unregenerated: undefined, closed: false };
  const waiting = { files: new Set(), savedAt: undefined };
  let handling;
  let listener;
  let watcher;
  let url;
  try {
    let banner;
    ({ listener, banner } = await start());
    url = `http://${host.includes(':') ? `[${host}]` : host}:${listener.server.address().port}`;
    log(banner.replaceAll(emulator.url, url));
    watcher = await watchSources({ dir: specDir, ignoredFolders: IGNORED, onSaves, onError });
    log(
      `\nLive loop: watching ${relative(process.cwd(), specDir) || '.'}; each save reloads the emulator and the open pages of ${url}/docs/`,
    );
  } catch (error) {
    await Promise.all([linter.close(), emulator.stop(), listener?.close()]);
    await rm(work, { recursive: true, force: true });
    throw error;
  }

  function onSaves(files, savedAt) {
    for (const file of files) waiting.files.add(file);
    waiting.savedAt ??= savedAt;
    handling ??= handleSaves().finally(() => {
      handling = undefined;
    });
  }

  function onError(error) {
    log(stepLine(false, 'watch', error.message));
  }

  /** Bundles and lints every API, writes the docs, starts the emulator and the loop's listener. */
  async function start() {
    const startedAt = Date.now();
    const linted = lintAll(apis);
    const first = await bundleAll(apis);
    const problems = first.error ?? (await linted);
    if (problems) throw new SpecsBroken(problems);
    await writeBundles(first.built);
    log(stepLine(true, `bundle and lint ${apis.map((api) => api.name).join(', ')}`, duration(Date.now() - startedAt)));
    const pagesAt = Date.now();
    const pages = await docs.render(
      apis.map((api) => api.name),
      bundledDocuments(),
    );
    const written = pages.map((page) => `${page}.html`).join(', ');
    log(stepLine(true, `write the docs pages ${written}`, duration(Date.now() - pagesAt)));
    const emulatorAt = Date.now();
    const started = await emulator.start(dataDir);
    const listening = await loopListener({
      host,
      port,
      status: () => ({ specVersion: status.specVersion, error: status.error, pages: status.pages }),
      emulatorUrl: () => emulator.url,
    });
    log(stepLine(true, 'start the emulator', duration(Date.now() - emulatorAt)));
    return { listener: listening, banner: started.banner };
  }

  /** Handles the saves waiting, in turn; the saves made meanwhile are handled together next. */
  async function handleSaves() {
    while (waiting.files.size > 0) {
      const files = [...waiting.files];
      const { savedAt } = waiting;
      waiting.files.clear();
      waiting.savedAt = undefined;
      try {
        await Promise.all([specs.changed(files), linter.changed(files)]);
        const targets = apis.filter((api) => files.some((file) => affectedApis(apis, file).includes(api)));
        await reload(targets, files, savedAt);
      } catch (error) {
        log(stepLine(false, 'dev loop', error.stack ?? String(error)));
      }
    }
  }

  /** Bundles `targets`: each one's document and its JSON, or the problems that fail them. */
  async function bundleAll(targets) {
    const built = [];
    for (const api of targets) {
      const result = await specs.bundle(api);
      if (result.error) return { error: result.error };
      built.push({ api, document: result.document, json: JSON.stringify(result.document) });
    }
    return { built };
  }

  /** Lints `targets`: the problems that fail them, if any. */
  async function lintAll(targets) {
    const errors = [];
    for (const api of targets) {
      const result = await linter.lint(api);
      if (result.error) errors.push(result.error);
    }
    return errors.join('\n') || undefined;
  }

  function bundledDocuments() {
    return new Map([...documents].map(([name, { document }]) => [name, document]));
  }

  /** Writes the bundles whole (each through a temporary file), so a starting emulator never reads half of one. */
  async function writeBundles(built) {
    for (const { api, document, json } of built) {
      const file = join(bundles, `${api.name}.json`);
      await writeFile(`${file}.next`, json);
      await rename(`${file}.next`, file);
      documents.set(api.name, { document, json });
    }
  }

  /** Says why the last save did not reach the emulator, in the terminal and on the docs pages. */
  function refuse(step, took, saved, problems) {
    status.error = `The last save (${saved}) did not pass: ${step}. Still serving the last good spec. Fix:\n${problems}`;
    log(stepLine(false, step, `${took} (${saved}); still serving the last good spec. Fix:`, problems.split('\n')));
  }

  /** Says what the lint found in the last save, which the emulator serves all the same. */
  function lintFindings(names, took, saved, problems) {
    status.error = `The last save (${saved}) does not lint (${names}); the emulator serves it, npm run lint refuses it. Fix:\n${problems}`;
    log(stepLine(false, `lint ${names}`, `${took} (${saved}); served all the same. Fix:`, problems.split('\n')));
  }

  /**
   * A save's reload: bundle the APIs it touched; when a bundle changed, restart the emulator on it,
   * holding the requests sent meanwhile, so that none fails and none meets half a change. The lint runs
   * beside, in its worker, and reports what it finds without holding the new spec back: a lint of the
   * management API alone takes about a second (BENCHMARKS.md, the live loop), the whole budget of a save.
   * A bundle that does not bundle, or an emulator that does not start on it, keeps the last good spec.
   */
  async function reload(targets, files, savedAt) {
    const save = ++saves.last;
    const names = targets.map((api) => api.name).join(', ');
    const saved = files.map((file) => relative(specDir, file)).join(', ');
    const bundledAt = Date.now();
    const linted = timed(lintAll(targets));
    const bundled = await bundleAll(targets);
    const bundleMs = duration(Date.now() - bundledAt);
    if (bundled.error) return refuse(`bundle ${names}`, bundleMs, saved, bundled.error);
    const changed = bundled.built.filter(({ api, json }) => documents.get(api.name)?.json !== json);
    log(
      stepLine(true, `bundle ${names}`, `${bundleMs} (${saved})${changed.length ? '' : '; the bundle is unchanged'}`),
    );
    if (changed.length > 0 && !(await serve(changed, savedAt, saved))) return;
    if (changed.length > 0) saves.unregenerated = savedAt;
    // Not awaited: the next save is bundled and served while this one is still linted.
    void reportLint(save, linted, names, saved);
  }

  /** The lint's findings for a save, unless a later save came since (its lint tells, in turn). */
  async function reportLint(save, linted, names, saved) {
    const lint = await linted;
    if (save !== saves.last || saves.closed) return;
    const lintError = lint.error ? `the linter failed: ${lint.error.message}` : lint.value;
    if (lintError) return lintFindings(names, lint.took, saved, lintError);
    log(stepLine(true, `lint ${names}`, lint.took));
    status.error = null;
    if (saves.unregenerated !== undefined && regenerates) regenerate.schedule(saves.unregenerated);
    saves.unregenerated = undefined;
  }

  /** Restarts the emulator on the changed bundles and writes their pages; false when it would not start on them. */
  async function serve(changed, savedAt, saved) {
    const before = documents.get('management')?.document;
    const previous = changed.map(({ api }) => ({ api, ...documents.get(api.name) }));
    const release = listener.hold();
    try {
      await writeBundles(changed);
      const restart = await timed(restartEmulator());
      if (restart.error) {
        await writeBundles(previous);
        await restartEmulator();
        refuse('restart the emulator', restart.took, saved, restart.error.message);
        return false;
      }
      const servedAt = Date.now();
      status.specVersion += 1;
      status.error = null;
      const reloaded = { apis: changed.map(({ api }) => api.name), savedAt, servedAt, emulatorMs: servedAt - savedAt };
      status.reloads.push(reloaded);
      const dropped = [...resourceTypes(before)].filter(
        (type) => !resourceTypes(documents.get('management')?.document).has(type),
      );
      log(
        stepLine(
          true,
          'restart the emulator',
          `${restart.took}; it serves the new spec ${duration(reloaded.emulatorMs)} after the save${dropped.length ? `; resource types no longer served (their items are kept but unreachable): ${dropped.join(', ')}` : ''}`,
        ),
      );
      release();
      await renderDocs(reloaded);
      return true;
    } finally {
      release();
    }
  }

  async function renderDocs(reloaded) {
    try {
      const pages = await docs.render(reloaded.apis, bundledDocuments());
      reloaded.docsAt = Date.now();
      reloaded.docsMs = reloaded.docsAt - reloaded.savedAt;
      if (pages.length > 0)
        log(
          stepLine(
            true,
            `write the docs pages ${pages.map((page) => `${page}.html`).join(', ')}`,
            `${duration(reloaded.docsAt - reloaded.servedAt)}; the open ones reload ${duration(reloaded.docsMs)} after the save`,
          ),
        );
    } catch (error) {
      status.error = `Writing the docs pages failed: ${error.message}`;
      log(stepLine(false, 'write the docs pages', error.message));
    }
  }

  /** `npm run generate`'s part that a spec change moves (the committed bundles and types), at low priority. */
  async function regenerateCommittedFiles(savedAt, track) {
    const startedAt = Date.now();
    const { child, done } = turbo([...REGENERATE, '--output-logs=errors-only'], { lowPriority: true });
    track(child);
    const result = await done;
    const took = `${duration(Date.now() - startedAt)}, ${duration(Date.now() - savedAt)} after the save`;
    const step = 'regenerate spec/dist and the generated types';
    if (result.signal) log(stepLine(false, step, 'stopped with the loop; run `npm run generate` before committing'));
    else if (result.code === 0) log(stepLine(true, step, took));
    else log(stepLine(false, step, `${took}; fix, or see \`npm run generate\`:`, toolProblems(result.output)));
  }

  async function restartEmulator() {
    await emulator.stop();
    await emulator.start(dataDir);
  }

  return {
    url,
    status,
    async close() {
      saves.closed = true;
      await watcher.close();
      await handling;
      await Promise.all([regenerate.stop(), linter.close()]);
      await listener.close();
      await emulator.stop();
      await rm(work, { recursive: true, force: true });
    },
  };
}
