import { type MockServer, startMockServer } from '@platform-api/mock-server';
import {
  clientCredentials,
  createEventStreamsClient,
  createManagementClient,
  type LogEvent,
  type ManagementApi,
  type RetryOptions,
  type TokenProvider,
} from '../../src/index.js';

export interface Sent {
  path: string;
  body: string;
}

export interface Platform {
  emulator: MockServer;
  tokens: TokenProvider;
  /** Every request the clients sent, in order, with its body. */
  sent: Sent[];
  /** Waits the clients were asked to make (recorded, not slept). */
  waits: number[];
  /** What the clients and the token provider logged. */
  logged: LogEvent[];
  events: ReturnType<typeof createEventStreamsClient>;
  management: ReturnType<typeof createManagementClient>;
  close(): Promise<void>;
}

export interface PlatformOptions {
  retry?: RetryOptions;
  /** Limits of the emulator, and of the event-streams client to match. */
  limits?: { maxBatchMessages?: number; maxMessageBytes?: number };
  /** The emulator's clock (message times, retention, token expiry). Default Date.now. */
  clock?: () => number;
}

/**
 * The project's emulator on a free port, with event-streams and management clients logged in
 * through the emulator's token endpoint. Requests and log events are recorded; retry waits are
 * recorded instead of slept, and taken at their full length (no jitter), so that tests stay fast
 * and their waits exact.
 */
export async function startPlatform(options: PlatformOptions = {}): Promise<Platform> {
  const emulator = await startMockServer({
    ...(options.limits && { limits: options.limits }),
    ...(options.clock && { clock: options.clock }),
  });
  const sent: Sent[] = [];
  const waits: number[] = [];
  const logged: LogEvent[] = [];
  const logger = (event: LogEvent) => void logged.push(event);
  const fetch = async (request: Request) => {
    sent.push({ path: new URL(request.url).pathname, body: await request.clone().text() });
    return globalThis.fetch(request);
  };
  const tokens = clientCredentials({
    authUrl: emulator.url,
    clientId: emulator.clientId,
    clientSecret: emulator.clientSecret,
    fetch,
    logger,
  });
  const retry: RetryOptions = { sleep: async (ms) => void waits.push(ms), random: () => 0, ...options.retry };
  const common = { baseUrl: emulator.url, auth: tokens, fetch, retry, logger };
  return {
    emulator,
    tokens,
    sent,
    waits,
    logged,
    events: createEventStreamsClient({ ...common, ...(options.limits && { limits: options.limits }) }),
    management: createManagementClient(common),
    close: () => emulator.close(),
  };
}

type TopicSchema = ManagementApi.components['schemas']['TopicSchemaField'][];

/** Creates a topic (by default its messages carry an integer `n`) and returns its id. */
export async function createTopic(
  platform: Platform,
  schema: TopicSchema = [{ name: 'n', type: 'integer' }],
  name = `topic-${Math.random().toString(36).slice(2, 10)}`,
  retention?: number,
): Promise<number> {
  const { data, error } = await platform.management.POST('/api/event_streams/topics', {
    body: { name, schema, ...(retention !== undefined && { retention }) },
  });
  if (!data) throw new Error(`Topic creation failed: ${JSON.stringify(error)}`);
  return data.id;
}

/** Payloads { n: 0 } ... { n: count - 1 }. */
export const numbered = (count: number) => Array.from({ length: count }, (_, n) => ({ n }));
