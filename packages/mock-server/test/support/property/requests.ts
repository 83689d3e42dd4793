// Requests to the stateful operations, generated from the bundled specs: valid ones, with the ids and
// tokens the model knows, and mutated ones (types, formats, sizes, encodings, nesting, parameters,
// Content-Type, Authorization). Drawn inside a property through fast-check's `gen`, so a failure
// replays from its seed and shrinks.
import fc from 'fast-check';
import { createResourceEngine } from '../../../src/engine/engine.js';
import type { Operation } from '../../../src/spec/bundles.js';
import { specs } from '../helpers.js';
import type { Credentials, EmulatorModel, Sent } from './model.js';
import { schemaArbitrary } from './schema-arbitrary.js';
import { messageOf } from './topic-messages.js';

/** Draws one value inside a property. */
export type Draw = <T>(arbitrary: fc.Arbitrary<T>) => T;

/** The limits the suite starts emulators with: small, so sizes past them are cheap to send. */
export const LIMITS = { maxBatchMessages: 4, maxMessageBytes: 2048, maxBatchSize: 10 };

const engine = createResourceEngine(specs);
/**
 * Every operation of the domain's state: the event-streams and token operations, and the management
 * ones of the engine's families whose state the domain keeps (topics, API clients and keys).
 */
export const OPERATIONS = specs.operations.filter(
  (op) => op.api !== 'management' || engine.domainScope(op.operationId) !== undefined,
);

/** What the suite sent, and what it expects whatever the emulator's state. */
export interface Planned extends Sent {
  operation: Operation;
  method: string;
  url: string;
  headers: Record<string, string>;
  bytes: Uint8Array | undefined;
  /** The Authorization header is a bearer token the model rates (absent: no token was sent readably). */
  bearer?: string;
  /** A mutation may have made the request invalid. */
  mutated: boolean;
  /** A path parameter was replaced by something that is no id: the request must fail. */
  oddId?: boolean;
}

export function planRequest(draw: Draw, model: EmulatorModel, operation: Operation): Planned {
  const pathParams = pathParameters(draw, model, operation);
  const query = queryString(draw, operation);
  const bearer = operation.needsBearer ? draw(tokenChoice(model)) : undefined;
  const planned: Planned = {
    operationId: operation.operationId,
    operation,
    method: operation.method,
    pathParams,
    url: urlOf(operation, pathParams, query),
    headers: bearer === undefined ? {} : { authorization: `Bearer ${bearer}` },
    bytes: undefined,
    body: undefined,
    bearer,
    mutated: false,
  };
  if (operation.operationId === 'request_access_token') return tokenRequest(draw, model, planned);
  const body = operation.requestBody ? draw(bodyArbitrary(model, operation, pathParams)) : undefined;
  if (body !== undefined) {
    planned.body = body;
    planned.bytes = Buffer.from(JSON.stringify(body));
    planned.headers['content-type'] = draw(fc.constantFrom('application/json', 'application/json; charset=utf-8'));
  }
  return planned;
}

function urlOf(operation: Operation, pathParams: Record<string, string>, query: string): string {
  const path = operation.path.replace(/\{([^}]+)\}/g, (_, name: string) => encodeURIComponent(pathParams[name] ?? ''));
  return query ? `${path}?${query}` : path;
}

/** Ids of live resources mostly, an unknown one sometimes; never the bootstrap client or key. */
function pathParameters(draw: Draw, model: EmulatorModel, operation: Operation): Record<string, string> {
  const names = new Set(operation.parameters.filter((p) => p.in === 'path').map((p) => p.name));
  const params: Record<string, string> = {};
  const unknownId = fc.constantFrom('999999', '4294967295');
  const live = (ids: number[]) =>
    ids.length === 0
      ? unknownId
      : fc.oneof({ weight: 9, arbitrary: fc.constantFrom(...ids.map(String)) }, { weight: 1, arbitrary: unknownId });
  if (names.has('topic_id')) params.topic_id = draw(live([...model.topics.keys()]));
  if (names.has('api_key_id')) {
    const keys = [...model.keys.values()];
    const key = keys.length > 0 && draw(fc.nat(9)) > 0 ? draw(fc.constantFrom(...keys)) : undefined;
    params.api_key_id = key ? String(key.id) : draw(unknownId);
    params.api_client_id = key ? String(key.clientId) : draw(live([...model.clients.keys()]));
  } else if (names.has('api_client_id')) {
    params.api_client_id = draw(live([...model.clients.keys()]));
  }
  return params;
}

