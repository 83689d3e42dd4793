// The `platform-api` command line: token, publish, tail and typegen. `run` takes the arguments and
// the process's streams and environment as parameters, so tests call it in-process.

import { readFile, writeFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { isPositiveInteger } from '@platform-api/spec/conventions';
import { Command, CommanderError, InvalidArgumentError, Option } from 'commander';
import { memoryCheckpointStore } from './checkpoint.js';
import {
  type Auth,
  clientCredentials,
  createEventStreamsClient,
  createManagementClient,
  type EventStreamsClient,
  type EventStreamsDataCenter,
  EventStreamsError,
  eventStreamsServers,
  type LogEvent,
  type ManagementDataCenter,
  managementServers,
  type Payload,
  PayloadTooLargeError,
  PublishBatchError,
  type TokenProvider,
} from './index.js';
import { fileCheckpointStore } from './node.js';
import { generateTopicTypes, typeNameOf } from './typegen.js';

/** Where output goes: process.stdout / process.stderr or any Writable. */
export interface Output {
  write(chunk: string, callback?: (error?: Error | null) => void): boolean;
}

export interface CliIo {
  stdin: AsyncIterable<string | Uint8Array>;
  stdout: Output;
  stderr: Output;
  env: Record<string, string | undefined>;
  /** Aborted on SIGINT or SIGTERM: requests stop, `tail` finishes the current message and saves its checkpoint. */
  signal?: AbortSignal;
}

/** Exit codes: 0 done, 1 the platform refused or did not answer (or `typegen --check` found drift), 2 bad usage or input. */
export const EXIT = { ok: 0, failed: 1, usage: 2 } as const;

/** A mistake in the command line or its input: exit code 2, nothing was sent. */
class UsageError extends Error {}

/** A count given on the command line (the rule is the conventions' isPositiveInteger). */
const positiveIntegerArgument = (value: string) => {
  if (!isPositiveInteger(value)) throw new InvalidArgumentError('expected a positive integer');
  return Number(value);
};
const nonNegativeInteger = (value: string) => {
  if (!/^\d+$/.test(value)) throw new InvalidArgumentError('expected an integer of 0 or more');
  return Number(value);
};

interface ConnectionFlags {
  url?: string;
  dataCenter?: string;
  authUrl?: string;
  clientId?: string;
  clientSecret?: string;
  token?: string;
  timeout?: number;
  verbose?: boolean;
}

function withConnection(command: Command): Command {
  return command
    .option('--url <url>', 'base URL of the APIs, e.g. the emulator http://127.0.0.1:4010 (env PLATFORM_API_URL)')
    .option(
      '--data-center <name>',
      `data center instead of --url: ${Object.keys(managementServers).join(', ')} (env PLATFORM_API_DATA_CENTER)`,
    )
    .option('--auth-url <url>', 'base URL of the token endpoint, {auth_url}; default --url (env PLATFORM_API_AUTH_URL)')
    .option('--client-id <id>', 'client ID of the API key (env PLATFORM_API_CLIENT_ID)')
    .option('--client-secret <secret>', 'client secret of the API key (env PLATFORM_API_CLIENT_SECRET)')
    .option('--token <token>', 'a static access token instead of client credentials (env PLATFORM_API_TOKEN)')
    .option(
      '--timeout <ms>',
      'milliseconds each request may wait for its answer (default 60000)',
      positiveIntegerArgument,
    )
    .option('--verbose', 'log each request, retry and token renewal to stderr as JSON (never a secret)');
}

/** The clients' options from the flags, then the environment; credentials are used, never printed. */
function connection(flags: ConnectionFlags, io: CliIo) {
  const env = io.env;
  const url = flags.url ?? env.PLATFORM_API_URL;
  const dataCenter = flags.dataCenter ?? env.PLATFORM_API_DATA_CENTER;
  if (!url && !dataCenter) {
    throw new UsageError(
      'Where is the platform? Give --url or --data-center (or PLATFORM_API_URL / PLATFORM_API_DATA_CENTER).',
    );
  }
  /** The location of an API by its servers: --url, or a data center it is served in. */
  const locate = <DataCenter extends string>(servers: Record<DataCenter, string>, api: string) => {
    if (url) return { baseUrl: url };
    if (dataCenter && dataCenter in servers) return { dataCenter: dataCenter as DataCenter };
    throw new UsageError(
      `The ${api} API has no data center "${dataCenter}"; use one of ${Object.keys(servers).join(', ')}.`,
    );
  };
  const clientId = flags.clientId ?? env.PLATFORM_API_CLIENT_ID;
  const clientSecret = flags.clientSecret ?? env.PLATFORM_API_CLIENT_SECRET;
  const authUrl = flags.authUrl ?? env.PLATFORM_API_AUTH_URL ?? url;
  const logger = flags.verbose ? (event: LogEvent) => void io.stderr.write(`${JSON.stringify(event)}\n`) : undefined;
  const staticToken = flags.token ?? (clientId && clientSecret ? undefined : env.PLATFORM_API_TOKEN);
  let auth: Auth;
  let tokens: TokenProvider | undefined;
  if (staticToken) auth = { token: staticToken };
  else if (clientId && clientSecret) {
    if (!authUrl) throw new UsageError('Give the token endpoint with --auth-url (or PLATFORM_API_AUTH_URL).');
    tokens = clientCredentials({ authUrl, clientId, clientSecret, ...(logger && { logger }) });
    auth = tokens;
  } else {
    throw new UsageError(
      'Give credentials: --client-id and --client-secret (or PLATFORM_API_CLIENT_ID / PLATFORM_API_CLIENT_SECRET), or --token (PLATFORM_API_TOKEN).',
    );
  }
  const common = {
    auth,
    ...(flags.timeout !== undefined && { timeoutMs: flags.timeout }),
    ...(logger && { logger }),
  };
  return {
    tokens,
    events: () =>
      createEventStreamsClient({ ...locate<EventStreamsDataCenter>(eventStreamsServers, 'event-streams'), ...common }),
    management: () =>
      createManagementClient({
        ...locate<ManagementDataCenter>(managementServers, 'management'),
        ...common,
        throwOnError: true,
      }),
  };
}

/** Writes a line and waits until it was handed to the operating system. */
function writeLine(output: Output, value: unknown): Promise<void> {
  return new Promise((resolve, reject) =>
    output.write(`${typeof value === 'string' ? value : JSON.stringify(value)}\n`, (error) =>
      error ? reject(error) : resolve(),
    ),
  );
}

async function readAll(input: AsyncIterable<string | Uint8Array>): Promise<string> {
  const decoder = new TextDecoder();
  let text = '';
  for await (const chunk of input) text += typeof chunk === 'string' ? chunk : decoder.decode(chunk, { stream: true });
  return text + decoder.decode();
}

function parseMessage(text: string, where: string): Payload {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    throw new UsageError(`${where} is not JSON: ${(error as Error).message}`);
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    throw new UsageError(`${where} is not a JSON object (a message is an object)`);
  }
  return value as Payload;
}

