import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { listeningUrl, runCli } from './support/cli-process.js';
import { assertConforms, createTopic, start, toAnswer, token } from './support/helpers.js';
import { NO_REDIS, sharedRedis, startRedis, uniquePrefix } from './support/redis-server.js';
import { tempDir } from './support/temp-dirs.js';

describe('platform-api-mock CLI', () => {
  it("--help lists every flag with its variable, and the README's flag table lists the same flags", async () => {
    const cli = runCli(['--help']);
    expect(await cli.exited).toBe(0);
    const help = cli.output();
    const flags = [...help.matchAll(/^ {2}(--[a-z-]+)/gm)]
      .map(([, flag]) => flag as string)
      .filter((flag) => flag !== '--help');
    expect(flags).toContain('--redis-reply-timeout');
    // Each option names the environment variable that sets it too (commander may wrap it onto the next line).
    for (const flag of flags) {
      expect(help.replace(/\s+/g, ' ')).toContain(
        `PLATFORM_API_MOCK_${flag.slice(2).replaceAll('-', '_').toUpperCase()}`,
      );
    }
    expect(help).toMatch(/^ {2}snapshot <dir> <file> /m);
    expect(help).toMatch(/^ {2}restore <file> <dir> /m);
    const readme = readFileSync(fileURLToPath(new URL('../README.md', import.meta.url)), 'utf8');
    const table = readme.split('| Flag | Default | Meaning |')[1]?.split('\n\n')[0] ?? '';
    const documented = [...table.matchAll(/`(--[a-z-]+)[^`]*`/g)].map(([, flag]) => flag);
    // Only a row's first cell names flags: the other cells mention flags they relate to.
    const rows = table.split('\n').map((row) => row.split(' | ')[0] ?? '');
    const tabled = documented.filter((flag) =>
      rows.some((row) => row.includes(`\`${flag} `) || row.includes(`\`${flag}\``)),
    );
    expect([...new Set(tabled)].sort()).toEqual([...flags].sort());
  }, 20_000);

  it('--help wraps its sentences at 80 columns, breaking a line only where the next word would not fit', async () => {
    const cli = runCli(['--help']);
    expect(await cli.exited).toBe(0);
    const lines = cli.output().trimEnd().split('\n');
    expect(lines.filter((line) => line.length > 80)).toEqual([]);
    // A line continues the one before when both are prose at column 0, or it sits alone in the
    // description column (30) of the option or command above.
    const continues = (line: string, before: string) =>
      (line !== '' && before !== '' && !/^\s/.test(line) && !/^\s/.test(before) && !before.endsWith(':')) ||
      /^ {30}\S/.test(line);
    const early = lines.flatMap((line, i) => {
      const before = lines[i - 1] ?? '';
      const firstWord = line.trim().split(' ')[0] ?? '';
      return i > 0 && continues(line, before) && before.length + 1 + firstWord.length <= 80
        ? [`${before}⏎${line}`]
        : [];
    });
    expect(early).toEqual([]);
  }, 20_000);

  it('takes its options from PLATFORM_API_MOCK_* variables, a flag winning over its variable', async () => {
    const cli = runCli(['--client-secret', 'flag-secret'], {
      env: {
        PLATFORM_API_MOCK_PORT: '0',
        PLATFORM_API_MOCK_CLIENT_ID: 'env-client',
        PLATFORM_API_MOCK_CLIENT_SECRET: 'env-secret',
        PLATFORM_API_MOCK_LOG_LEVEL: 'warn',
      },
    });
    try {
      const url = await listeningUrl(cli);
      const answer = await fetch(`${url}/oauth2/token`, {
        method: 'POST',
        headers: { authorization: `Basic ${Buffer.from('env-client:flag-secret').toString('base64')}` },
        body: new URLSearchParams({ grant_type: 'client_credentials' }),
      });
      expect(answer.status).toBe(200);
      expect(cli.output()).not.toContain('env-secret');
    } finally {
      cli.child.kill('SIGKILL');
    }
  });

  it('explains a bad flag value or an unknown flag, and exits 1', async () => {
    for (const [args, message] of [
      [['--port', 'abc'], "argument 'abc' is invalid. Expected a port number"],
      [['--max-batch-size', '0'], "argument '0' is invalid. Expected a positive integer"],
      [['--log-level', 'loud'], 'Allowed choices are silent, error, warn, info, debug'],
      [['--colour'], "unknown option '--colour'"],
    ] as const) {
      const cli = runCli([...args]);
      expect(await cli.exited).toBe(1);
      expect(cli.output()).toContain(message);
    }
    for (const [variable, value, message] of [
      ['PLATFORM_API_MOCK_PORT', 'abc', "value 'abc' from env 'PLATFORM_API_MOCK_PORT' is invalid. Expected a port"],
      ['PLATFORM_API_MOCK_MODE', 'fast', "value 'fast' from env 'PLATFORM_API_MOCK_MODE' is invalid"],
    ] as const) {
      const cli = runCli([], { env: { [variable]: value } });
      expect(await cli.exited).toBe(1);
      expect(cli.output()).toContain(message);
    }
  }, 30_000);

  it("says in its banner whether the management API keeps state or gives the spec's examples", async () => {
    for (const [args, line] of [
      [[], 'Management API  {url}/api/...  (stateful)'],
      [['--mode', 'prism'], "Management API  {url}/api/...  (the spec's example answers, stateless (--mode prism))"],
    ] as const) {
      const cli = runCli(['--port', '0', '--log-level', 'silent', ...args]);
      const url = await listeningUrl(cli);
      expect(cli.output()).toContain(line.replace('{url}', url));
      cli.child.kill('SIGTERM');
      await cli.exited;
    }
  }, 60_000);

  it('names in its banner the console and docs it serves, or the folder that holds none and how to add one', async () => {
    const cli = runCli(['--port', '0', '--log-level', 'silent', '--docs-dir', tempDir()]);
    const url = await listeningUrl(cli);
    expect(cli.output()).toContain(`  Console         ${url}/_emulator/console/\n`);
    expect(cli.output()).toMatch(
      /^ {2}Docs {12}none: The API documentation is not served: \S+ \(--docs-dir, docsDir\) holds no index.html\. Give the folder of a build and restart\.$/m,
    );
    cli.child.kill('SIGTERM');
    await cli.exited;
  }, 60_000);

  it('coverage prints what a running emulator answered, writes it as JSON, and exits 1 under a threshold', async () => {
    const server = await start();
    await token(server);
    const json = join(tempDir(), 'coverage.json');
    const passing = runCli(['coverage', server.url, '--api', 'auth', '--min-operations', '100', '--json', json]);
    expect(await passing.exited, passing.output()).toBe(0);
    expect(passing.output()).toMatch(
      /^API coverage of 1 requests since \S+\nAPI +Operations called .*\nauth +1\/1 \(100%\)/m,
    );
    expect(JSON.parse(readFileSync(json, 'utf8')).summary).toMatchObject({ apis: ['auth'], operationsPercent: 100 });
    const failing = runCli(['coverage', server.url, '--api', 'event-streams', '--min-operations', '50']);
    expect(await failing.exited).toBe(1);
    expect(failing.errors()).toContain(
      'platform-api-mock coverage: API coverage below its threshold: 0% of the operations called (0/3), below 50%',
    );
    await server.close();
    const gone = runCli(['coverage', server.url]);
    expect(await gone.exited).toBe(1);
    expect(gone.errors()).toMatch(/^platform-api-mock coverage: no coverage from http:\/\/127\.0\.0\.1:\d+: /);
  }, 60_000);

  it('--log-level debug logs each request with the status it was answered with', async () => {
    const cli = runCli(['--port', '0', '--log-level', 'debug']);
    try {
      const url = await listeningUrl(cli);
      await (await fetch(`${url}/oauth2/token`, { method: 'POST', body: 'grant_type=client_credentials' })).text();
      await (await fetch(`${url}/nowhere`)).text();
      const requestLines = () =>
        cli
          .output()
          .split('\n')
          .filter((line) => line.includes('"msg":"request"'))
          .map((line) => JSON.parse(line) as { method: string; url: string; status: number });
      await expect.poll(() => requestLines().length, { timeout: 60_000 }).toBe(2);
      expect(requestLines()).toMatchObject([
        { method: 'POST', url: '/oauth2/token', status: 400 },
        { method: 'GET', url: '/nowhere', status: 404 },
      ]);
    } finally {
      cli.child.kill('SIGKILL');
    }
  });

  it('prints its URL, credentials and a curl example, serves them, and shuts down on SIGTERM', async () => {
    const cli = runCli([
      '--port',
      '0',
      '--client-id',
      'ci-client',
      '--client-secret',
      'ci-secret',
      '--log-level',
      'warn',
    ]);
    try {
      const url = await listeningUrl(cli);
      expect(cli.output()).toContain(
        `curl -s -u 'ci-client:ci-secret' -d grant_type=client_credentials ${url}/oauth2/token`,
      );
      const answer = await fetch(`${url}/oauth2/token`, {
        method: 'POST',
        headers: {
          authorization: `Basic ${Buffer.from('ci-client:ci-secret').toString('base64')}`,
          'content-type': 'application/x-www-form-urlencoded',
        },
        body: 'grant_type=client_credentials',
      });
      const token = await toAnswer(answer);
      assertConforms('request_access_token', token);
      expect(token.status).toBe(200);
      cli.child.kill('SIGTERM');
      expect(await cli.exited).toBe(0);
      await expect(fetch(`${url}/oauth2/token`)).rejects.toThrow();
    } finally {
      cli.child.kill('SIGKILL');
    }
  });
});

