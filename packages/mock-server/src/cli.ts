// platform-api-mock: starts the emulator on one port and prints how to use it; `snapshot` and
// `restore` copy the database of a data dir into a file and back; `coverage` reports what a running
// emulator's requests covered of the APIs.
import { readFileSync } from 'node:fs';
import { isPositiveInteger } from '@platform-api/spec/conventions';
import { Command, InvalidArgumentError, Option } from 'commander';
import { parseState, StateError } from './engine/state-document.js';
import { consoleSite, docsSite, type StaticSite } from './http/static-files.js';
import {
  DEFAULT_JOURNAL_SIZE,
  DEFAULT_REDIS_PREFIX,
  DEFAULT_REDIS_REPLY_TIMEOUT_MS,
  type LogLevel,
} from './options.js';
import { type MockServer, startMockServer } from './server.js';
import { redactedUrl } from './store/redis/url.js';
import type { Durability } from './store/sqlite/data-dir.js';
import type { CoverageApi, CoverageOptions, CoverageReport } from './testkit/coverage.js';

const LOG_LEVELS: LogLevel[] = ['silent', 'error', 'warn', 'info', 'debug'];
const DURABILITIES: Durability[] = ['full', 'relaxed'];
const ENV_PREFIX = 'PLATFORM_API_MOCK_';
/** A signal's drain (answers in flight, waiting consumers, storage) has this long before the process exits anyway. */
const STOP_DEADLINE_MS = 4000;

hideSqliteExperimentalWarning();
await buildProgram().parseAsync();

/** The command line: the emulator (the default command) and the commands beside it. */
function buildProgram(): Command {
  const program: Command = new Command('platform-api-mock')
    .description(
      'Local emulator of the platform API: stateful event streams, token endpoint, topics, API keys and ' +
        'every management operation, from state (--mode prism: example answers). One process, one port.',
    )
    // Commander wraps the description and the options to the terminal's width, not text added after them.
    .addHelpText('after', () =>
      wrapped(
        program,
        `Every option can also be set by the environment variable named after it (--client-id <id>: ${ENV_PREFIX}CLIENT_ID=<id>), for containers and orchestrators; a flag wins over its variable.`,
      ),
    );
  // In the order --help lists them.
  const options = [...accessOptions(), ...limitOptions(), ...modeOptions(), ...storageOptions(), ...siteOptions()];
  for (const option of options) program.addOption(option);
  program.showHelpAfterError('(run platform-api-mock --help for the options)').action(start);
  addCopyCommands(program);
  addCoverageCommand(program);
  return program;
}

/** Where the emulator listens, and the bootstrap API key. */
function accessOptions(): Option[] {
  return [
    setting('--host <host>', 'address to listen on').default('127.0.0.1'),
    setting('--port <port>', 'port to listen on (0: a free port)').argParser(port).default(4010),
    setting('--client-id <id>', 'client ID of the bootstrap API key (generated when absent)'),
    setting('--client-secret <secret>', 'client secret of the bootstrap API key (generated when absent)'),
    setting(
      '--admin-token <token>',
      "bearer token the fleet-level emulator API needs (workspaces, another tenant's state); generated and printed when --host is beyond loopback",
    ),
  ];
}

/** The event-streams API's limits, the journal's size and the tokens' lifetime. */
function limitOptions(): Option[] {
  return [
    setting('--max-batch-size <n>', 'largest consume batch_size (default 50)').argParser(positiveIntegerArgument),
    setting(
      '--journal-size <n>',
      'answered requests kept in the request journal (/_emulator/requests; at most 64 MiB in all); 0: off',
    )
      .argParser(wholeNumber)
      .default(DEFAULT_JOURNAL_SIZE),
    setting('--max-message-bytes <n>', 'largest message in bytes (default 1048576)').argParser(positiveIntegerArgument),
    setting('--max-batch-messages <n>', 'most messages in one batch publish (default 100)').argParser(
      positiveIntegerArgument,
    ),
    setting('--rate-limit <n>', 'requests per minute per API key on the event-streams API (default off)').argParser(
      positiveIntegerArgument,
    ),
    setting('--token-ttl <seconds>', 'lifetime of access tokens in seconds')
      .argParser(positiveIntegerArgument)
      .default(3600),
  ];
}