export function queryString(draw: Draw, operation: Operation): string {
  const search = new URLSearchParams();
  for (const parameter of operation.parameters.filter((p) => p.in === 'query')) {
    if (!draw(fc.boolean())) continue;
    const value = draw(schemaArbitrary(specs.documents[operation.api], parameter.schema ?? {}));
    for (const item of Array.isArray(value) ? value : [value]) search.append(parameter.name, String(item));
  }
  return search.toString();
}

function tokenChoice(model: EmulatorModel): fc.Arbitrary<string> {
  const revoked = [...model.revoked];
  return fc.oneof(
    { weight: 6, arbitrary: fc.constant(model.adminToken) },
    { weight: 3, arbitrary: fc.constantFrom(...model.validTokens()) },
    ...(revoked.length > 0 ? [{ weight: 2, arbitrary: fc.constantFrom(...revoked) }] : []),
    { weight: 1, arbitrary: fc.base64String({ minLength: 4, maxLength: 44 }) },
  );
}

/** The body: for a message, one for the topic's schema; for consume, no waiting; else the spec's schema. */
function bodyArbitrary(
  model: EmulatorModel,
  operation: Operation,
  pathParams: Record<string, string>,
): fc.Arbitrary<unknown> {
  const fields = model.topics.get(Number(pathParams.topic_id))?.fields ?? [];
  const message = fc.oneof({ weight: 4, arbitrary: messageOf(fields, 'matching') }, messageOf(fields, 'loose'));
  switch (operation.operationId) {
    case 'publish_message':
      return message;
    case 'publish_messages_batch':
      return fc.record({ payloads: fc.array(message, { minLength: 1, maxLength: LIMITS.maxBatchMessages }) });
    case 'consume_messages':
      return consumeBody(model, pathParams, specBody(operation));
    default:
      return specBody(operation);
  }
}

function specBody(operation: Operation): fc.Arbitrary<unknown> {
  const content = operation.requestBody?.content ?? {};
  const media = Object.entries(content).find(([type]) => type.startsWith('application/json'))?.[1];
  return schemaArbitrary(specs.documents[operation.api], media?.schema ?? {});
}

/** Offsets the model knows mostly, one at most; never a wait (`timeout_secs` 0), so no run waits for a timeout. */
function consumeBody(model: EmulatorModel, pathParams: Record<string, string>, generated: fc.Arbitrary<unknown>) {
  const ids = model.topics.get(Number(pathParams.topic_id))?.messages.map((m) => m.id) ?? [];
  const offset = fc.oneof(
    fc.constant({}),
    fc.record({
      since_time: schemaArbitrary(specs.documents['event-streams'], { type: 'string', format: 'date-time' }),
    }),
    ...(ids.length > 0 ? [{ weight: 3, arbitrary: fc.record({ after_message_id: fc.constantFrom(...ids) }) }] : []),
  );
  return fc.tuple(generated, offset, fc.nat(9)).map(([body, chosen, chance]) => {
    // Now and then, the generated offsets as they are: both, or an unknown id.
    if (chance === 0) return { ...(body as object), timeout_secs: 0 };
    const { batch_size } = body as { batch_size?: number };
    return { ...chosen, ...(batch_size === undefined ? {} : { batch_size }), timeout_secs: 0 };
  });
}

