// The spec author's live loop (`npm run dev`): serves the emulator and the docs from the specs as they
// are edited. On each save under spec/ it lints and bundles the APIs the file belongs to (in its own
// process, with Redocly's library: specs.mjs); when both pass it restarts the emulator on the new bundles over the same data dir, so its state and
// credentials are kept, while requests wait in the loop's own listener instead of failing; then it
// renders that API's docs page (the open page reloads by itself) and, for the repository's own specs,
// regenerates the committed bundles and types. A broken edit keeps the last good spec serving, says
// which file and line to fix in the terminal and as a banner on the docs pages; the next good save
// recovers.
import { spawn } from 'node:child_process';
import { watch } from 'node:fs';
import { cp, mkdir, mkdtemp, readdir, readFile, rename, rm, writeFile } from 'node:fs/promises';
import { createServer, request } from 'node:http';
import { tmpdir } from 'node:os';
import { dirname, join, relative, resolve, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parse as parseYaml, stringify as stringifyYaml } from 'yaml';
import { openSpecs } from './specs.mjs';

const repoDir = resolve(dirname(fileURLToPath(import.meta.url)), '..', '..');
const bin = (name) => join(repoDir, 'node_modules', '.bin', name);
const emulatorCli = join(repoDir, 'packages', 'mock-server', 'bin', 'platform-api-mock.js');
const docsBuild = join(repoDir, 'packages', 'docs', 'src', 'build.ts');
const builtDocs = join(repoDir, 'packages', 'docs', 'dist');
/** Files under the spec folder that are outputs or tests, not sources. */
const IGNORED = ['dist', 'released', 'node_modules', 'test', 'scripts', '.turbo'];
const TOOL_ENV = { ...process.env, REDOCLY_TELEMETRY: 'off', REDOCLY_SUPPRESS_UPDATE_NOTICE: 'true', NO_COLOR: '1' };

/** Runs a command to its end; resolves with its exit code and output, never rejects. */
function run(command, args, options = {}) {
  return new Promise((done) => {
    const child = spawn(command, args, { env: TOOL_ENV, ...options, stdio: ['ignore', 'pipe', 'pipe'] });
    let output = '';
    child.stdout.on('data', (chunk) => {
      output += chunk;
    });
    child.stderr.on('data', (chunk) => {
      output += chunk;
    });
    child.on('error', (error) => done({ code: 1, output: String(error) }));
    child.on('close', (code) => done({ code: code ?? 1, output }));
  });
}

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

/** Redocly's report without its banners and progress lines: what is wrong, where (file:line), and the code frame. */
function problems(output) {
  const noise = /^\s*[╔║╚]|^(validating|bundling) |validated in|generate-ignore-file|Woohoo/;
  const lines = output.split('\n').filter((line) => /\S/.test(line) && !noise.test(line));
  return lines.slice(0, 40).join('\n');
}

const LIVE_RELOAD = `<script>/* npm run dev: reloads when the docs change, shows the last error */(() => {
  let version;
  const banner = document.createElement('pre');
  banner.id = 'dev-loop-error';
  banner.style.cssText = 'position:fixed;z-index:99999;left:0;right:0;bottom:0;margin:0;max-height:40vh;overflow:auto;padding:12px;background:#b00020;color:#fff;font:13px/1.4 monospace;white-space:pre-wrap';
  async function poll() {
    try {
      const status = await (await fetch('/_dev/status', { cache: 'no-store' })).json();
      if (version !== undefined && status.docsVersion !== version) return location.reload();
      version = status.docsVersion;
      if (status.error) { banner.textContent = status.error; document.body.append(banner); } else banner.remove();
    } catch {}
    setTimeout(poll, 500);
  }
  poll();
})();</script>`;

/** Adds the live-reload script to every page of the docs folder. */
async function addLiveReload(docsDir) {
  for (const file of (await readdir(docsDir)).filter((name) => name.endsWith('.html'))) {
    const html = await readFile(join(docsDir, file), 'utf8');
    if (!html.includes('/_dev/status'))
      await writeFile(join(docsDir, file), html.replace('</body>', `${LIVE_RELOAD}</body>`));
  }
}