describe('platform-api-mock with a data dir', () => {
  it('starts with a clean stderr, and refuses a data dir in use, corrupt or not writable with exit code 1', async () => {
    const dataDir = tempDir();
    const running = runCli(['--port', '0', '--data-dir', dataDir, '--log-level', 'error']);
    await listeningUrl(running);
    expect(running.output()).toContain(`Storage         ${dataDir} (durability full)`);
    const corrupt = tempDir();
    writeFileSync(join(corrupt, 'emulator.db'), 'not a database'.repeat(512));
    const database = (dir: string) => join(dir, 'emulator.db');
    for (const [dir, reason] of [
      [dataDir, `Cannot use ${database(dataDir)}: it is in use by another running emulator`],
      [corrupt, `Cannot use ${database(corrupt)}: it is corrupt or not a database`],
      // No process may create files there, root included (a read-only mode does not stop root).
      ['/proc/self', 'The data dir /proc/self is not writable'],
    ] as const) {
      const refused = runCli(['--port', '0', '--data-dir', dir]);
      expect(await refused.exited).toBe(1);
      expect(refused.output()).toContain(`platform-api-mock: cannot start: ${reason}`);
      expect(refused.output()).not.toContain('listening');
    }
    running.child.kill('SIGTERM');
    expect(await running.exited).toBe(0);
    expect(running.errors()).toBe('');
  }, 60_000);

  it('on a Node without node:sqlite, says which Node a data dir needs and exits 1 without a stack trace', async () => {
    // What Node 20 (or 22.12) answers to import('node:sqlite'), made by a resolve hook on this Node.
    const hook = `export async function resolve(specifier, context, next) {
      if (specifier !== 'node:sqlite') return next(specifier, context);
      throw Object.assign(new Error('No such built-in module: node:sqlite'), { code: 'ERR_UNKNOWN_BUILTIN_MODULE' });
    }`;
    const register = `import { register } from 'node:module'; register(${JSON.stringify(`data:text/javascript,${encodeURIComponent(hook)}`)});`;
    const nodeFlags = ['--import', `data:text/javascript,${encodeURIComponent(register)}`];
    const refused = runCli(['--port', '0', '--data-dir', tempDir()], { nodeFlags });
    expect(await refused.exited).toBe(1);
    expect(refused.errors()).toBe(
      `platform-api-mock: cannot start: a data dir needs Node.js 22.13 or later (for node:sqlite); this is Node.js ${process.version}. ` +
        'Run it on a newer Node, or leave out the data dir to keep the state in memory.\n',
    );
    // Without a data dir, the same Node runs the emulator in memory.
    const inMemory = runCli(['--port', '0'], { nodeFlags });
    await listeningUrl(inMemory);
    expect(inMemory.output()).toContain('Storage         in memory');
  }, 60_000);

  it('snapshots a data dir into a file and restores it into a new data dir', async () => {
    const dataDir = tempDir();
    const server = await start({ dataDir, clientId: 'seed', clientSecret: 'seed-secret' });
    const topicId = await createTopic(server, await token(server), { name: 'seeded' });
    await server.close();
    const seed = join(tempDir(), 'seed.db');
    const snapshot = runCli(['snapshot', dataDir, seed]);
    expect(await snapshot.exited).toBe(0);
    const again = runCli(['snapshot', dataDir, seed]);
    expect(await again.exited).toBe(1);
    expect(again.output()).toContain(`platform-api-mock snapshot: ${seed} already exists`);
    const restoredDir = join(tempDir(), 'restored');
    const restore = runCli(['restore', seed, restoredDir]);
    expect(await restore.exited).toBe(0);
    const restored = await start({ dataDir: restoredDir, clientId: 'seed', clientSecret: 'seed-secret' });
    const topic = await fetch(`${restored.url}/api/event_streams/topics/${topicId}`, {
      headers: { authorization: `Bearer ${await token(restored, 'seed', 'seed-secret')}` },
    });
    expect(((await topic.json()) as { name: string }).name).toBe('seeded');
  }, 60_000);
});

