import { spawn } from 'node:child_process';
import { mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { ordersSchema } from '../examples/generated/orders.js';
import { run as cli } from '../src/cli-program.js';
import { cliIo } from './support/cli.js';
import { createTopic, type Platform, startPlatform } from './support/emulator.js';

const packageDir = new URL('../', import.meta.url);
const read = (path: string) => readFile(new URL(path, packageDir), 'utf8');

describe('README', () => {
  it('includes every example file verbatim', async () => {
    const readme = await read('README.md');
    const included = [...readme.matchAll(/<!-- example: (\S+) -->\n```ts\n([\s\S]*?)```/g)];
    // Files under examples/generated/ are typegen's output, checked by `typegen --check` below.
    const files = (await readdir(new URL('examples/', packageDir), { withFileTypes: true }))
      .filter((entry) => entry.isFile())
      .map((entry) => `examples/${entry.name}`);
    expect(included.map(([, path]) => path).sort()).toEqual(files.sort());
    for (const [, path = '', code] of included) expect(code, path).toBe(await read(path));
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

  it('consumer resumes after its checkpoint, saves it, and stops on Ctrl-C', async () => {
    platform = await startPlatform();
    const topic = await createTopic(platform, [{ name: 'order_id', type: 'string' }]);
    const ids = await platform.events.publishBatch(topic, [{ order_id: 'A' }, { order_id: 'B' }, { order_id: 'C' }]);
    const dir = await mkdtemp(join(tmpdir(), 'client-consumer-'));
    const checkpoints = join(dir, 'checkpoints.json');
    await writeFile(checkpoints, JSON.stringify({ [`topic-${topic}`]: { messageId: ids[0] } }));
    // Its own process, so that Ctrl-C (SIGINT) goes to it alone: sent once it printed both messages.
    // Node runs the TypeScript as it is (22.13, the oldest the client supports, with the flag).
    const example = fileURLToPath(new URL('examples/consumer.ts', packageDir));
    const consumer = spawn(process.execPath, ['--experimental-strip-types', example], {
      env: {
        ...process.env,
        NODE_NO_WARNINGS: '1',
        PLATFORM_URL: platform.emulator.url,
        ACCESS_TOKEN: await platform.tokens.getToken(),
        TOPIC_ID: String(topic),
        CHECKPOINT_FILE: checkpoints,
      },
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    const output: string[] = [];
    for await (const line of createInterface({ input: consumer.stdout })) {
      output.push(line);
      if (output.length === 2) consumer.kill('SIGINT');
    }
    expect(output).toEqual([
      expect.stringMatching(/ \{"order_id":"B"\}$/),
      expect.stringMatching(/ \{"order_id":"C"\}$/),
      `stopped after ${ids[2]}`,
    ]);
    expect(JSON.parse(await readFile(checkpoints, 'utf8'))[`topic-${topic}`].messageId).toBe(ids[2]);
    await rm(dir, { recursive: true });
  });

  it('errors refuses a message over the size limit before sending, and lists what a batch could not store', async () => {
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
    expect(output[0]).toMatch(/^not sent: \d+ > 1048576 bytes$/);
    expect(output.slice(1)).toEqual([expect.stringMatching(/^message 1 not stored: /)]);
    expect(platform.sent.filter((s) => s.path === `/api/v1/topics/${topic}/publish`)).toEqual([]);
  });

  it('management lists every API key page by page and reports a missing topic', async () => {
    platform = await startPlatform();
    const { data: apiClient } = await platform.management.POST('/api/v2/api_clients', { body: { name: 'billing' } });
    for (const name of ['ci', 'backfill', 'old']) {
      await platform.management.POST('/api/v2/api_clients/{api_client_id}/api_keys', {
        params: { path: { api_client_id: apiClient?.data.id ?? 0 } },
        body: { name },
      });
    }
    const output = await run('management.ts', {
      PLATFORM_URL: platform.emulator.url,
      ACCESS_TOKEN: await platform.tokens.getToken(),
    });
    expect(output.filter((line) => line.startsWith('billing: '))).toEqual([
      'billing: ci (active)',
      'billing: backfill (active)',
      'billing: old (active)',
    ]);
    expect(output.at(-1)).toMatch(/^404: /);
  });

  it('typed-topic publishes, refuses a payload that does not match, and consumes typed messages', async () => {
    platform = await startPlatform();
    // A fresh emulator numbers topics from 1: the id the committed types were generated from.
    const topic = await createTopic(platform, structuredClone(ordersSchema) as never, 'orders');
    expect(topic).toBe(1);
    const output = await run('typed-topic.ts', {
      PLATFORM_URL: platform.emulator.url,
      ACCESS_TOKEN: await platform.tokens.getToken(),
    });
    expect(output).toEqual([
      'The message does not match the schema of topic 1: total: expected a number; customer: required',
      'ORD-1: 1 line(s), 149.9 for ana@example.com',
    ]);
  });

  it('typed-topic types are what typegen writes for the topic, and --check catches a schema change', async () => {
    platform = await startPlatform();
    const topic = await createTopic(platform, structuredClone(ordersSchema) as never, 'orders');
    const check = ['typegen', '--topic', String(topic), '--out', 'examples/generated/orders.ts', '--check'];
    const io = cliIo(platform);
    expect(await cli(check, io)).toBe(0);
    await platform.management.PUT('/api/event_streams/topics/{topic_id}', {
      params: { path: { topic_id: topic } },
      body: {
        schema: [...(structuredClone(ordersSchema) as never[]), { name: 'coupon', type: 'string', optional: true }],
      },
    });
    const drifted = cliIo(platform);
    expect(await cli(check, drifted)).toBe(1);
    expect(drifted.stderr.text()).toMatch(/^examples\/generated\/orders\.ts differs from the schema of topic 1 /);
  });
});
