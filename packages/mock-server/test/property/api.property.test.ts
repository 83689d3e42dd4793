// The property suite: sequences of requests to every stateful operation (event streams, the token
// endpoint, topics, v2 API clients and keys), generated from the bundled specs, valid and mutated,
// against a fresh emulator per run, on each storage (memory, a data dir, Redis). Every answer must be documented for its operation (its status in
// the spec, its body valid against the schema), and never a 5xx (no fault is injected); acknowledged
// messages are never lost, changed or reordered; revoked tokens are refused; wrong methods get 405
// with Allow; requests node cannot parse get the JSON error body.
//
// `npm test` runs a few sequences from a fixed seed; `npm run fuzz` runs FUZZ_RUNS (1000 by default)
// from a new seed. A failure prints the seed and path to replay it: FUZZ_SEED=... FUZZ_PATH=...
// npm run fuzz. FUZZ_STATS=1 prints the answers the runs got, by operation and status.
import { isUtf8 } from 'node:buffer';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { MockServer, MockServerOptions } from '../../src/index.js';
import type { Operation } from '../../src/spec/bundles.js';
import type { TopicSchemaField } from '../../src/spec/topic-schema.js';
import {
  type Answer,
  assertConforms,
  assertSchema,
  call,
  createTopic,
  type OperationId,
  ORDER_SCHEMA,
  operation,
  rawExchange,
  start,
  token,
} from '../support/helpers.js';
import { EmulatorModel, type KeyState, type StoredMessage } from '../support/property/model.js';
import {
  type Draw,
  LIMITS,
  mutate,
  OPERATIONS,
  otherMethod,
  type Planned,
  planRequest,
} from '../support/property/requests.js';
import { propertyRuns, propertyTimeout } from '../support/property/runs.js';
import { ANSWER_TIMEOUT_MS, send } from '../support/property/send.js';
import { NO_REDIS, sharedRedis, uniquePrefix } from '../support/redis-server.js';
import { tempDir } from '../support/temp-dirs.js';

/** The emulator's clock stands still: no token, message or rate-limit window expires during a run. */
const NOW = Date.parse('2026-11-22T09:00:00Z');
/** Sequences `npm test` runs in memory (about 70 ms each), and on each durable storage. */
const RUNS = 25;
const DURABLE_RUNS = 8;
const DURABLE_FUZZ_SHARE = 0.25;

const ERROR_SCHEMAS: Record<Operation['api'], string> = {
  'event-streams': 'ErrorResponse',
  auth: 'OAuthError',
  management: 'ManagementError',
};

interface Storage {
  name: string;
  runs: number;
  /** The part of FUZZ_RUNS it checks under `npm run fuzz`. */
  fuzzShare: number;
  /** Why it cannot run here; its suite is then skipped, saying so. */
  missing?: string;
  /** A new, empty store for one run. */
  options(): Promise<MockServerOptions>;
}

const STORAGES: Storage[] = [
  { name: 'in memory', runs: RUNS, fuzzShare: 1, options: async () => ({}) },
  {
    name: 'with a data dir',
    runs: DURABLE_RUNS,
    fuzzShare: DURABLE_FUZZ_SHARE,
    options: async () => ({ dataDir: tempDir(), durability: 'relaxed' }),
  },
  {
    name: 'on Redis',
    runs: DURABLE_RUNS,
    fuzzShare: DURABLE_FUZZ_SHARE,
    missing: NO_REDIS,
    options: async () => ({ redisUrl: (await sharedRedis()).url, redisPrefix: uniquePrefix() }),
  },
];