describe.skipIf(NO_REDIS !== undefined)(
  `platform-api-mock on Redis${NO_REDIS ? ` (skipped: ${NO_REDIS})` : ''}`,
  () => {
    it('names Redis and the prefix in its banner, and exits 1 naming a Redis it cannot reach', async () => {
      const { url } = await sharedRedis();
      const prefix = uniquePrefix();
      const running = runCli(['--port', '0', '--redis-url', url, '--redis-prefix', prefix, '--log-level', 'error']);
      await listeningUrl(running);
      expect(running.output()).toContain(`Storage         Redis ${url}, keys ${prefix}*`);

      const stopped = await startRedis();
      await stopped.stop();
      for (const [args, reason] of [
        [['--redis-url', stopped.url], `cannot start: Cannot connect to Redis at ${stopped.url}`],
        [
          ['--redis-url', url, '--data-dir', tempDir()],
          "option '--redis-url <url>' cannot be used with option '--data-dir",
        ],
      ] as const) {
        const refused = runCli(['--port', '0', ...args]);
        expect(await refused.exited).toBe(1);
        expect(refused.output()).toContain(reason);
        expect(refused.output()).not.toContain('listening');
      }
      running.child.kill('SIGTERM');
      expect(await running.exited).toBe(0);
      expect(running.errors()).toBe('');
    }, 60_000);
  },
);
