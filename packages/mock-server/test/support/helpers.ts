// Shared by the tests: starts emulators and calls operations by operationId, checking every response
// against the bundled spec's schema for that operation and status.
import { createConnection } from 'node:net';
import type { operations as AuthOperations } from '@platform-api/spec/types/auth';
import type {
  components as EventStreamsComponents,
  operations as EventStreamsOperations,
} from '@platform-api/spec/types/event-streams';
import type {
  components as ManagementComponents,
  operations as ManagementOperations,
} from '@platform-api/spec/types/management';
import type { Ajv2020, ValidateFunction } from 'ajv/dist/2020.js';
import { expect } from 'vitest';
import { type MockServer, type MockServerOptions, startMockServer } from '../../src/index.js';
import {
  deref,
  loadSpecs,
  type MediaTypeObject,
  type Operation,
  type ParameterObject,
} from '../../src/spec/bundles.js';

import { anchorRefs, createAjv } from '../../src/spec/checks.js';
import { defined } from './defined.js';

export const specs = loadSpecs();
const ajv: Ajv2020 = createAjv(specs);
const operations = new Map(specs.operations.map((op) => [op.operationId, op]));
const validators = new Map<string, ValidateFunction>();

const running = new Set<MockServer>();

/** Closes the emulators a test started and left open (test/support/setup.ts, after each test). */
export async function closeStarted(): Promise<void> {
  const open = [...running];
  running.clear();
  await Promise.all(open.map((server) => server.close()));
}

/**
 * Starts an emulator that is closed after the current test. One the test closes itself is forgotten
 * then: a property that starts one per run would otherwise keep every run's emulator and state alive.
 */
export async function start(options: MockServerOptions = {}): Promise<MockServer> {
  const server = await startMockServer(options);
  running.add(server);
  const close = server.close.bind(server);
  server.close = () => {
    running.delete(server);
    return close();
  };
  return server;
}

export function operation(operationId: OperationId): Operation {
  const op = operations.get(operationId);
  if (!op) throw new Error(`No operation ${operationId} in the specs`);
  return op;
}

type Operations = EventStreamsOperations & AuthOperations & ManagementOperations;
export type OperationId = keyof Operations;

type BodyOf<Response> = Response extends { content: infer Content } ? Content[keyof Content] : undefined;
type Responses<Id extends OperationId> = Operations[Id]['responses'];
/** The body the spec declares for the operation's 2xx answer (of each, for a union of operations). */
export type SuccessBody<Id extends OperationId> = Id extends OperationId
  ? {
      [Status in keyof Responses<Id>]: Status extends 200 | 201 | 204 ? BodyOf<Responses<Id>[Status]> : never;
    }[keyof Responses<Id>]
  : never;

/**
 * An answer as received. call() types `body` as the operation's success body, after checking it
 * against the spec; an error answer's body is read through errorOf, oauthErrorOf, managementErrorOf
 * or sizeLimitOf, which check its shape.
 */
export interface Answer<Body = unknown> {
  status: number;
  headers: Headers;
  body: Body;
}

type EventStreamsError = EventStreamsComponents['schemas']['ErrorResponse']['error'];

/** The `error` of an event-streams ErrorResponse (or InternalServerErrorResponse). */
export function errorOf(answer: Answer): EventStreamsError {
  const { body } = answer;
  expect(body, `${answer.status} has no ErrorResponse body`).toMatchObject({ error: { details: {} } });
  return (body as EventStreamsComponents['schemas']['ErrorResponse']).error;
}

/** The body of a 413 (SizeLimitErrorResponse). */
export function sizeLimitOf(answer: Answer): EventStreamsComponents['schemas']['SizeLimitErrorResponse'] {
  const { body } = answer;
  expect(body, `${answer.status} has no SizeLimitErrorResponse body`).toMatchObject({ max_size: expect.any(Number) });
  return body as EventStreamsComponents['schemas']['SizeLimitErrorResponse'];
}

/** The RFC 6749 error body of the token endpoint. */
export function oauthErrorOf(answer: Answer): { error: string; error_description?: string } {
  const { body } = answer;
  expect(body, `${answer.status} has no RFC 6749 error body`).toMatchObject({ error: expect.any(String) });
  return body as { error: string; error_description?: string };
}