/** The log, how the management API answers, and the state loaded at start. */
function modeOptions(): Option[] {
  return [
    setting('--log-level <level>', 'log level').choices(LOG_LEVELS).default('info'),
    setting('--mode <mode>', 'engine: stateful management resources; prism: example answers')
      .choices(['engine', 'prism'])
      .default('engine'),
    setting('--seed <file>', 'state document (JSON or YAML) to load at start').argParser(seedFile),
  ];
}

/** Where the state is kept: in memory (none of these), a data dir, or Redis. */
function storageOptions(): Option[] {
  return [
    setting('--data-dir <dir>', 'keep every piece of state in a database in this directory (default: in memory)'),
    setting('--durability <mode>', 'with --data-dir: answer a change once it is on disk (full) or written (relaxed)')
      .choices(DURABILITIES)
      .default('full'),
    setting(
      '--redis-url <url>',
      'keep every piece of state in Redis (redis://HOST:PORT[/DB], or a cluster: redis+cluster://HOST:PORT,HOST:PORT), shared by every emulator given it',
    ).conflicts('dataDir'),
    setting('--redis-prefix <prefix>', 'with --redis-url: prefix of every key').default(DEFAULT_REDIS_PREFIX),
    setting('--redis-reply-timeout <ms>', 'with --redis-url: answer 500 when Redis has not answered within this time')
      .argParser(positiveIntegerArgument)
      .default(DEFAULT_REDIS_REPLY_TIMEOUT_MS),
  ];
}

/** The folders of the specs, docs and console served (the installed ones by default). */
function siteOptions(): Option[] {
  return [
    setting('--spec-dir <dir>', 'serve the bundled specs (<api>.json) of this folder (default: the installed ones)'),
    setting('--docs-dir <dir>', 'serve the rendered docs of this folder under /docs/ (default: the installed ones)'),
    setting(
      '--console-dir <dir>',
      'serve the web console of this folder under /_emulator/console/ (default: the installed one)',
    ),
  ];
}

/** `snapshot` and `restore`: a data dir's database into a file and back (the SQLite code loaded only then). */
function addCopyCommands(program: Command): void {
  program
    .command('snapshot')
    .description('copy the database of a data dir (not in use) into a new file, e.g. a seed to commit')
    .argument('<dir>', 'the data dir')
    .argument('<file>', 'the snapshot file to write')
    .action((dir: string, file: string) =>
      copy(
        'snapshot',
        async () => (await import('./store/sqlite/snapshot.js')).snapshotDataDir(dir, file),
        `${dir} -> ${file}`,
      ),
    );
  program
    .command('restore')
    .description('make a new data dir from a snapshot file')
    .argument('<file>', 'the snapshot file')
    .argument('<dir>', 'the data dir to create (it must hold no database)')
    .action((file: string, dir: string) =>
      copy(
        'restore',
        async () => (await import('./store/sqlite/snapshot.js')).restoreDataDir(file, dir),
        `${file} -> ${dir}`,
      ),
    );
}

function addCoverageCommand(program: Command): void {
  program
    .command('coverage')
    .description(
      'print the API coverage of the requests a running emulator answered (GET /_emulator/coverage): the operations called, the statuses answered, the answers no spec declares; exit 1 under a threshold',
    )
    .argument('[url]', "the emulator's address", 'http://127.0.0.1:4010')
    .addOption(
      new Option('--api <api...>', 'the APIs reported (default: those called)').choices([
        'event-streams',
        'auth',
        'management',
      ]),
    )
    .option('--min-operations <percent>', 'exit 1 when fewer of the operations were called', percentage)
    .option('--min-statuses <percent>', 'exit 1 when fewer of the documented statuses were answered', percentage)
    .option('--json <file>', 'write the report as JSON to this file')
    .option('--junit <file>', 'write it as JUnit XML to this file')
    .action(coverage);
}

/** Text wrapped as commander wraps its help: to the terminal's width, 80 columns when not a terminal. */
function wrapped(program: Command, text: string): string {
  const width = program.configureOutput().getOutHelpWidth?.() ?? 80;
  return `\n${program.createHelp().boxWrap(text, width)}`;
}

/** A count given on the command line (the rule is the conventions' isPositiveInteger; the message, commander's style). */
function positiveIntegerArgument(value: string): number {
  if (!isPositiveInteger(value)) throw new InvalidArgumentError('Expected a positive integer.');
  return Number(value);
}

function percentage(value: string): number {
  const number = Number(value);
  if (!/^\d+(\.\d+)?$/.test(value) || number > 100)
    throw new InvalidArgumentError('Expected a percentage from 0 to 100.');
  return number;
}