for (const storage of STORAGES) {
  const skipped = storage.missing === undefined ? '' : ` (skipped: ${storage.missing})`;
  describe.skipIf(storage.missing !== undefined)(`every stateful operation, ${storage.name}${skipped}`, () => {
    it(
      'answers as documented, keeps acknowledged messages and refuses revoked tokens',
      async () => {
        await fc.assert(
          fc.asyncProperty(fc.gen(), async (g) => {
            const draw: Draw = (arbitrary) => g(() => arbitrary);
            const server = await start({ ...(await storage.options()), clock: () => NOW, limits: LIMITS });
            const model = await modelOf(server);
            const steps = draw(fc.integer({ min: 5, max: 30 }));
            for (let step = 0; step < steps; step++) {
              const kind = draw(
                fc.oneof({ weight: 20, arbitrary: fc.constant('operation') }, fc.constantFrom('method', 'unparsable')),
              );
              if (kind === 'operation') await operationStep(draw, server, model);
              else if (kind === 'method') await wrongMethodStep(draw, server, model);
              else await unparsableStep(draw, server);
            }
            await expectModelHeld(server, model);
            await server.close();
          }),
          propertyRuns(storage.runs, storage.fuzzShare),
        );
        printTally();
      },
      propertyTimeout(storage.runs, 1500, storage.fuzzShare),
    );
  });
}

async function modelOf(server: MockServer): Promise<EmulatorModel> {
  const adminToken = await token(server);
  const bootstrap: KeyState = {
    id: 1,
    clientId: 1,
    oauthClientId: server.clientId,
    secret: server.clientSecret,
    active: true,
    accessTokens: new Set([adminToken]),
  };
  const model = new EmulatorModel(adminToken, bootstrap);
  // A topic from the start, so messages flow from the first steps.
  const topicId = await createTopic(server, adminToken, { schema: ORDER_SCHEMA });
  model.topics.set(topicId, { fields: ORDER_SCHEMA as TopicSchemaField[], messages: [] });
  // And an API client with a key, so the key operations (and the tokens they revoke) have a target.
  const client = await call(server, 'create_api_client', { token: adminToken, body: { name: 'property-suite' } });
  model.learn({ operationId: 'create_api_client', pathParams: {}, body: undefined }, client);
  const pathParams = { api_client_id: String(client.body.data.id) };
  const key = await call(server, 'create_api_key', { token: adminToken, params: pathParams, body: { name: 'key' } });
  model.learn({ operationId: 'create_api_key', pathParams, body: undefined }, key);
  return model;
}

/**
 * Drawn by operationId, so a counterexample lists ids, not specs; the event-streams operations more
 * often: they carry the messages.
 */
const idsOf = (api: Operation['api']) => OPERATIONS.filter((op) => op.api === api).map((op) => op.operationId);
const operationIds = fc.oneof(
  { weight: 3, arbitrary: fc.constantFrom(...idsOf('event-streams')) },
  { weight: 1, arbitrary: fc.constantFrom(...idsOf('auth')) },
  { weight: 4, arbitrary: fc.constantFrom(...idsOf('management')) },
);
const drawOperation = (draw: Draw): Operation => operation(draw(operationIds) as OperationId);

async function operationStep(draw: Draw, server: MockServer, model: EmulatorModel): Promise<void> {
  const planned = planRequest(draw, model, drawOperation(draw));
  if (draw(fc.nat(9)) < 3) mutate(draw, planned);
  const answer = await send(server, planned);
  const context = `${planned.method} ${planned.url} ${describeBody(planned)} -> ${answer.status} ${JSON.stringify(answer.body)?.slice(0, 300)}`;
  expect(answer.status, context).toBeLessThan(500);
  if (planned.oddId) expect(answer.status, `an odd id was taken: ${context}`).toBeGreaterThanOrEqual(400);
  assertConforms(planned.operation.operationId as never, answer);
  expectBearerRespected(model, planned, answer, context);
  if (answer.status < 300) {
    expectReadAsSent(planned, context);
    planned.body = sentJson(planned) ?? planned.body;
  }
  if (planned.operationId === 'request_access_token' && !planned.mutated) expectTokenGranted(planned, answer, context);
  if (planned.operationId === 'consume_messages' && answer.status === 200)
    expectConsumedAsModel(model, planned, answer);
  model.learn(planned, answer);
  tally(planned, answer);
}

const takesJsonOnly = (planned: Planned) =>
  Object.keys(planned.operation.requestBody?.content ?? {}).every((type) => type.includes('json'));