/** The emulator's resource types (x-resource of the management bundle's schemas). */
function resourceTypes(bundle) {
  const schemas = bundle?.components?.schemas ?? {};
  return new Set(Object.values(schemas).flatMap((schema) => (schema['x-resource'] ? [schema['x-resource'].type] : [])));
}

/**
 * Starts the loop. `specDir`: the folder with redocly.yaml (default the repository's spec/); `emulatorArgs`:
 * flags for platform-api-mock (`--port` and `--host` are the loop's own address); `generate`: also rewrite
 * the committed bundles and generated types (only for the repository's own spec folder).
 */
export async function startDevLoop({ specDir = join(repoDir, 'spec'), emulatorArgs = [], log = console.log } = {}) {
  specDir = resolve(specDir);
  const generate = specDir === join(repoDir, 'spec');
  const { host, port, args } = ownAddress(emulatorArgs);
  const work = await mkdtemp(join(tmpdir(), 'platform-api-dev-'));
  const bundles = join(work, 'bundles');
  const docs = join(work, 'docs');
  await mkdir(bundles);
  const storage = args.some(
    (arg) =>
      arg === '--data-dir' || arg === '--redis-url' || arg.startsWith('--data-dir=') || arg.startsWith('--redis-url='),
  )
    ? []
    : ['--data-dir', join(work, 'data'), '--durability', 'relaxed'];
  const apis = await readApis(specDir);
  const specs = await openSpecs(specDir);
  // specVersion counts the reloads, docsVersion the renders; docsOf is the specVersion the pages show.
  const status = { specVersion: 0, docsVersion: 0, docsOf: 0, error: null, reloads: [] };
  let emulator; // { child, url, banner }
  const docsWanted = new Set();
  let docsSavedAt;
  let docsRunning;
  let ready = Promise.resolve();

  const first = await rebuild(apis);
  if (first.error) throw new Error(`The specs do not lint or bundle:\n${first.error}`);
  await commitBundles(first.made);
  await cp(builtDocs, docs, { recursive: true }).catch(() => mkdir(docs, { recursive: true }));
  await writeFile(
    join(docs, 'index.html'),
    '<!doctype html><title>Docs</title><body><p>Rendering the docs…</p></body>',
    {
      flag: 'wx',
    },
  ).catch(() => {});
  await addLiveReload(docs);
  emulator = await startEmulator();
  const proxy = await listen();
  const url = `http://${host.includes(':') ? `[${host}]` : host}:${proxy.address().port}`;
  log(emulator.banner.replaceAll(emulator.url, url));
  log(
    `Live loop: watching ${relative(process.cwd(), specDir) || '.'}; each save reloads the emulator and ${url}/docs/`,
  );
  scheduleDocs(apis.map((api) => api.name));
  const background = docsRunning;

  let queue = Promise.resolve();
  let pending = new Set();
  let saved = new Set();
  let timer;
  const watcher = watch(specDir, { recursive: true }, (_event, name) => {
    if (!name || IGNORED.includes(String(name).split(sep)[0])) return;
    const file = join(specDir, String(name));
    saved.add(file);
    for (const api of affectedApis(apis, file)) pending.add(api);
    clearTimeout(timer);
    const savedAt = Date.now();
    timer = setTimeout(() => {
      const changed = [...pending];
      const files = [...saved];
      pending = new Set();
      saved = new Set();
      queue = queue
        .then(() => specs.changed(files))
        .then(() => reload(changed, savedAt))
        .catch((error) => log(`dev loop: ${error.stack ?? error}`));
    }, 50);
  });

  /** Lints and bundles `targets` into a new folder; the error report, or the bundles made. */
  async function rebuild(targets) {
    const built = [];
    for (const api of targets) built.push(await specs.build(api));
    const failed = built.filter((result) => result.error);
    if (failed.length > 0) return { error: failed.map((result) => result.error).join('\n') };
    const next = await mkdtemp(join(work, 'next-'));
    for (const [i, api] of targets.entries())
      await writeFile(join(next, `${api.name}.json`), JSON.stringify(built[i].document));
    return { made: targets.map((api) => ({ api, dir: next })) };
  }

  async function commitBundles(made) {
    for (const { api, dir } of made) await rename(join(dir, `${api.name}.json`), join(bundles, `${api.name}.json`));
  }

  async function reload(targets, savedAt) {
    const names = targets.map((api) => api.name).join(', ');
    const before = await readFile(join(bundles, 'management.json'), 'utf8').then(JSON.parse, () => undefined);
    const built = await rebuild(targets);
    if (built.error) {
      status.error = `The last save broke ${names}; still serving the last good spec. Fix:\n${built.error}`;
      log(`\n✗ ${status.error}\n`);
      return;
    }
    const previous = await mkdtemp(join(work, 'previous-'));
    await cp(bundles, previous, { recursive: true });
    await commitBundles(built.made);
    const restarted = await restartEmulator().catch(async (error) => {
      await cp(previous, bundles, { recursive: true });
      emulator = await startEmulator();
      return error;
    });
    if (restarted instanceof Error) {
      status.error = `The emulator refused the new ${names} spec; still serving the last good one:\n${restarted.message}`;
      log(`\n✗ ${status.error}\n`);
      return;
    }
    const ms = Date.now() - savedAt;
    status.error = null;
    status.specVersion += 1;
    status.reloads.push({ apis: targets.map((api) => api.name), emulatorMs: ms });
    const now = resourceTypes(JSON.parse(await readFile(join(bundles, 'management.json'), 'utf8')));
    const dropped = [...resourceTypes(before)].filter((type) => !now.has(type));
    log(
      `✓ ${names}: the emulator serves the new spec ${ms} ms after the save${dropped.length ? `; resource types no longer served (their items are kept but unreachable): ${dropped.join(', ')}` : ''}`,
    );
    scheduleDocs(
      targets.map((api) => api.name),
      savedAt,
    );
  }

  /** Docs (and the committed files) follow in the background: the next save's reload does not wait for them. */
  function scheduleDocs(names, savedAt) {
    for (const name of names) docsWanted.add(name);
    docsSavedAt ??= savedAt;
    docsRunning ??= (async () => {
      while (docsWanted.size > 0) {
        const wanted = [...docsWanted];
        const at = docsSavedAt;
        docsWanted.clear();
        docsSavedAt = undefined;
        await renderDocs(wanted, at);
        if (generate) await regenerate(at);
      }
      docsRunning = undefined;
    })();
  }

  async function renderDocs(names, savedAt) {
    const specVersion = status.specVersion;
    // The docs are rendered from YAML (the first render writes every API's); the emulator reads the JSON.
    for (const name of names) {
      const document = JSON.parse(await readFile(join(bundles, `${name}.json`), 'utf8'));
      await writeFile(join(bundles, `${name}.yaml`), stringifyYaml(document, { lineWidth: 0 }));
    }
    const result = await run(process.execPath, [
      bin('tsx'),
      docsBuild,
      '--spec-dir',
      bundles,
      '--out-dir',
      docs,
      ...names.flatMap((name) => ['--api', name]),
    ]);
    if (result.code !== 0) {
      status.error = `Rendering the docs failed:\n${problems(result.output)}`;
      log(`✗ ${status.error}`);
      return;
    }
    await addLiveReload(docs);
    status.docsVersion += 1;
    status.docsOf = specVersion;
    if (savedAt !== undefined) {
      const ms = Date.now() - savedAt;
      status.reloads.at(-1).docsMs = ms;
      log(`✓ ${names.join(', ')}: docs updated ${ms} ms after the save`);
    }
  }

  /** The committed bundles and the APIs' types (spec/dist, spec/dist/types), and the client's and emulator's tables, as `npm run generate` makes them. */
  async function regenerate(savedAt) {
    const result = await run(
      'sh',
      [join(repoDir, 'scripts', 'turbo.sh'), 'run', 'generate', '--output-logs=errors-only'],
      { cwd: repoDir },
    );
    log(
      result.code === 0
        ? `✓ bundles and types regenerated ${Date.now() - savedAt} ms after the save`
        : `✗ npm run generate failed:\n${result.output}`,
    );
  }

  function startEmulator() {
    return new Promise((started, failed) => {
      const child = spawn(
        process.execPath,
        [
          emulatorCli,
          ...args,
          '--host',
          '127.0.0.1',
          '--port',
          '0',
          '--spec-dir',
          bundles,
          '--docs-dir',
          docs,
          ...storage,
        ],
        {
          env: process.env,
          stdio: ['ignore', 'pipe', 'pipe'],
        },
      );
      let output = '';
      const collect = (chunk) => {
        output += chunk;
        const match = /listening on (http:\/\/\S+)/.exec(output);
        if (match && output.includes('\nTry it:') && output.endsWith('\n')) {
          child.stdout.off('data', collect);
          started({ child, url: match[1], banner: output.trimEnd() });
        }
      };
      child.stdout.on('data', collect);
      child.stderr.on('data', (chunk) => {
        output += chunk;
      });
      child.on('exit', (code) => failed(new Error(`platform-api-mock exited (${code}):\n${output.trim()}`)));
    });
  }

  async function restartEmulator() {
    let release;
    ready = new Promise((resolve) => {
      release = resolve;
    });
    try {
      await stopEmulator();
      emulator = await startEmulator();
    } finally {
      release();
    }
  }

  function stopEmulator() {
    const { child } = emulator;
    if (child.exitCode !== null) return Promise.resolve();
    return new Promise((stopped) => {
      child.once('exit', () => stopped());
      child.kill('SIGTERM');
    });
  }

  /** The loop's listener: `/_dev/status`, else the request forwarded to the emulator (held while it restarts). */
  function listen() {
    const server = createServer(async (req, res) => {
      if (req.url === '/_dev/status') {
        res.writeHead(200, { 'content-type': 'application/json', 'cache-control': 'no-store' });
        return res.end(JSON.stringify(status));
      }
      await ready;
      const target = new URL(emulator.url);
      const forwarded = request(
        { host: target.hostname, port: target.port, method: req.method, path: req.url, headers: req.headers },
        (answer) => {
          res.writeHead(answer.statusCode ?? 502, answer.headers);
          answer.pipe(res);
        },
      );
      forwarded.on('error', () => {
        if (!res.headersSent) res.writeHead(502, { 'content-type': 'application/json' });
        res.end(JSON.stringify({ error: 'the emulator restarted while answering; send the request again' }));
      });
      req.pipe(forwarded);
    });
    return new Promise((listening, failed) => {
      server.once('error', failed);
      server.listen(port, host, () => listening(server));
    });
  }

  return {
    url,
    status,
    /** Resolves once the docs of the start are rendered. */
    docsRendered: background,
    async close() {
      watcher.close();
      clearTimeout(timer);
      await queue;
      await docsRunning;
      await new Promise((closed) => {
        proxy.close(() => closed());
        proxy.closeAllConnections();
      });
      await stopEmulator();
      await rm(work, { recursive: true, force: true });
    },
  };
}

/** The loop's own address from the emulator's flags (`--port`, `--host`), and the flags without them. */
function ownAddress(emulatorArgs) {
  const args = [];
  let host = '127.0.0.1';
  let port = 4010;
  for (let i = 0; i < emulatorArgs.length; i++) {
    const [flag, inline] = emulatorArgs[i].split(/=(.*)/s);
    if (flag === '--port' || flag === '--host') {
      const value = inline ?? emulatorArgs[++i];
      if (flag === '--port') port = Number(value);
      else host = value;
    } else {
      args.push(emulatorArgs[i]);
    }
  }
  return { host, port, args };
}
