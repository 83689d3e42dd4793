// The live loop's emulator: a platform-api-mock process on a port of its own, serving the loop's bundles
// and docs over one data dir (or the Redis given), started again on each new spec. The first start
// prints the credentials of its bootstrap key (the given ones, or new ones); every later start is given
// those, so the printed client ID and secret, and the tokens issued with them, keep working.
import { spawn } from 'node:child_process';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const emulatorCli = join(
  resolve(dirname(fileURLToPath(import.meta.url)), '..', '..'),
  'packages',
  'mock-server',
  'bin',
  'platform-api-mock.js',
);
/** The start banner, from its first line to the last of its "Try it:" commands (a consume). */
const BANNER = /^Platform API emulator listening on [\s\S]*?\nTry it:\n[\s\S]*?\/consume\n/m;
/** What the emulator prints when it is stopped. */
const SHUTTING_DOWN = /^(SIGTERM|SIGINT): shutting down$/;
/** Past this, a stopping emulator is killed (its own deadline after SIGTERM is shorter). */
const STOP_DEADLINE_MS = 15_000;

/**
 * `args`: the emulator's flags from the command line (without the loop's own `--host` and `--port`);
 * `bundles` and `docs`: the folders it serves; `onLine`: each line it prints once started.
 */
export function loopEmulator({ args, bundles, docs, onLine }) {
  // The emulator says goodbye at every restart: that is no news.
  const forward = (line) => {
    if (!SHUTTING_DOWN.test(line)) onLine(line);
  };
  const storage = hasFlag(args, '--data-dir') || hasFlag(args, '--redis-url') ? [] : undefined;
  const quiet = hasFlag(args, '--log-level') ? [] : ['--log-level', 'warn'];
  let credentials;
  let running;

  async function start(dataDir) {
    const given = credentials ? withoutFlags(args, ['--client-id', '--client-secret']) : args;
    const kept = credentials ? ['--client-id', credentials.clientId, '--client-secret', credentials.clientSecret] : [];
    const spec = ['--spec-dir', bundles, '--docs-dir', docs];
    const store = storage ?? ['--data-dir', dataDir, '--durability', 'relaxed'];
    running = await spawnEmulator([...given, ...kept, ...quiet, ...spec, ...store], forward);
    credentials ??= running.credentials;
    return running;
  }

  return {
    /** Starts the emulator; resolves with its `url` and `banner` once it answers. */
    start,
    get url() {
      return running.url;
    },
    stop: () => (running ? stopProcess(running.child) : Promise.resolve()),
  };
}

/** Starts platform-api-mock with `args` on a free loopback port; resolves once its banner is printed. */
function spawnEmulator(args, onLine) {
  return new Promise((started, failed) => {
    const child = spawn(process.execPath, [emulatorCli, ...args, '--host', '127.0.0.1', '--port', '0'], {
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let output = '';
    let banner;
    const forward = lineSplitter(onLine);
    child.stdout.on('data', (chunk) => {
      if (banner) return forward(chunk);
      output += chunk;
      const found = BANNER.exec(output);
      if (!found) return;
      banner = found[0].trimEnd();
      // Log lines printed before the banner, each on its own line; then whatever follows it.
      forward(output.slice(0, found.index));
      forward(output.slice(found.index + found[0].length));
      started({ child, ...parseBanner(banner) });
    });
    child.stderr.on('data', (chunk) => {
      if (banner) forward(chunk);
      else output += chunk;
    });
    child.on('error', failed);
    child.on('exit', (code, signal) => {
      if (!banner) failed(new Error(`platform-api-mock exited (${code ?? signal}):\n${output.trim()}`));
    });
  });
}

/** The address and the bootstrap key's credentials the banner gives. */
function parseBanner(banner) {
  const field = (name) => new RegExp(`^\\s*${name}\\s+(\\S+)$`, 'm').exec(banner)?.[1];
  return {
    banner,
    url: /listening on (http:\/\/\S+)/.exec(banner)[1],
    credentials: { clientId: field('Client ID'), clientSecret: field('Client secret') },
  };
}

/** Calls `onLine` with each whole line of the chunks it is given, however they were cut. */
function lineSplitter(onLine) {
  let rest = '';
  return (chunk) => {
    const lines = (rest + chunk).split('\n');
    rest = lines.pop();
    for (const line of lines) if (line.trim()) onLine(line);
  };
}

function stopProcess(child) {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
  return new Promise((stopped) => {
    const kill = setTimeout(() => child.kill('SIGKILL'), STOP_DEADLINE_MS);
    child.once('exit', () => {
      clearTimeout(kill);
      stopped();
    });
    child.kill('SIGTERM');
  });
}

/** Whether `--flag value` or `--flag=value` is among `args`. */
export function hasFlag(args, flag) {
  return args.some((arg) => arg === flag || arg.startsWith(`${flag}=`));
}

/** `args` without these flags and their values. */
export function withoutFlags(args, flags) {
  const kept = [];
  for (let i = 0; i < args.length; i++) {
    const [flag, inline] = args[i].split(/=(.*)/s);
    if (!flags.includes(flag)) kept.push(args[i]);
    else if (inline === undefined) i++;
  }
  return kept;
}

/** The loop's own address from the emulator's flags (`--port`, `--host`), and the flags without them. */
export function ownAddress(emulatorArgs) {
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