/** A token request in one of the four formats, with credentials current, retired or made up. */
function tokenRequest(draw: Draw, model: EmulatorModel, planned: Planned): Planned {
  const made: Credentials = { oauthClientId: 'nobody', secret: 'nothing', key: undefined };
  // Drawn by index, so a counterexample does not list the model's keys.
  const choices = [...model.credentials(), made];
  const credentials = choices[draw(fc.nat(choices.length - 1))] ?? made;
  const { oauthClientId, secret } = credentials;
  const fields = { grant_type: 'client_credentials', client_id: oauthClientId, client_secret: secret };
  const format = draw(fc.constantFrom('basic', 'json', 'form', 'multipart'));
  planned.credentials = credentials;
  planned.body = format === 'basic' ? { grant_type: 'client_credentials' } : fields;
  if (format === 'json') {
    planned.headers['content-type'] = 'application/json';
    planned.bytes = Buffer.from(JSON.stringify(fields));
  } else if (format === 'multipart') {
    // Boundaries as browsers, curl and .NET (quoted) write them.
    const boundary = draw(
      fc.constantFrom('----WebKitFormBoundary7MA4YWxkTrZu0gW', '------------------------d74496d66958873e'),
    );
    const quoted = draw(fc.boolean());
    planned.headers['content-type'] = `multipart/form-data; boundary=${quoted ? `"${boundary}"` : boundary}`;
    const parts = Object.entries(fields).map(
      ([name, value]) => `--${boundary}\r\nContent-Disposition: form-data; name="${name}"\r\n\r\n${value}\r\n`,
    );
    planned.bytes = Buffer.from(`${parts.join('')}--${boundary}--\r\n`);
  } else {
    planned.headers['content-type'] = 'application/x-www-form-urlencoded';
    planned.bytes = Buffer.from(new URLSearchParams(planned.body as Record<string, string>).toString());
    if (format === 'basic') {
      const plain = `${oauthClientId}:${secret}`;
      planned.headers.authorization = `Basic ${Buffer.from(plain).toString('base64')}`;
    }
  }
  return planned;
}

// --- Mutations ------------------------------------------------------------------------------------

/** Values of every JSON type and edge: wrong types, bounds, formats, sizes, nesting. */
const ODD_VALUES: fc.Arbitrary<unknown> = fc.oneof(
  fc.constantFrom(null, true, 0, -1, 1.5, 2 ** 32, 2 ** 53 + 2, 1e308, '', [], {}, [[]], { a: {} }),
  fc.constantFrom('2026-12-31T23:59:61Z', '2026-02-30T00:00:00Z', '2026-11-22T12:00:00', 'not a date', '\u0000'),
  fc.constant('x'.repeat(70_000)),
  fc.constant(JSON.parse(`${'['.repeat(3000)}${']'.repeat(3000)}`)),
  fc.constant(JSON.parse(`${'{"a":'.repeat(3000)}1${'}'.repeat(3000)}`)),
  fc.jsonValue({ maxDepth: 2 }),
);

/** Path segments that are no id: out of range, or written otherwise than in decimal digits. */
const ODD_IDS = [
  '-1',
  '0',
  'abc',
  '1.5',
  '4294967296',
  '%zz',
  '1e3',
  '1e0',
  '1.0',
  '0x1',
  '%201',
  '1e400',
  'Infinity',
  '9007199254740993',
  'x'.repeat(600),
];

/** Names a lookup in a plain object finds on Object.prototype. */
const PROTOTYPE_NAMES = ['__proto__', 'constructor', 'toString', 'hasOwnProperty', 'valueOf'];
const PROPERTY_NAMES = fc.oneof(fc.string({ maxLength: 8 }), fc.constantFrom(...PROTOTYPE_NAMES));

type Mutation = (draw: Draw, planned: Planned) => void;

