import { mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { createTopic, type Platform, startPlatform } from './support/emulator.js';

const packageDir = new URL('../', import.meta.url);
const read = (path: string) => readFile(new URL(path, packageDir), 'utf8');

describe('README', () => {
  it('includes every example file verbatim', async () => {
    const readme = await read('README.md');
    const included = [...readme.matchAll(/<!-- example: (\S+) -->\n```ts\n([\s\S]*?)```/g)];
    const files = (await readdir(new URL('examples/', packageDir))).map((name) => `examples/${name}`);
    expect(included.map(([, path]) => path).sort()).toEqual(files.sort());
    for (const [, path, code] of included) expect(code, path).toBe(await read(path!));
  });
});

describe('examples', () => {
  let platform: Platform;
  let logged: string[];
  afterEach(async () => {
    vi.unstubAllEnvs();
    vi.restoreAllMocks();
    await platform?.close();
  });

  /** Runs an example (a module with top-level await) with these environment variables; returns what it logged. */
  async function run(example: string, env: Record<string, string>): Promise<string[]> {
    for (const [name, value] of Object.entries(env)) vi.stubEnv(name, value);
    logged = [];
    vi.spyOn(console, 'log').mockImplementation((...args: unknown[]) => void logged.push(args.join(' ')));
    await import(`../examples/${example}`);
    return logged;
  }

  const credentials = () => ({
    AUTH_URL: platform.emulator.url,
    PLATFORM_URL: platform.emulator.url,
    CLIENT_ID: platform.emulator.clientId,
    CLIENT_SECRET: platform.emulator.clientSecret,
  });

  it('quick-start publishes 121 messages and consumes each once across a resume', async () => {
    platform = await startPlatform();
    const output = await run('quick-start.ts', credentials());
    expect(output[0]).toMatch(/^published \S+ and 120 more$/);
    expect(output[1]).toMatch(/^consumed 121 messages, last \S+$/);
  });

  it('token gets a cached token and a raw one', async () => {
    platform = await startPlatform();
    expect(await run('token.ts', credentials())).toEqual(['cached token: true', 'token valid for 3600 s']);
  });

  it('consumer resumes after its checkpoint and stops when told to', async () => {
    platform = await startPlatform();
    const topic = await createTopic(platform, [{ name: 'order_id', type: 'string' }]);
    const ids = await platform.events.publishBatch(topic, [{ order_id: 'A' }, { order_id: 'B' }, { order_id: 'C' }]);
    const dir = await mkdtemp(join(tmpdir(), 'client-consumer-'));
    const checkpoint = join(dir, 'checkpoint.txt');
    await writeFile(checkpoint, ids[0]!);
    const output = await run('consumer.ts', {
      PLATFORM_URL: platform.emulator.url,
      ACCESS_TOKEN: await platform.tokens.getToken(),
      TOPIC_ID: String(topic),
      CHECKPOINT_FILE: checkpoint,
      RUN_FOR_MS: '300',
    });
    expect(output.map((line) => line.split(' ')[1])).toEqual(['{"order_id":"B"}', '{"order_id":"C"}', 'after']);
    expect(await readFile(checkpoint, 'utf8')).toBe(ids[2]);
    await rm(dir, { recursive: true });
  });

  it('errors reports a 413 and the positions a batch could not store', async () => {
    platform = await startPlatform();
    const topic = await createTopic(platform, [
      { name: 'order_id', type: 'string' },
      { name: 'note', type: 'string', optional: true },
    ]);
    platform.emulator.faults.failBatchPositions([1]);
    platform.emulator.faults.failBatchPositions([0], { times: 2 }); // the resends carry only position 1
    const output = await run('errors.ts', {
      PLATFORM_URL: platform.emulator.url,
      ACCESS_TOKEN: await platform.tokens.getToken(),
      TOPIC_ID: String(topic),
    });
    expect(output[0]).toMatch(/^too large: \d+ > 1048576 bytes$/);
    expect(output.slice(1)).toEqual([expect.stringMatching(/^message 1 not stored: /)]);
  });
});