/** A JSON body the emulator took was read as sent: UTF-8, and not compressed. */
function expectReadAsSent(planned: Planned, context: string): void {
  if (!planned.operation.requestBody || !takesJsonOnly(planned)) return;
  const encoding = planned.headers['content-encoding'];
  expect(encoding === undefined || encoding === 'identity', `took a body with Content-Encoding: ${context}`).toBe(true);
  if (planned.bytes) expect(isUtf8(planned.bytes), `took a body that is not UTF-8: ${context}`).toBe(true);
}

/** The JSON body as the emulator parsed it, for a request it took: what it stored. */
function sentJson(planned: Planned): unknown {
  const takesJson = Object.keys(planned.operation.requestBody?.content ?? {}).some((type) => type.includes('json'));
  if (!takesJson || !planned.bytes || !/json/i.test(planned.headers['content-type'] ?? '')) return undefined;
  return JSON.parse(new TextDecoder('utf-8', { fatal: true }).decode(planned.bytes));
}

function describeBody(planned: Planned): string {
  const text = planned.bytes ? Buffer.from(planned.bytes).toString('utf8') : '';
  return `${JSON.stringify(planned.headers)} ${text.length > 300 ? `${text.slice(0, 300)}... (${text.length})` : text}`;
}

/** A token the model holds revoked is refused; one it holds valid is accepted; the bootstrap key's has every right. */
function expectBearerRespected(model: EmulatorModel, planned: Planned, answer: Answer, context: string): void {
  if (!planned.operation.needsBearer) return;
  const state = planned.bearer === undefined ? 'refused' : model.bearer(planned.bearer);
  if (state === 'refused') expect(answer.status, context).toBe(401);
  if (state === 'valid') expect(answer.status, context).not.toBe(401);
  if (planned.bearer === model.adminToken) expect(answer.status, context).not.toBe(403);
}

/** Current credentials of an active key get a token; any others never do. */
function expectTokenGranted(planned: Planned, answer: Answer, context: string): void {
  if (planned.credentials?.key?.active) {
    expect(answer.status, context).toBe(200);
  } else {
    expect([answer.status, (answer.body as { error?: string }).error], context).toEqual([
      planned.headers.authorization ? 401 : 400,
      'invalid_client',
    ]);
  }
}

interface ConsumedMessage {
  message_id: string;
  payload: unknown;
}

/** A batch is the model's acknowledged messages from the offset on, unchanged and in order. */
function expectConsumedAsModel(model: EmulatorModel, planned: Planned, answer: Answer): void {
  const topic = model.topics.get(Number(planned.pathParams.topic_id));
  expect(topic, `topic ${planned.pathParams.topic_id} answered 200 but is not in the model`).toBeDefined();
  const acknowledged = topic?.messages ?? [];
  const { after_message_id, batch_size } = planned.body as { after_message_id?: string; batch_size?: number };
  const start = after_message_id === undefined ? 0 : acknowledged.findIndex((m) => m.id === after_message_id) + 1;
  expect(after_message_id === undefined || start > 0, `${after_message_id} is acknowledged`).toBe(true);
  const limit = Math.min(batch_size ?? LIMITS.maxBatchSize, LIMITS.maxBatchSize);
  const expected = acknowledged.slice(start, start + limit);
  const { messages, has_more } = answer.body as { messages: ConsumedMessage[]; has_more: boolean };
  expect(messages.map(asStored)).toEqual(expected);
  expect(has_more).toBe(start + expected.length < acknowledged.length);
}

const asStored = (m: ConsumedMessage): StoredMessage => ({ id: m.message_id, payload: m.payload });

async function wrongMethodStep(draw: Draw, server: MockServer, model: EmulatorModel): Promise<void> {
  const operation = drawOperation(draw);
  const { method, allowed } = otherMethod(draw, operation);
  const url = operation.path.replace(/\{[^}]+\}/g, '1');
  const answer = await send(server, {
    method,
    url,
    headers: { authorization: `Bearer ${model.adminToken}` },
    bytes: undefined,
  });
  expect([answer.status, answer.headers.get('allow')?.split(', ').sort()], `${method} ${url}`).toEqual([
    405,
    [...allowed].sort(),
  ]);
  // An answer to HEAD has no body (RFC 9110 9.3.2): its 405 is the status and Allow alone.
  if (method === 'HEAD') expect(answer.body).toBeUndefined();
  else assertSchema(operation.api, ERROR_SCHEMAS[operation.api], answer.body);
}