function wholeNumber(value: string): number {
  const number = Number(value);
  if (!/^\d+$/.test(value) || !Number.isSafeInteger(number)) throw new InvalidArgumentError('Expected a whole number.');
  return number;
}

function seedFile(path: string): { path: string; text: string } {
  try {
    return { path, text: readFileSync(path, 'utf8') };
  } catch (error) {
    throw new InvalidArgumentError(`Cannot read ${path}: ${(error as Error).message}`);
  }
}

/**
 * An option that can also be set from the environment (commander reads the variable, and a flag on the
 * command line wins over it): --client-id <id> reads PLATFORM_API_MOCK_CLIENT_ID.
 */
function setting(flags: string, description: string): Option {
  const long = /--([a-z-]+)/.exec(flags)?.[1] ?? flags;
  return new Option(flags, description).env(`${ENV_PREFIX}${long.replaceAll('-', '_').toUpperCase()}`);
}

function port(value: string): number {
  const number = Number(value);
  if (!/^\d+$/.test(value) || number > 65535) throw new InvalidArgumentError('Expected a port number from 0 to 65535.');
  return number;
}

interface StartFlags {
  host: string;
  port: number;
  clientId?: string;
  clientSecret?: string;
  adminToken?: string;
  maxBatchSize?: number;
  maxMessageBytes?: number;
  maxBatchMessages?: number;
  rateLimit?: number;
  tokenTtl: number;
  journalSize: number;
  logLevel: LogLevel;
  mode: 'engine' | 'prism';
  seed?: { path: string; text: string };
  dataDir?: string;
  durability: Durability;
  redisUrl?: string;
  redisPrefix: string;
  redisReplyTimeout: number;
  specDir?: string;
  docsDir?: string;
  consoleDir?: string;
}

async function start(flags: StartFlags): Promise<void> {
  let server: MockServer;
  try {
    const seed = flags.seed && (await parseState(flags.seed.text));
    server = await startMockServer({
      host: flags.host,
      port: flags.port,
      clientId: flags.clientId,
      clientSecret: flags.clientSecret,
      adminToken: flags.adminToken,
      tokenTtlSeconds: flags.tokenTtl,
      journalSize: flags.journalSize,
      logLevel: flags.logLevel,
      mode: flags.mode,
      seed,
      limits: {
        maxBatchSize: flags.maxBatchSize,
        maxMessageBytes: flags.maxMessageBytes,
        maxBatchMessages: flags.maxBatchMessages,
        rateLimitPerMinute: flags.rateLimit,
      },
      dataDir: flags.dataDir,
      durability: flags.durability,
      redisUrl: flags.redisUrl,
      redisPrefix: flags.redisPrefix,
      redisReplyTimeoutMs: flags.redisReplyTimeout,
      specDir: flags.specDir,
      docsDir: flags.docsDir,
      consoleDir: flags.consoleDir,
    });
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    const reason =
      code === 'EADDRINUSE' ? `port ${flags.port} is already in use (try --port 0)` : (error as Error).message;
    const seedPrefix = error instanceof StateError && flags.seed ? `--seed ${flags.seed.path}: ` : '';
    console.error(`platform-api-mock: cannot start: ${seedPrefix}${reason}`);
    process.exit(1);
  }
  console.log(banner(server, flags));
  stopOnSignals(server);
}

function stopOnSignals(server: MockServer): void {
  let closing = false;
  for (const signal of ['SIGINT', 'SIGTERM'] as const) {
    process.on(signal, () => {
      if (closing) process.exit(1);
      closing = true;
      console.log(`\n${signal}: shutting down`);
      // Orchestrators (podman/docker stop) kill after a grace period (10 s by default); the exit stays well within it.
      setTimeout(() => {
        console.error(`platform-api-mock: not stopped ${STOP_DEADLINE_MS} ms after ${signal}; exiting`);
        process.exit(1);
      }, STOP_DEADLINE_MS).unref();
      server.close().then(
        () => process.exit(0),
        (error: Error) => {
          console.error(error);
          process.exit(1);
        },
      );
    });
  }
}

