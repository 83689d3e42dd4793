// Runs the landing page's quick start, as printed, against the emulator started the way a reader
// starts it (its CLI), with the credentials the CLI prints; and checks the emulator serves the pages.
import { type ChildProcess, execFile, spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { API_PAGES } from '../src/build.js';

const packageDir = resolve(import.meta.dirname, '..');
const emulatorCli = resolve(packageDir, '../mock-server/dist/cli.js');

interface Emulator {
  process: ChildProcess;
  url: string;
  clientId: string;
  clientSecret: string;
}

let emulator: Emulator;

beforeAll(async () => {
  if (!existsSync(emulatorCli)) {
    throw new Error(`${emulatorCli} is missing. Build the emulator first: npm run build -w @platform-api/mock-server`);
  }
  emulator = await startEmulator();
});

afterAll(() => {
  emulator?.process.kill('SIGTERM');
});

/** Starts the CLI on a free port and reads the address and credentials from its banner. */
function startEmulator(): Promise<Emulator> {
  const child = spawn(process.execPath, [emulatorCli, '--port', '0', '--log-level', 'error'], {
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  return new Promise((started, failed) => {
    const timer = setTimeout(
      () => failed(new Error(`The emulator printed no credentials within 20 s:\n${output}`)),
      20_000,
    );
    child.on('exit', (code) => failed(new Error(`The emulator exited (${code}):\n${output}`)));
    const read = (chunk: Buffer) => {
      output += chunk.toString();
      const url = /listening on (http:\/\/\S+)/.exec(output)?.[1];
      const clientId = /Client ID\s+(\S+)/.exec(output)?.[1];
      const clientSecret = /Client secret\s+(\S+)/.exec(output)?.[1];
      if (url && clientId && clientSecret) {
        clearTimeout(timer);
        started({ process: child, url, clientId, clientSecret });
      }
    };
    child.stdout.on('data', read);
    child.stderr.on('data', read);
  });
}

/** The text of a `<pre data-quickstart="NAME"><code>` block of the built landing page, as a reader copies it. */
async function quickStartBlock(name: string) {
  const html = await readFile(join(packageDir, 'dist/index.html'), 'utf8');
  const block = new RegExp(`<pre data-quickstart="${name}"><code>([\\s\\S]*?)</code></pre>`).exec(html)?.[1];
  if (block === undefined) throw new Error(`dist/index.html has no quick-start block "${name}"`);
  const entities: Record<string, string> = { '&lt;': '<', '&gt;': '>', '&quot;': '"', '&#39;': "'", '&amp;': '&' };
  return block.replace(/&(?:lt|gt|quot|#39|amp);/g, (entity) => entities[entity] ?? entity);
}

describe('the quick start of the landing page', () => {
  it('sets every variable its steps read', async () => {
    const setup = await quickStartBlock('setup');
    const steps = await quickStartBlock('steps');
    const exported = new Set([...setup.matchAll(/(?:export |\s)([A-Z_]+)=/g)].map((match) => match[1]));
    const assignedInSteps = new Set([...steps.matchAll(/^([A-Z_]+)=/gm)].map((match) => match[1]));
    const read = new Set([...steps.matchAll(/\$([A-Z_]+)/g)].map((match) => match[1]));
    expect([...read].filter((name) => !exported.has(name) && !assignedInSteps.has(name))).toEqual([]);
    expect(setup).toContain('http://127.0.0.1:4010');
  });

  it('gets a token, creates a topic, publishes and consumes on the emulator', async () => {
    const steps = await quickStartBlock('steps');
    const { url, clientId, clientSecret } = emulator;
    const { stdout } = await promisify(execFile)('sh', ['-e', '-c', steps], {
      env: {
        ...process.env,
        AUTH_URL: url,
        BASE_URL: url,
        EVENTS_URL: url,
        CLIENT_ID: clientId,
        CLIENT_SECRET: clientSecret,
      },
    });
    const [published, batch, consumed] = stdout
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line));
    expect(published.message_id).toEqual(expect.any(String));
    expect(batch.is_partial_error).toBe(false);
    expect(Object.values(batch.message_ids).map((entry) => (entry as { result: string }).result)).toEqual([
      'success',
      'success',
    ]);
    expect(consumed.has_more).toBe(false);
    expect(
      consumed.messages.map((message: { payload: { order_id: string; status: string } }) => message.payload),
    ).toEqual([
      { order_id: 'ORD-10231', status: 'created', total: 149.9 },
      { order_id: 'ORD-10232', status: 'created', total: 20 },
      { order_id: 'ORD-10231', status: 'shipped', total: 149.9 },
    ]);
    expect(consumed.messages[0].message_id).toBe(published.message_id);
  });
});

describe('the emulator', () => {
  it('serves the built pages under /docs/', async () => {
    const pages: [path: string, file: string][] = [
      ['/docs/', 'index.html'],
      ...API_PAGES.map((name): [string, string] => [`/docs/${name}.html`, `${name}.html`]),
    ];
    for (const [path, file] of pages) {
      const response = await fetch(`${emulator.url}${path}`);
      expect(response.status, path).toBe(200);
      expect(response.headers.get('content-type')).toMatch(/^text\/html/);
      expect(await response.text(), path).toBe(await readFile(join(packageDir, 'dist', file), 'utf8'));
    }
  });
});