/** A ManagementError body. */
export function managementErrorOf(answer: Answer): ManagementComponents['schemas']['ManagementError'] {
  const { body } = answer;
  expect(body, `${answer.status} has no ManagementError body`).toMatchObject({ message: expect.any(String) });
  return body as ManagementComponents['schemas']['ManagementError'];
}

/** Asserts that the response is one the spec declares for the operation, with a conforming body. */
export function assertConforms(operationId: OperationId, answer: Answer): void {
  const op = operation(operationId);
  const document = specs.documents[op.api];
  const declared = op.responses[String(answer.status)];
  expect(
    declared,
    `${operationId} declares no ${answer.status} response (body ${JSON.stringify(answer.body)})`,
  ).toBeDefined();
  const content = declared ? deref(document, declared).content : undefined;
  if (!content) return;
  const [mediaType, media] = defined(Object.entries(content)[0], 'media type');
  expect(answer.headers.get('content-type')?.split(';')[0]).toBe(mediaType.split(';')[0]);
  if (!mediaType.includes('json')) return;
  const key = `${operationId} ${answer.status}`;
  let validate = validators.get(key);
  if (!validate) {
    validate = ajv.compile(anchorRefs(op.api, media.schema) as object);
    validators.set(key, validate);
  }
  const valid = validate(answer.body);
  expect(
    valid,
    `${key} body ${JSON.stringify(answer.body)} violates the spec: ${ajv.errorsText(validate.errors)}`,
  ).toBe(true);
}

/** Asserts that a value matches a named component schema of one of the specs. */
export function assertSchema(api: Operation['api'], schemaName: string, value: unknown): void {
  const validate = ajv.compile({ $ref: `urn:platform-api:${api}#/components/schemas/${schemaName}` });
  expect(validate(value), `${JSON.stringify(value)} is not a ${schemaName}: ${ajv.errorsText(validate.errors)}`).toBe(
    true,
  );
}

export interface CallOptions {
  params?: Record<string, string | number>;
  /** A list repeats the parameter. */
  query?: Record<string, string | number | (string | number)[]>;
  /** JSON-encoded unless `rawBody` is given. */
  body?: unknown;
  /** Sent as given: text, or bytes that need not be UTF-8. */
  rawBody?: string | Uint8Array;
  token?: string;
  headers?: Record<string, string>;
}

/** Calls an operation of the specs by operationId and validates the answer against the spec. */
export async function call<Id extends OperationId>(
  server: MockServer,
  operationId: Id,
  options: CallOptions = {},
): Promise<Answer<SuccessBody<Id>>> {
  const answer = await toAnswer<SuccessBody<Id>>(await send(server, operation(operationId), options));
  assertConforms(operationId, answer);
  return answer;
}

/** Sends a request to an operation's path, with the parameters, query, headers and body of `options`. */
export function send(
  server: MockServer,
  op: { path: string; method: string },
  options: CallOptions,
): Promise<Response> {
  const path = op.path.replace(/\{([^}]+)\}/g, (_, name: string) => encodeURIComponent(String(options.params?.[name])));
  const query = options.query
    ? `?${new URLSearchParams(Object.entries(options.query).flatMap(([k, v]) => [v].flat().map((item) => [k, String(item)])))}`
    : '';
  const headers: Record<string, string> = { ...options.headers };
  const json = options.body === undefined ? undefined : JSON.stringify(options.body);
  const body = options.rawBody instanceof Uint8Array ? new Uint8Array(options.rawBody) : (options.rawBody ?? json);
  if (options.body !== undefined) headers['content-type'] ??= 'application/json';
  if (options.token) headers.authorization = `Bearer ${options.token}`;
  return fetch(`${server.url}${path}${query}`, { method: op.method, headers, body });
}

/** The response as an Answer; `Body` is what the caller checks it against (assertConforms). */
export async function toAnswer<Body = unknown>(response: Response): Promise<Answer<Body>> {
  const text = await response.text();
  const json = /json/.test(response.headers.get('content-type') ?? '');
  return {
    status: response.status,
    headers: response.headers,
    body: text && json ? JSON.parse(text) : text || undefined,
  };
}

/**
 * Sends `request` as raw bytes on a new connection and returns the first answer, read until the
 * server closes the connection: for requests fetch cannot send (malformed HTTP).
 */