async function publishLines(
  events: EventStreamsClient,
  topicId: number,
  text: string,
  io: CliIo,
  maxBatchMessages: number | undefined,
): Promise<number> {
  const lines: number[] = [];
  const payloads: Payload[] = [];
  text.split('\n').forEach((line, index) => {
    if (line.trim() === '') return;
    lines.push(index + 1);
    payloads.push(parseMessage(line, `Line ${index + 1}`));
  });
  const attempts = new Array<number>(payloads.length).fill(0);
  let messageIds: readonly (string | undefined)[];
  const errors = new Map<number, string>();
  try {
    messageIds = await events.publishBatch(topicId, payloads, {
      ...(maxBatchMessages && { maxBatchMessages }),
      ...(io.signal && { signal: io.signal }),
      onSend: (positions) => {
        for (const position of positions) attempts[position] = (attempts[position] ?? 0) + 1;
      },
    });
  } catch (error) {
    if (error instanceof PayloadTooLargeError && error.position !== undefined) {
      const { position, size, maxSize } = error;
      throw new UsageError(`Line ${lines[position]} is ${size} bytes of JSON; the platform accepts at most ${maxSize}`);
    }
    if (!(error instanceof PublishBatchError)) throw error;
    messageIds = error.messageIds;
    for (const { position, reason } of error.failures) errors.set(position, reason);
    blameRefusedLine(error, lines, errors);
  }
  for (const [position, line] of lines.entries()) {
    const messageId = messageIds[position];
    await writeLine(
      io.stdout,
      messageId === undefined
        ? { line, error: errors.get(position) ?? 'not stored', attempts: attempts[position] }
        : { line, message_id: messageId, attempts: attempts[position] },
    );
  }
  const failed = messageIds.filter((id) => id === undefined).length;
  const summary = {
    messages: payloads.length,
    stored: payloads.length - failed,
    resent: attempts.filter((count) => count > 1).length,
    failed,
  };
  await writeLine(io.stdout, { summary });
  if (failed > 0) {
    const notStored = lines.filter((_, position) => messageIds[position] === undefined);
    await writeLine(
      io.stderr,
      `platform-api: ${summary.stored} of ${payloads.length} lines stored; not stored: ${lineList(notStored)} ` +
        '(the reason of each is in its report line)',
    );
  }
  return failed > 0 ? EXIT.failed : EXIT.ok;
}

