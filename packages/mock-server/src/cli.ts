#!/usr/bin/env node
// platform-api-mock: starts the emulator on one port and prints how to use it.
import { readFileSync } from 'node:fs';
import { Command, InvalidArgumentError, Option } from 'commander';
import { parseState, StateError } from './engine/state.js';
import type { LogLevel } from './options.js';
import { type MockServer, startMockServer } from './server.js';

const LOG_LEVELS: LogLevel[] = ['silent', 'error', 'warn', 'info', 'debug'];

function positiveInteger(value: string): number {
  const number = Number(value);
  if (!/^\d+$/.test(value) || !Number.isSafeInteger(number) || number < 1) {
    throw new InvalidArgumentError('Expected a positive integer.');
  }
  return number;
}

function seedFile(path: string): { path: string; text: string } {
  try {
    return { path, text: readFileSync(path, 'utf8') };
  } catch (error) {
    throw new InvalidArgumentError(`Cannot read ${path}: ${(error as Error).message}`);
  }
}

function port(value: string): number {
  const number = Number(value);
  if (!/^\d+$/.test(value) || number > 65535) throw new InvalidArgumentError('Expected a port number from 0 to 65535.');
  return number;
}

const program = new Command('platform-api-mock')
  .description(
    'Local emulator of the platform API: stateful event streams, token endpoint, topics, API keys and\n' +
      'every management resource the spec describes; Prism answers the rest. One process, one port.',
  )
  .option('--host <host>', 'address to listen on', '127.0.0.1')
  .option('--port <port>', 'port to listen on (0: a free port)', port, 4010)
  .option('--client-id <id>', 'client ID of the bootstrap API key (generated when absent)')
  .option('--client-secret <secret>', 'client secret of the bootstrap API key (generated when absent)')
  .option('--max-batch-size <n>', 'largest consume batch_size (default 50)', positiveInteger)
  .option('--max-message-bytes <n>', 'largest message in bytes (default 1048576)', positiveInteger)
  .option('--max-batch-messages <n>', 'most messages in one batch publish (default 100)', positiveInteger)
  .option('--rate-limit <n>', 'requests per minute per API key on the event-streams API (default off)', positiveInteger)
  .option('--token-ttl <seconds>', 'lifetime of access tokens in seconds', positiveInteger, 3600)
  .addOption(new Option('--log-level <level>', 'log level').choices(LOG_LEVELS).default('info'))
  .addOption(
    new Option('--mode <mode>', 'engine: stateful management resources; prism: example answers')
      .choices(['engine', 'prism'])
      .default('engine'),
  )
  .option('--seed <file>', 'state document (JSON or YAML) to load at start', seedFile)
  .showHelpAfterError('(run platform-api-mock --help for the options)');

program.parse();
const flags = program.opts<{
  host: string;
  port: number;
  clientId?: string;
  clientSecret?: string;
  maxBatchSize?: number;
  maxMessageBytes?: number;
  maxBatchMessages?: number;
  rateLimit?: number;
  tokenTtl: number;
  logLevel: LogLevel;
  mode: 'engine' | 'prism';
  seed?: { path: string; text: string };
}>();

let server: MockServer;
try {
  const seed = flags.seed && (await parseState(flags.seed.text));
  server = await startMockServer({
    host: flags.host,
    port: flags.port,
    clientId: flags.clientId,
    clientSecret: flags.clientSecret,
    tokenTtlSeconds: flags.tokenTtl,
    logLevel: flags.logLevel,
    mode: flags.mode,
    seed,
    limits: {
      maxBatchSize: flags.maxBatchSize,
      maxMessageBytes: flags.maxMessageBytes,
      maxBatchMessages: flags.maxBatchMessages,
      rateLimitPerMinute: flags.rateLimit,
    },
  });
} catch (error) {
  const code = (error as NodeJS.ErrnoException).code;
  const reason =
    code === 'EADDRINUSE' ? `port ${flags.port} is already in use (try --port 0)` : (error as Error).message;
  const seedPrefix = error instanceof StateError && flags.seed ? `--seed ${flags.seed.path}: ` : '';
  console.error(`platform-api-mock: cannot start: ${seedPrefix}${reason}`);
  process.exit(1);
}

console.log(banner(server));

let closing = false;
for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.on(signal, () => {
    if (closing) process.exit(1);
    closing = true;
    console.log(`\n${signal}: shutting down`);
    server.close().then(
      () => process.exit(0),
      (error: Error) => {
        console.error(error);
        process.exit(1);
      },
    );
  });
}

function banner({ url, clientId, clientSecret }: MockServer): string {
  return `Platform API emulator listening on ${url}
  Event streams   ${url}/api/v1/topics/{topic_id}/publish | /consume, ${url}/api/v1/batch/topics/{topic_id}/publish
  Token endpoint  ${url}/oauth2/token
  Management API  ${url}/api/...  (stateful; operations the spec does not annotate yet: Prism)
  Docs            ${url}/docs/
  Faults          POST/DELETE ${url}/_emulator/faults
  State           GET/PUT ${url}/_emulator/state, POST ${url}/_emulator/reset
  Client ID       ${clientId}
  Client secret   ${clientSecret}

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