async function coverage(url: string, options: Omit<CoverageOptions, 'apis'> & { api?: CoverageApi[] }): Promise<void> {
  const { api, ...rest } = options;
  // Loaded here: starting the emulator needs neither the emulator API's client nor the report.
  const [{ Emulator }, { reportCoverage }] = await Promise.all([
    import('./testkit/emulator.js'),
    import('./testkit/coverage.js'),
  ]);
  let report: CoverageReport;
  try {
    report = await new Emulator({ url, clientId: '', clientSecret: '' }).coverage();
  } catch (error) {
    const cause = (error as Error & { cause?: Error }).cause?.message;
    console.error(`platform-api-mock coverage: no coverage from ${url}: ${cause ?? (error as Error).message}`);
    process.exit(1);
  }
  try {
    await reportCoverage(report, { ...rest, ...(api && { apis: api }) });
  } catch (error) {
    console.error(`platform-api-mock coverage: ${(error as Error).message}`);
    process.exit(1);
  }
}

async function copy(command: string, run: () => Promise<void>, done: string): Promise<void> {
  try {
    await run();
  } catch (error) {
    console.error(`platform-api-mock ${command}: ${(error as Error).message}`);
    process.exit(1);
  }
  console.log(`platform-api-mock ${command}: ${done}`);
}

/**
 * node:sqlite (loaded with the first data dir) is experimental on Node 22 and says so on stderr;
 * the emulator's output stays clean of that one warning, and passes on every other.
 */
function hideSqliteExperimentalWarning(): void {
  const emitWarning = process.emitWarning;
  process.emitWarning = ((warning: string | Error, ...rest: unknown[]) => {
    const message = typeof warning === 'string' ? warning : warning.message;
    if (message.startsWith('SQLite is an experimental feature')) return;
    Reflect.apply(emitWarning, process, [warning, ...rest]);
  }) as typeof process.emitWarning;
}

/** The admin token's line: the token when made at this start (printed here only), what to send when given. */
function adminTokenLine({ adminToken }: MockServer, flags: StartFlags): string {
  if (adminToken === undefined) return '';
  const token = flags.adminToken === undefined ? adminToken : 'the one given (--admin-token)';
  return `\n  Admin token     ${token}: Authorization: Bearer <admin token> on /_emulator/workspaces and on another tenant's state`;
}

function banner(server: MockServer, flags: StartFlags): string {
  const { url, clientId, clientSecret } = server;
  const { dataDir, durability, redisUrl, redisPrefix, mode } = flags;
  const management = mode === 'prism' ? "the spec's example answers, stateless (--mode prism)" : 'stateful';
  const storage = redisUrl
    ? `Redis ${redactedUrl(redisUrl)}, keys ${redisPrefix}* (shared with every emulator given them)`
    : dataDir
      ? `${dataDir} (durability ${durability})`
      : 'in memory (--data-dir DIR keeps it)';
  // Each front end's address, or what is absent and how to add it.
  const served = (site: StaticSite) => (site.dir ? `${url}${site.prefix}/` : `none: ${site.notBuilt}`);
  return `Platform API emulator listening on ${url}
  Console         ${served(consoleSite(flags.consoleDir))}
  Event streams   ${url}/api/v1/topics/{topic_id}/publish | /consume, ${url}/api/v1/batch/topics/{topic_id}/publish
  Token endpoint  ${url}/oauth2/token
  Management API  ${url}/api/...  (${management})
  Docs            ${served(docsSite(flags.docsDir))}
  Faults          POST/DELETE ${url}/_emulator/faults
  State           GET/PUT ${url}/_emulator/state, POST ${url}/_emulator/reset
  Requests        GET ${url}/_emulator/requests (the journal), POST ${url}/_emulator/requests/verify
  Clock           GET/PUT/DELETE ${url}/_emulator/clock
  Storage         ${storage}
  Client ID       ${clientId}
  Client secret   ${clientSecret}${adminTokenLine(server, flags)}

Try it:
  TOKEN=$(curl -s -u '${clientId}:${clientSecret}' -d grant_type=client_credentials ${url}/oauth2/token | sed -E 's/.*"access_token":"([^"]+)".*/\\1/')
  curl -s -H "Authorization: Bearer $TOKEN" -H 'Content-Type: application/json' \\
    -d '{"name":"orders","schema":[{"name":"order_id","type":"string"}]}' ${url}/api/event_streams/topics
  curl -s -H "Authorization: Bearer $TOKEN" -H 'Content-Type: application/json' \\
    -d '{"order_id":"ORD-1"}' ${url}/api/v1/topics/1/publish
  curl -s -H "Authorization: Bearer $TOKEN" -H 'Content-Type: application/json' \\
    -d '{"timeout_secs":5}' ${url}/api/v1/topics/1/consume
`;
}
