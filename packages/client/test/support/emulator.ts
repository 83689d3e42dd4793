import { type MockServer, startMockServer } from '@platform-api/mock-server';
import {
  clientCredentials,
  createEventStreamsClient,
  createManagementClient,
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
  events: ReturnType<typeof createEventStreamsClient>;
  management: ReturnType<typeof createManagementClient>;
  close(): Promise<void>;
}

/**
 * The project's emulator on a free port, with event-streams and management clients logged in
 * through the emulator's token endpoint. Requests are recorded; retry waits are recorded instead
 * of slept so that tests stay fast.
 */
export async function startPlatform(
  options: { retry?: RetryOptions; maxBatchMessages?: number } = {},
): Promise<Platform> {
  const emulator = await startMockServer(
    options.maxBatchMessages ? { limits: { maxBatchMessages: options.maxBatchMessages } } : {},
  );
  const sent: Sent[] = [];
  const waits: number[] = [];
  const fetch = async (request: Request) => {
    sent.push({ path: new URL(request.url).pathname, body: await request.clone().text() });
    return globalThis.fetch(request);
  };
  const tokens = clientCredentials({
    authUrl: emulator.url,
    clientId: emulator.clientId,
    clientSecret: emulator.clientSecret,
    fetch,
  });
  const retry: RetryOptions = { sleep: async (ms) => void waits.push(ms), ...options.retry };
  const common = { baseUrl: emulator.url, auth: tokens, fetch, retry };
  return {
    emulator,
    tokens,
    sent,
    waits,
    events: createEventStreamsClient(common),
    management: createManagementClient(common),
    close: () => emulator.close(),
  };
}

type TopicSchema = ManagementApi.components['schemas']['TopicSchemaField'][];

/** Creates a topic (by default its messages carry an integer `n`) and returns its id. */
export async function createTopic(
  platform: Platform,
  schema: TopicSchema = [{ name: 'n', type: 'integer' }],
): Promise<number> {
  const name = `topic-${Math.random().toString(36).slice(2, 10)}`;
  const { data, error } = await platform.management.POST('/api/event_streams/topics', { body: { name, schema } });
  if (!data) throw new Error(`Topic creation failed: ${JSON.stringify(error)}`);
  return data.id;
}

/** Payloads { n: 0 } ... { n: count - 1 }. */
export const numbered = (count: number) => Array.from({ length: count }, (_, n) => ({ n }));