/** Requests node's parser refuses, each on a connection of its own. */
const UNPARSABLE = [
  // The Content-Length covers `{}`; the rest is parsed as a request whose method is `{}`.
  'POST /api/v1/topics/1/consume HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 2\r\n\r\n{}{}',
  '{} / HTTP/1.1\r\nHost: x\r\n\r\n',
  'GET /api/event_streams/topics HTTP/1.1\r\nHost: x\r\nno colon here\r\n\r\n',
  `GET /api/event_streams/topics HTTP/1.1\r\nHost: x\r\nX-Big: ${'x'.repeat(20_000)}\r\n\r\n`,
  'POST /oauth2/token HTTP/1.1\r\nHost: x\r\nContent-Length: 1\r\nContent-Length: 2\r\n\r\nab',
];

async function unparsableStep(draw: Draw, server: MockServer): Promise<void> {
  const raw = draw(fc.constantFrom(...UNPARSABLE));
  const answer = await within(rawExchange(server, raw), raw.slice(0, 40));
  expect(answer.status, raw.slice(0, 80)).toBe(400);
  expect(answer.headers.get('content-type')).toBe('application/json; charset=utf-8');
  assertSchema('event-streams', 'ErrorResponse', answer.body);
}

/** At the end of a run: every topic holds exactly its acknowledged messages; revoked tokens stay refused. */
async function expectModelHeld(server: MockServer, model: EmulatorModel): Promise<void> {
  for (const [topicId, topic] of model.topics) {
    expect(await readAll(server, model, topicId), `topic ${topicId}`).toEqual(topic.messages);
  }
  for (const revoked of [...model.revoked].slice(0, 10)) {
    const answer = await send(server, {
      method: 'GET',
      url: '/api/event_streams/topics',
      headers: { authorization: `Bearer ${revoked}` },
      bytes: undefined,
    });
    expect(answer.status).toBe(401);
  }
}

async function readAll(server: MockServer, model: EmulatorModel, topicId: number): Promise<StoredMessage[]> {
  const all: StoredMessage[] = [];
  for (;;) {
    const after = all.at(-1)?.id;
    const body = after === undefined ? {} : { after_message_id: after };
    const answer = await send(server, {
      method: 'POST',
      url: `/api/v1/topics/${topicId}/consume`,
      headers: { authorization: `Bearer ${model.adminToken}`, 'content-type': 'application/json' },
      bytes: Buffer.from(JSON.stringify(body)),
    });
    assertConforms('consume_messages', answer);
    const { messages, has_more } = answer.body as { messages: ConsumedMessage[]; has_more: boolean };
    all.push(...messages.map(asStored));
    if (!has_more) return all;
  }
}

/** The answer, or a failure naming the request if it does not come in time. */
function within<T>(answer: Promise<T>, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`${what}: no answer within ${ANSWER_TIMEOUT_MS} ms`)), ANSWER_TIMEOUT_MS);
  });
  return Promise.race([answer, late]).finally(() => clearTimeout(timer));
}

/** Answers by operation, validity and status, printed under FUZZ_STATS=1: what a run covered. */
const tallied = new Map<string, number>();

function tally(planned: Planned, answer: Answer): void {
  if (process.env.FUZZ_STATS !== '1') return;
  const key = `${planned.operationId} ${planned.mutated ? 'mutated' : 'valid'} ${answer.status}`;
  tallied.set(key, (tallied.get(key) ?? 0) + 1);
}

function printTally(): void {
  if (process.env.FUZZ_STATS !== '1') return;
  console.log(
    [...tallied]
      .sort(([a], [b]) => a.localeCompare(b))
      .map(([key, count]) => `${key}: ${count}`)
      .join('\n'),
  );
}
