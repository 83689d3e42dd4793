import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { run } from '../src/cli-program.js';
import { cliIo } from './support/cli.js';
import { createTopic, numbered, type Platform, startPlatform } from './support/emulator.js';

let platform: Platform;
let dir: string;
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'cli-'));
});
afterEach(async () => {
  await platform?.close();
  await rm(dir, { recursive: true, force: true });
});

/** Everything the command line printed, to check that no credential is among it. */
const printed = (...ios: ReturnType<typeof cliIo>[]) => ios.map((io) => io.stdout.text() + io.stderr.text()).join('');

describe('platform-api', () => {
  it('prints its help and exits 0; an unknown command or option exits 2', async () => {
    platform = await startPlatform();
    const help = cliIo(platform);
    expect(await run(['--help'], help)).toBe(0);
    expect(help.stdout.text()).toMatch(/^Usage: platform-api \[options\] \[command\]/);
    for (const command of ['token', 'publish', 'tail', 'typegen'])
      expect(help.stdout.text()).toContain(`  ${command} `);
    const tailHelp = cliIo(platform);
    expect(await run(['tail', '--help'], tailHelp)).toBe(0);
    expect(tailHelp.stdout.text()).toContain('--checkpoint <file>');

    const unknown = cliIo(platform);
    expect(await run(['consume'], unknown)).toBe(2);
    expect(unknown.stderr.text()).toContain("unknown command 'consume'");
    const badOption = cliIo(platform);
    expect(await run(['publish', '--topic', 'x', '{}'], badOption)).toBe(2);
    expect(badOption.stderr.text()).toContain("option '--topic <id>' argument 'x' is invalid");
  });

  it('token prints a working access token and never the secret', async () => {
    platform = await startPlatform();
    const io = cliIo(platform, { env: { PLATFORM_API_TOKEN: '' } });
    expect(await run(['token', '--verbose'], io)).toBe(0);
    const token = io.stdout.text().trim();
    const answer = await fetch(`${platform.emulator.url}/api/event_streams/topics`, {
      headers: { authorization: `Bearer ${token}` },
    });
    expect(answer.status).toBe(200);
    expect(io.stderr.json()).toEqual([{ type: 'token', reason: 'first', expiresInSeconds: 3600 }]);
    expect(printed(io)).not.toContain(platform.emulator.clientSecret);
  });

  it('says which credentials are missing (exit 2), and does not print the ones it has', async () => {
    platform = await startPlatform();
    const noUrl = cliIo(platform, { env: { PLATFORM_API_URL: '' } });
    expect(await run(['token'], noUrl)).toBe(2);
    expect(noUrl.stderr.text()).toMatch(/^platform-api: Where is the platform\? Give --url or --data-center/);
    const noEvents = cliIo(platform, {
      env: { PLATFORM_API_URL: '', PLATFORM_API_DATA_CENTER: 'kr', PLATFORM_API_AUTH_URL: platform.emulator.url },
    });
    expect(await run(['tail', '--topic', '1'], noEvents)).toBe(2);
    expect(noEvents.stderr.text()).toBe(
      'platform-api: The event-streams API has no data center "kr"; use one of us, eu, jp, sg, au, trial.\n',
    );
    const noSecret = cliIo(platform, { env: { PLATFORM_API_CLIENT_SECRET: '' } });
    expect(await run(['publish', '--topic', '1', '{}'], noSecret)).toBe(2);
    expect(noSecret.stderr.text()).toMatch(/^platform-api: Give credentials: --client-id and --client-secret/);
    const wrongSecret = cliIo(platform);
    expect(await run(['token', '--client-secret', 'not-the-secret-4f1'], wrongSecret)).toBe(1);
    expect(wrongSecret.stderr.text()).toMatch(/^platform-api: POST \/oauth2\/token failed with 40[01]: invalid_client/);
    expect(printed(noUrl, noEvents, noSecret, wrongSecret)).not.toContain('not-the-secret-4f1');
    expect(printed(noUrl, noEvents, noSecret, wrongSecret)).not.toContain(platform.emulator.clientSecret);
  });

  it('publish sends one message and prints its id', async () => {
    platform = await startPlatform();
    const topic = await createTopic(platform);
    const io = cliIo(platform);
    expect(await run(['publish', '--topic', String(topic), '{"n":7}'], io)).toBe(0);
    const [{ message_id }] = io.stdout.json() as [{ message_id: string }];
    const stored = [];
    for await (const m of platform.events.consume(topic, { timeoutSecs: 0, stopAtEnd: true })) stored.push(m);
    expect(stored.map((m) => [m.message_id, m.payload])).toEqual([[message_id, { n: 7 }]]);

    const refused = cliIo(platform);
    expect(await run(['publish', '--topic', String(topic), '{"n":"seven"}'], refused)).toBe(1);
    expect(refused.stderr.text()).toMatch(/failed with 400: SCHEMA_MISMATCH/);
    const notJson = cliIo(platform);
    expect(await run(['publish', '--topic', String(topic), '[1]'], notJson)).toBe(2);
    expect(notJson.stderr.text()).toBe('platform-api: The message is not a JSON object (a message is an object)\n');
  });

  it('publish reads NDJSON and reports, per line, what was stored and what was resent', async () => {
    platform = await startPlatform();
    const topic = await createTopic(platform);
    platform.emulator.faults.failBatchPositions([1, 3]);
    const stdin = `${numbered(5)
      .map((p) => JSON.stringify(p))
      .join('\n\n')}\n`;
    const io = cliIo(platform, { stdin });
    expect(await run(['publish', '--topic', String(topic)], io)).toBe(0);
    const report = io.stdout.json() as { line?: number; message_id?: string; attempts?: number }[];
    expect(report.slice(0, 5).map(({ line, attempts }) => [line, attempts])).toEqual([
      [1, 1],
      [3, 2],
      [5, 1],
      [7, 2],
      [9, 1],
    ]);
    expect(report.slice(0, 5).every((entry) => typeof entry.message_id === 'string')).toBe(true);
    expect(report[5]).toEqual({ summary: { messages: 5, stored: 5, resent: 2, failed: 0 } });
  });

  it('publish reports the lines that could not be stored and exits 1', async () => {
    platform = await startPlatform();
    const topic = await createTopic(platform);
    platform.emulator.faults.failBatchPositions([1]);
    platform.emulator.faults.failBatchPositions([0], { times: 3 }); // each resend carries line 2 alone
    const io = cliIo(platform, { stdin: '{"n":1}\n{"n":2}\n' });
    expect(await run(['publish', '--topic', String(topic)], io)).toBe(1);
    expect(io.stdout.json()).toEqual([
      { line: 1, message_id: expect.any(String), attempts: 1 },
      { line: 2, error: expect.any(String), attempts: 4 },
      { summary: { messages: 2, stored: 1, resent: 1, failed: 1 } },
    ]);
  });

  it('publish names the input line of a message the platform refused, and what was and was not stored', async () => {
    platform = await startPlatform();
    const topic = await createTopic(platform);
    // Two requests of two lines; the second (lines 4 and 6, a blank line between) holds the bad message.
    const io = cliIo(platform, { stdin: '{"n":1}\n{"n":2}\n\n{"n":3}\n\n{"n":"four"}\n' });
    expect(await run(['publish', '--topic', String(topic), '--max-batch-messages', '2'], io)).toBe(1);
    expect(io.stdout.json()).toEqual([
      { line: 1, message_id: expect.any(String), attempts: 1 },
      { line: 2, message_id: expect.any(String), attempts: 1 },
      {
        line: 4,
        error: 'not stored: the platform refused the batch request that carried it because of line 6',
        attempts: 1,
      },
      {
        line: 6,
        error: "SCHEMA_MISMATCH: Field 'n' must be an integer (the platform refused the batch request with 400)",
        attempts: 1,
      },
      { summary: { messages: 4, stored: 2, resent: 0, failed: 2 } },
    ]);
    expect(io.stderr.text()).toBe(
      'platform-api: 2 of 4 lines stored; not stored: lines 4, 6 (the reason of each is in its report line)\n',
    );
  });

  it('publish sends nothing when a line is not a JSON object or is too large (exit 2)', async () => {
    platform = await startPlatform();
    const topic = await createTopic(platform);
    const io = cliIo(platform, { stdin: '{"n":1}\n{"n":\n' });
    expect(await run(['publish', '--topic', String(topic)], io)).toBe(2);
    expect(io.stderr.text()).toMatch(/^platform-api: Line 2 is not JSON: /);
    const large = cliIo(platform, { stdin: `{"n":1}\n{"n":2,"pad":"${'x'.repeat(1_048_576)}"}\n` });
    expect(await run(['publish', '--topic', String(topic)], large)).toBe(2);
    expect(large.stderr.text()).toBe(
      'platform-api: Line 2 is 1048592 bytes of JSON; the platform accepts at most 1048576\n',
    );
    expect(platform.sent.filter((s) => s.path.includes('/publish'))).toEqual([]);
  });

  it('tail prints NDJSON and resumes from its checkpoint file', async () => {
    platform = await startPlatform();
    const topic = await createTopic(platform);
    await platform.events.publishBatch(topic, numbered(3));
    const checkpoint = join(dir, 'tail.json');
    const tail = async () => {
      const io = cliIo(platform);
      const args = ['tail', '--topic', String(topic), '--checkpoint', checkpoint, '--stop-at-end', '--wait', '0'];
      expect(await run(args, io)).toBe(0);
      return io.stdout.json() as { message_id: string; time: string; payload: { n: number } }[];
    };
    const first = await tail();
    expect(first.map((m) => m.payload.n)).toEqual([0, 1, 2]);
    expect(Object.keys(first[0] ?? {})).toEqual(['message_id', 'time', 'payload']);
    expect(JSON.parse(await readFile(checkpoint, 'utf8'))).toEqual({
      [`topic-${topic}`]: { messageId: first[2]?.message_id, time: first[2]?.time },
    });
    await platform.events.publishBatch(topic, [{ n: 3 }]);
    expect((await tail()).map((m) => m.payload.n)).toEqual([3]);
    expect(await tail()).toEqual([]);
  });

  it('tail stops when told to, after the message it is writing', async () => {
    platform = await startPlatform();
    const topic = await createTopic(platform);
    await platform.events.publishBatch(topic, numbered(3));
    const stop = new AbortController();
    const io = cliIo(platform, { signal: stop.signal });
    const write = io.stdout.write;
    io.stdout.write = (chunk, callback) => {
      if (chunk.includes('"n":1')) stop.abort(); // Ctrl-C while message 1 is written
      return write(chunk, callback);
    };
    const checkpoint = join(dir, 'tail.json');
    expect(await run(['tail', '--topic', String(topic), '--checkpoint', checkpoint], io)).toBe(0);
    const lines = io.stdout.json() as { message_id: string; payload: { n: number } }[];
    expect(lines.map((m) => m.payload.n)).toEqual([0, 1]);
    expect(JSON.parse(await readFile(checkpoint, 'utf8'))[`topic-${topic}`].messageId).toBe(lines[1]?.message_id);
  });

  it('tail refuses a bad --since or --on-expired (exit 2)', async () => {
    platform = await startPlatform();
    const since = cliIo(platform);
    expect(await run(['tail', '--topic', '1', '--since', 'last week'], since)).toBe(2);
    expect(since.stderr.text()).toBe("platform-api: --since last week is not an RFC 3339 time or 'now'\n");
    const policy = cliIo(platform);
    expect(await run(['tail', '--topic', '1', '--on-expired', 'skip'], policy)).toBe(2);
    expect(policy.stderr.text()).toContain('Allowed choices are since-time, oldest, fail.');
  });

  it('typegen writes the types of a topic, and --check tells whether a file is current', async () => {
    platform = await startPlatform();
    const topic = await createTopic(platform, [{ name: 'sku', type: 'string' }], 'stock-moves');
    const out = join(dir, 'stock-moves.ts');
    const io = cliIo(platform);
    expect(await run(['typegen', '--topic', String(topic), '--out', out], io)).toBe(0);
    expect(io.stdout.text()).toBe(`Wrote ${out}: StockMoves from the schema of topic ${topic} (stock-moves).\n`);
    expect(await readFile(out, 'utf8')).toContain('export interface StockMoves {\n  sku: string;\n}');

    const check = ['typegen', '--topic', String(topic), '--out', out, '--check'];
    expect(await run(check, cliIo(platform))).toBe(0);
    await platform.management.PUT('/api/event_streams/topics/{topic_id}', {
      params: { path: { topic_id: topic } },
      body: {
        schema: [
          { name: 'sku', type: 'string' },
          { name: 'qty', type: 'integer' },
        ],
      },
    });
    const drifted = cliIo(platform);
    expect(await run(check, drifted)).toBe(1);
    expect(drifted.stderr.text()).toBe(
      `${out} differs from the schema of topic ${topic} (first difference at line 7: expected "  /** An integer. */"); ` +
        `run platform-api typegen --topic ${topic} --out ${out}\n`,
    );
    const missing = cliIo(platform);
    expect(await run(['typegen', '--topic', '999', '--out', out], missing)).toBe(1);
    expect(missing.stderr.text()).toMatch(
      /^platform-api: GET \/api\/event_streams\/topics\/\{topic_id\} failed with 404/,
    );
  });
});