/** `lines 1-3, 5`: consecutive line numbers as ranges. */
function lineList(lines: readonly number[]): string {
  const ranges: string[] = [];
  for (let i = 0; i < lines.length; ) {
    let j = i;
    while (j + 1 < lines.length && lines[j + 1] === (lines[j] ?? 0) + 1) j++;
    ranges.push(i === j ? `${lines[i]}` : `${lines[i]}-${lines[j]}`);
    i = j + 1;
  }
  return `line${lines.length === 1 ? '' : 's'} ${ranges.join(', ')}`;
}

/**
 * A batch request refused as a whole for one bad message (a 400 whose text starts `Message <its
 * 0-based position in that request>:`) stores none of its messages: the bad one is reported with its
 * input line, the others as not stored because of it. The refused request's positions are the
 * failures that carry its error (publishBatch stops at the first refusal), in input order.
 */
function blameRefusedLine(error: PublishBatchError, lines: readonly number[], errors: Map<number, string>): void {
  const refusal = error.cause;
  if (!(refusal instanceof EventStreamsError) || !refusal.is(400)) return;
  const match = /^Message (\d+): (.*)$/s.exec(refusal.body.error.message ?? '');
  if (!match) return;
  const refused = error.failures.filter(({ reason }) => reason === refusal.message).map(({ position }) => position);
  const bad = refused[Number(match[1])];
  if (bad === undefined) return;
  const badLine = lines[bad];
  for (const position of refused) {
    errors.set(
      position,
      position === bad
        ? `${refusal.body.error.details.code}: ${match[2]} (the platform refused the batch request with 400)`
        : `not stored: the platform refused the batch request that carried it because of line ${badLine}`,
    );
  }
}