export async function rawExchange(server: MockServer, request: string): Promise<Answer> {
  const socket = createConnection({ host: '127.0.0.1', port: server.port });
  const chunks: Buffer[] = [];
  socket.on('data', (chunk: Buffer) => chunks.push(chunk));
  await new Promise<void>((resolve, reject) => {
    socket.once('close', () => resolve());
    socket.once('error', reject);
    socket.end(request);
  });
  const text = Buffer.concat(chunks).toString('utf8');
  const [head = '', body = ''] = text.split('\r\n\r\n');
  const [statusLine = '', ...fields] = head.split('\r\n');
  const headers = new Headers(fields.map((field) => field.split(/: */, 2) as [string, string]));
  const length = Number(headers.get('content-length'));
  const json = /json/.test(headers.get('content-type') ?? '') ? JSON.parse(body.slice(0, length)) : body;
  return { status: Number(statusLine.split(' ')[1]), headers, body: json };
}

/** An access token of the bootstrap key (or of the given credentials), JSON format. */
export async function token(
  server: MockServer,
  clientId = server.clientId,
  clientSecret = server.clientSecret,
): Promise<string> {
  const answer = await call(server, 'request_access_token', {
    body: { grant_type: 'client_credentials', client_id: clientId, client_secret: clientSecret },
  });
  expect(answer.status).toBe(200);
  return answer.body.access_token;
}

/** The operation's JSON request body media type (`application/json; charset=utf-8` too); undefined when it takes none. */
export function jsonRequestMedia(op: Operation): MediaTypeObject | undefined {
  const content = op.requestBody?.content ?? {};
  const type = Object.keys(content).find((name) => name.includes('json'));
  return type === undefined ? undefined : content[type];
}

/** A copy of the first example of the operation's JSON request body; undefined when it has none. */
export function exampleBody(op: Operation): unknown {
  const examples = jsonRequestMedia(op)?.examples;
  const first = Object.values(examples ?? {})[0];
  return first ? structuredClone(deref(specs.documents[op.api], first).value) : undefined;
}

/** A parameter's example (its own, its schema's, or its schema's default) as text; `1` without one. */
export function exampleParameter(parameter: ParameterObject): string {
  return String(parameter.example ?? parameter.schema?.example ?? parameter.schema?.default ?? 1);
}

/** Calls an operation with a session's admin token; the answer is typed by the operation. */
export type Run = <Id extends OperationId>(operationId: Id, options?: CallOptions) => Promise<Answer<SuccessBody<Id>>>;

/** A fresh emulator, an admin token from its token endpoint, and `run`, which calls with that token. */
export async function session(options: MockServerOptions = {}) {
  const server = await start(options);
  const admin = await token(server);
  const run: Run = (operationId, callOptions = {}) => call(server, operationId, { token: admin, ...callOptions });
  return { server, admin, run };
}

export const ORDER_SCHEMA = [
  { name: 'order_id', type: 'string' },
  { name: 'total', type: 'number', optional: true },
  {
    name: 'customer',
    type: 'object',
    optional: true,
    properties: [
      { name: 'id', type: 'integer' },
      { name: 'email', type: 'string', optional: true },
    ],
  },
  { name: 'lines', type: 'array', of: 'object', optional: true, properties: [{ name: 'sku', type: 'string' }] },
  { name: 'placed_on', type: 'date', optional: true },
];

export async function createTopic(
  server: MockServer,
  accessToken: string,
  fields: Record<string, unknown> = {},
): Promise<number> {
  const answer = await call(server, 'create_topic', {
    token: accessToken,
    body: { name: `topic-${Math.random().toString(36).slice(2)}`, schema: ORDER_SCHEMA, ...fields },
  });
  expect(answer.status).toBe(200);
  return answer.body.id;
}

/** A started emulator with a token of its bootstrap key and one topic. */
export async function withTopic(options: MockServerOptions = {}) {
  const server = await start(options);
  const accessToken = await token(server);
  const topicId = await createTopic(server, accessToken);
  const publish = (payload: unknown) =>
    call(server, 'publish_message', { token: accessToken, params: { topic_id: topicId }, body: payload });
  const consume = (body: unknown = {}) =>
    call(server, 'consume_messages', { token: accessToken, params: { topic_id: topicId }, body });
  return { server, accessToken, topicId, publish, consume };
}