const MUTATIONS: Mutation[] = [
  // A value of the body replaced by another type, bound, format, size or nesting.
  (draw, planned) => setBody(planned, replaceSomewhere(draw, planned.body, draw(ODD_VALUES))),
  // A property dropped, or one added that the schema does not know.
  (draw, planned) => setBody(planned, dropSomewhere(draw, planned.body)),
  (draw, planned) => setBody(planned, addSomewhere(draw, planned.body, draw(PROPERTY_NAMES), draw(ODD_VALUES))),
  // Query parameters named after Object.prototype's properties, or a parameter sent twice.
  (draw, planned) => {
    const names = [
      ...PROTOTYPE_NAMES,
      ...planned.operation.parameters.filter((p) => p.in === 'query').map((p) => p.name),
    ];
    const extra = draw(
      fc.array(fc.tuple(fc.constantFrom(...names), fc.constantFrom('1', '', 'x', '-1')), {
        minLength: 1,
        maxLength: 3,
      }),
    );
    const query = new URLSearchParams(extra).toString();
    planned.url = `${planned.url}${planned.url.includes('?') ? '&' : '?'}${query}`;
    planned.mutated = true;
  },
  // Bytes that are not the JSON they look like.
  (draw, planned) => {
    const text = planned.bytes ? Buffer.from(planned.bytes).toString('utf8') : '{}';
    const bytes = draw(
      fc.constantFrom(
        Buffer.from(text.slice(0, Math.floor(text.length / 2))),
        Buffer.concat([Buffer.from(text.slice(0, -1)), Buffer.from([0xff, 0xfe, 0x22, 0x7d])]),
        Buffer.from(`\ufeff${text}`),
        Buffer.from(text, 'utf16le'),
        Buffer.alloc(0),
        Buffer.from('null'),
        Buffer.from('[]'),
        Buffer.from('"text"'),
        // A number past a double's range, which JSON.parse reads as Infinity.
        Buffer.from(text.replace(/(:\s*)-?\d+(\.\d+)?([eE][+-]?\d+)?/, '$11e400')),
      ),
    );
    planned.bytes = bytes;
    planned.body = undefined;
    planned.mutated = true;
  },
  // JSON that is not UTF-8: a Latin-1 "é", a lone surrogate or an overlong "/" inside a string.
  (draw, planned) => {
    const text = planned.bytes ? Buffer.from(planned.bytes).toString('utf8') : '';
    const invalid = Buffer.from(draw(fc.constantFrom([0xe9], [0xed, 0xa0, 0x80], [0xc0, 0xaf])));
    const quote = text.indexOf('"');
    planned.bytes =
      quote < 0
        ? Buffer.concat([Buffer.from('"'), invalid, Buffer.from('"')])
        : Buffer.concat([Buffer.from(text.slice(0, quote + 1)), invalid, Buffer.from(text.slice(quote + 1))]);
    planned.body = undefined;
    planned.mutated = true;
  },
  // Headers that change how the body is to be read, or ask for what the emulator does not do.
  (draw, planned) => {
    const [name, value] = draw(
      fc.constantFrom(
        ['content-encoding', 'gzip'],
        ['content-encoding', 'identity'],
        ['content-type', 'application/json; charset=latin1'],
        ['content-type', 'application/json;charset="UTF-8"'],
        ['expect', '200-ok'],
        ['accept', 'application/xml'],
        ['accept-charset', 'utf-16'],
      ),
    );
    planned.headers[name] = value;
    planned.mutated = true;
  },
  // A Content-Type that is not JSON, or none.
  (draw, planned) => {
    const contentType = draw(
      fc.constantFrom(
        undefined,
        'text/plain',
        'application/xml',
        'application/json; charset=utf-16',
        'APPLICATION/JSON',
      ),
    );
    if (contentType === undefined) delete planned.headers['content-type'];
    else planned.headers['content-type'] = contentType;
    planned.mutated = true;
  },
  // A path or query parameter that is not what the spec allows.
  // An id in the path that is no decimal integer id names no resource: it is never answered 2xx.
  (draw, planned) => {
    const odd = draw(fc.constantFrom(...ODD_IDS));
    const [name] = Object.keys(planned.pathParams);
    const query = planned.url.includes('?') ? '&' : '?';
    const url = name
      ? planned.url.replace(`/${encodeURIComponent(planned.pathParams[name] ?? '')}`, `/${odd}`)
      : `${planned.url}${query}page=${odd}&per_page=${odd}&unknown=${odd}`;
    planned.oddId = name !== undefined && url !== planned.url;
    planned.url = url;
    planned.mutated = true;
  },
  // An Authorization header that carries no usable credentials.
  (draw, planned) => {
    const header = draw(fc.constantFrom(undefined, 'Bearer', 'Bearer  ', 'Basic !!!', 'Basic bm9jb2xvbg==', 'Token x'));
    if (header === undefined) delete planned.headers.authorization;
    else planned.headers.authorization = header;
    planned.bearer = undefined;
    planned.mutated = true;
  },
];