function buildProgram(io: CliIo, setExit: (code: number) => void): Command {
  const version = (createRequire(import.meta.url)('../package.json') as { version: string }).version;
  const program = new Command('platform-api')
    .description("Command line of the platform's event-streams, token and management APIs")
    .version(version)
    .exitOverride()
    .configureOutput({
      writeOut: (text) => void io.stdout.write(text),
      writeErr: (text) => void io.stderr.write(text),
    })
    .showHelpAfterError('(add --help for usage)');
  program.addHelpText(
    'after',
    '\nExit codes: 0 done; 1 the platform refused, did not answer, or typegen --check found drift; 2 bad usage or input.',
  );

  withConnection(
    program
      .command('token')
      .description('print an access token obtained with the client credentials (for curl and other tools)'),
  ).action(async (flags: ConnectionFlags) => {
    const { tokens } = connection(flags, io);
    if (!tokens)
      throw new UsageError('token needs the API key: --client-id and --client-secret, not a static --token.');
    await writeLine(io.stdout, await tokens.getToken());
  });

  withConnection(
    program
      .command('publish')
      .description('publish one message, or NDJSON from stdin (one JSON object per line) with a report per line')
      .argument('[message]', 'the message as a JSON object; omit it (or give -) to read NDJSON from stdin')
      .requiredOption('--topic <id>', 'topic id', nonNegativeInteger)
      .option(
        '--max-batch-messages <n>',
        'messages per batch request (default and maximum: the platform limit)',
        positiveIntegerArgument,
      ),
  )
    .addHelpText(
      'after',
      '\nOne message prints {"message_id"}. NDJSON prints, per input line, {"line","message_id","attempts"} or\n' +
        '{"line","error","attempts"}, then {"summary":{"messages","stored","resent","failed"}}. Lines not stored\n' +
        'at first are resent (exactly those); "resent" counts them. Exit 1 when a line was not stored (stderr names them).',
    )
    .action(
      async (message: string | undefined, flags: ConnectionFlags & { topic: number; maxBatchMessages?: number }) => {
        const events = connection(flags, io).events();
        if (message !== undefined && message !== '-') {
          const payload = parseMessage(message, 'The message');
          try {
            const messageId = await events.publish(flags.topic, payload, io.signal ? { signal: io.signal } : {});
            await writeLine(io.stdout, { message_id: messageId });
          } catch (error) {
            if (error instanceof PayloadTooLargeError) throw new UsageError(error.message);
            throw error;
          }
          return;
        }
        setExit(await publishLines(events, flags.topic, await readAll(io.stdin), io, flags.maxBatchMessages));
      },
    );

  withConnection(
    program
      .command('tail')
      .description(
        'print the messages of a topic as NDJSON, following it; with --checkpoint, resume where the last run stopped',
      )
      .requiredOption('--topic <id>', 'topic id', nonNegativeInteger)
      .option('--checkpoint <file>', 'checkpoint file: start after the message saved in it, save progress to it')
      .option(
        '--since <time>',
        "without a checkpoint, start at this RFC 3339 time, or 'now' (default: the oldest message)",
      )
      .option('--stop-at-end', 'exit once the topic is read to its end, instead of waiting for new messages')
      .addOption(
        new Option(
          '--on-expired <policy>',
          'when the checkpoint is no longer retained: resume from its time, the oldest message, or fail',
        )
          .choices(['since-time', 'oldest', 'fail'])
          .default('fail'),
      )
      .option(
        '--save-every <n>',
        'save the checkpoint after this many messages (also when idle and on exit)',
        positiveIntegerArgument,
        100,
      )
      .option('--batch-size <n>', 'messages per request (at most 50)', positiveIntegerArgument)
      .option(
        '--wait <seconds>',
        'long poll: how long each request waits for new messages (0 to 60)',
        nonNegativeInteger,
        30,
      ),
  )
    .addHelpText(
      'after',
      '\nEach line is {"message_id","time","payload"}. A message is written before its checkpoint is saved, so\n' +
        'after a crash a resumed tail may print a message again (at least once). Ctrl-C stops after the current\n' +
        'message and saves the checkpoint.',
    )
    .action(
      async (
        flags: ConnectionFlags & {
          topic: number;
          checkpoint?: string;
          since?: string;
          stopAtEnd?: boolean;
          onExpired: 'since-time' | 'oldest' | 'fail';
          saveEvery: number;
          batchSize?: number;
          wait: number;
        },
      ) => {
        const since = flags.since === 'now' ? new Date() : flags.since;
        if (since !== undefined && Number.isNaN(Date.parse(String(since)))) {
          throw new UsageError(`--since ${flags.since} is not an RFC 3339 time or 'now'`);
        }
        const events = connection(flags, io).events();
        const subscription = events.subscribe(
          flags.topic,
          (message) =>
            writeLine(io.stdout, { message_id: message.message_id, time: message.time, payload: message.payload }),
          {
            store: flags.checkpoint ? fileCheckpointStore(flags.checkpoint) : memoryCheckpointStore(),
            saveEvery: { messages: flags.saveEvery },
            onExpiredCheckpoint: flags.onExpired,
            timeoutSecs: flags.wait,
            stopAtEnd: Boolean(flags.stopAtEnd),
            ...(since !== undefined && { sinceTime: since }),
            ...(flags.batchSize && { batchSize: flags.batchSize }),
            ...(io.signal && { signal: io.signal }),
          },
        );
        await subscription.done;
      },
    );

  withConnection(
    program
      .command('typegen')
      .description("write TypeScript types and a validator for a topic's messages, from its schema")
      .requiredOption('--topic <id>', 'topic id', nonNegativeInteger)
      .requiredOption('--out <file>', 'the TypeScript file to write (with --check: to compare)')
      .option('--name <type>', 'name of the message type (default: the topic name in PascalCase)')
      .option('--check', "write nothing; exit 1 when the file is not what the topic's schema gives"),
  ).action(async (flags: ConnectionFlags & { topic: number; out: string; name?: string; check?: boolean }) => {
    const management = connection(flags, io).management();
    const { data: topic } = await management.GET('/api/event_streams/topics/{topic_id}', {
      params: { path: { topic_id: flags.topic } },
      ...(io.signal && { signal: io.signal }),
    });
    const typeName = flags.name ?? typeNameOf(topic);
    const code = generateTopicTypes(topic, { typeName });
    if (!flags.check) {
      await writeFile(flags.out, code);
      await writeLine(
        io.stdout,
        `Wrote ${flags.out}: ${typeName} from the schema of topic ${topic.id} (${topic.name}).`,
      );
      return;
    }
    const committed = await readFile(flags.out, 'utf8').catch(() => undefined);
    if (committed === code) {
      await writeLine(io.stdout, `${flags.out} matches the schema of topic ${topic.id}.`);
      return;
    }
    const regenerate = `platform-api typegen --topic ${topic.id} --out ${flags.out}${flags.name ? ` --name ${flags.name}` : ''}`;
    await writeLine(
      io.stderr,
      committed === undefined
        ? `${flags.out} does not exist; run ${regenerate}`
        : `${flags.out} differs from the schema of topic ${topic.id} (${firstDifference(committed, code)}); run ${regenerate}`,
    );
    setExit(EXIT.failed);
  });

  return program;
}

function firstDifference(committed: string, current: string): string {
  const a = committed.split('\n');
  const b = current.split('\n');
  const line = a.findIndex((text, index) => text !== b[index]);
  const at = line === -1 ? a.length : line;
  return `first difference at line ${at + 1}: expected ${JSON.stringify(b[at] ?? '')}`;
}

/** Runs the command line `argv` (the arguments after the program name); resolves to the exit code. */
export async function run(argv: readonly string[], io: CliIo): Promise<number> {
  let exitCode: number = EXIT.ok;
  const program = buildProgram(io, (code) => {
    exitCode = code;
  });
  try {
    await program.parseAsync(argv, { from: 'user' });
    return exitCode;
  } catch (error) {
    if (error instanceof CommanderError) {
      // Help and version exit 0; every other complaint of the parser is a usage error.
      return error.exitCode === 0 ? EXIT.ok : EXIT.usage;
    }
    io.stderr.write(`platform-api: ${error instanceof Error ? error.message : String(error)}\n`);
    return error instanceof UsageError ? EXIT.usage : EXIT.failed;
  }
}