export function mutate(draw: Draw, planned: Planned): Planned {
  const mutation = MUTATIONS[draw(fc.nat(MUTATIONS.length - 1))];
  mutation?.(draw, planned);
  const offsets = planned.body as { timeout_secs?: unknown } | undefined;
  // A consume that could wait would wait for its timeout: no run waits.
  if (planned.operationId === 'consume_messages' && typeof offsets?.timeout_secs === 'number') {
    setBody(planned, { ...offsets, timeout_secs: 0 });
  }
  return planned;
}

function setBody(planned: Planned, body: unknown): void {
  planned.body = body;
  planned.bytes = Buffer.from(JSON.stringify(body) ?? '');
  planned.headers['content-type'] ??= 'application/json';
  planned.mutated = true;
}

/** The JSON paths of a value's nodes (the root included), as lists of keys. */
function pathsOf(value: unknown, prefix: (string | number)[] = [], depth = 0): (string | number)[][] {
  const paths = [prefix];
  if (depth > 8 || value === null || typeof value !== 'object') return paths;
  for (const [key, child] of Object.entries(value)) {
    paths.push(...pathsOf(child, [...prefix, Array.isArray(value) ? Number(key) : key], depth + 1));
  }
  return paths;
}

function pick(draw: Draw, value: unknown): (string | number)[] {
  const paths = pathsOf(value);
  return paths[draw(fc.nat(paths.length - 1))] ?? [];
}

/** A copy of `value` changed at `path` by `change` (given the parent and the key). */
function changed(
  value: unknown,
  path: (string | number)[],
  change: (parent: Record<string | number, unknown>, key: string | number) => void,
): unknown {
  const copy = structuredClone(value);
  const [last] = path.slice(-1);
  if (last === undefined) return copy;
  const parent = path
    .slice(0, -1)
    .reduce<unknown>((node, key) => (node as Record<string | number, unknown>)[key], copy);
  change(parent as Record<string | number, unknown>, last);
  return copy;
}

function replaceSomewhere(draw: Draw, value: unknown, replacement: unknown): unknown {
  const path = pick(draw, value);
  if (path.length === 0) return replacement;
  return changed(value, path, (parent, key) => {
    parent[key] = replacement;
  });
}

function dropSomewhere(draw: Draw, value: unknown): unknown {
  return changed(value, pick(draw, value), (parent, key) => {
    if (Array.isArray(parent)) parent.splice(Number(key), 1);
    else delete parent[key];
  });
}

function addSomewhere(draw: Draw, value: unknown, name: string, added: unknown): unknown {
  const objects = pathsOf(value).filter((path) => {
    const node = path.reduce<unknown>((n, key) => (n as Record<string | number, unknown>)[key], value);
    return node !== null && typeof node === 'object' && !Array.isArray(node);
  });
  const path = objects[draw(fc.nat(Math.max(0, objects.length - 1)))];
  if (!path) return value;
  const copy = structuredClone(value);
  const target = path.reduce<unknown>((n, key) => (n as Record<string | number, unknown>)[key], copy);
  Object.defineProperty(target, name, { value: added, enumerable: true, writable: true, configurable: true });
  return copy;
}

/** The methods of the operation's path in the specs, and one it does not have. */
export function otherMethod(draw: Draw, operation: Operation): { method: string; allowed: string[] } {
  const allowed = specs.operations.filter((op) => op.path === operation.path).map((op) => op.method);
  // A path with GET answers HEAD too.
  if (allowed.includes('GET')) allowed.push('HEAD');
  const others = ['GET', 'HEAD', 'PUT', 'POST', 'DELETE', 'PATCH', 'OPTIONS', 'TRACE'].filter(
    (method) => !allowed.includes(method),
  );
  return { method: draw(fc.constantFrom(...others)), allowed };
}
