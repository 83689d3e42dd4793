import { request } from 'node:http';
import { createConnection } from 'node:net';
import { describe, expect, it } from 'vitest';
import type { MockServer } from '../src/index.js';
import { defined } from './support/defined.js';
import {
  type Answer,
  assertConforms,
  call,
  createTopic,
  errorOf,
  sizeLimitOf,
  start,
  toAnswer,
  token,
  withTopic,
} from './support/helpers.js';

describe('publish', () => {
  it('rejects a message that does not match the topic schema, naming the field', async () => {
    const { publish, consume } = await withTopic();
    const cases: Array<[unknown, string]> = [
      [{ total: 3 }, 'order_id'],
      [{ order_id: 7 }, 'order_id'],
      [{ order_id: 'A', customer: { id: 'x' } }, 'customer.id'],
      [{ order_id: 'A', customer: {} }, 'customer.id'],
      [{ order_id: 'A', lines: [{ sku: 'S' }, { sku: 5 }] }, 'lines[1].sku'],
      [{ order_id: 'A', placed_on: '22/11/2026' }, 'placed_on'],
    ];
    for (const [payload, field] of cases) {
      const answer = await publish(payload);
      expect(answer.status).toBe(400);
      expect(errorOf(answer).details).toEqual({ code: 'SCHEMA_MISMATCH', field });
      expect(errorOf(answer).message).toContain(field);
    }
    // Optional fields may be absent or null; unknown fields are kept.
    expect((await publish({ order_id: 'A', total: null, note: 'kept' })).status).toBe(201);
    expect((await consume()).body.messages.map((m) => m.payload)).toEqual([
      { order_id: 'A', total: null, note: 'kept' },
    ]);
  });

  it('finds required fields named __proto__ or constructor only in the message, in publish and batch publish', async () => {
    const schema = [
      { name: '__proto__', type: 'string' },
      { name: 'constructor', type: 'string' },
    ];
    const server = await start();
    const accessToken = await token(server);
    const topicId = await createTopic(server, accessToken, { schema });
    const { publish, batch } = rawSenders(server, accessToken, topicId);
    for (const answer of [await publish('{"constructor":"c"}'), await batch('{"constructor":"c"}')]) {
      expect([answer.status, errorOf(answer).details.field]).toEqual([400, '__proto__']);
    }
    const missingConstructor = await batch('{"__proto__":"p","constructor":"c"},{"__proto__":"p"}');
    expect(errorOf(missingConstructor).details).toEqual({ code: 'SCHEMA_MISMATCH', field: 'constructor', position: 1 });
    expect((await publish('{"__proto__":"p","constructor":"c"}')).status).toBe(201);
    const stored = await call(server, 'consume_messages', {
      token: accessToken,
      params: { topic_id: topicId },
      body: {},
    });
    expect(stored.body.messages.map((m) => JSON.stringify(m.payload))).toEqual(['{"__proto__":"p","constructor":"c"}']);
  });

  it('refuses a number field past the range of a double (1e400), which many consumers cannot read', async () => {
    const { server, accessToken, topicId, consume } = await withTopic();
    const params = { topic_id: topicId };
    const headers = { 'content-type': 'application/json' };
    const published = await call(server, 'publish_message', {
      token: accessToken,
      params,
      rawBody: '{"order_id":"A","total":1e400}',
      headers,
    });
    const batch = await call(server, 'publish_messages_batch', {
      token: accessToken,
      params,
      rawBody: '{"payloads":[{"order_id":"A","total":-1e400}]}',
      headers,
    });
    expect([published.status, errorOf(published).details]).toEqual([400, { code: 'SCHEMA_MISMATCH', field: 'total' }]);
    expect([batch.status, errorOf(batch).details]).toEqual([
      400,
      { code: 'SCHEMA_MISMATCH', field: 'total', position: 0 },
    ]);
    expect((await consume()).body.messages).toEqual([]);
  });

  it('refuses a number past the range of a double in a field the schema leaves open (NUMBER_OUT_OF_RANGE)', async () => {
    // Acknowledged, it would come back changed: a batch's messages are stored from their parsed values,
    // where 1e400 is Infinity, which JSON writes as null.
    const { server, accessToken, topicId, consume } = await withTopic();
    const { publish, batch } = rawSenders(server, accessToken, topicId);
    const refusals = [
      await publish('{"order_id":"A","note":1e400}'),
      await publish(`{"order_id":"A","extra":{"values":[1,${'9'.repeat(400)}]}}`),
      await batch('{"order_id":"A"},{"order_id":"B","extra":{"values":[1,-1E+400]}}'),
    ];
    expect(refusals.map((answer) => [answer.status, errorOf(answer).details])).toEqual([
      [400, { code: 'NUMBER_OUT_OF_RANGE', field: 'note' }],
      [400, { code: 'NUMBER_OUT_OF_RANGE', field: 'extra.values[1]' }],
      [400, { code: 'NUMBER_OUT_OF_RANGE', field: 'extra.values[1]', position: 1 }],
    ]);
    expect(errorOf(refusals[2] as Answer).message).toBe(
      'Message 1: extra.values[1] is a number past the range of a double; send it as a string',
    );
    // Numbers within the range, and text that only looks like a long exponent, are stored as ever.
    const kept = '{"order_id":"C","big":1.7976931348623157e308,"small":1e-400,"padded":1e099,"text":"1e400"}';
    expect((await publish(kept)).status).toBe(201);
    expect((await batch(kept)).status).toBe(201);
    const payloads = (await consume()).body.messages.map((m) => m.payload);
    expect(payloads).toEqual([JSON.parse(kept), JSON.parse(kept)]);
  });

  it('gives a consumer the message text exactly as published: spacing, key order and UTF-8', async () => {
    const { server, accessToken, topicId } = await withTopic();
    const sent = '{ "order_id" : "Ä-1 😀",\n  "note": "\\u00e9 é",  "total": 1.50 }';
    const published = await call(server, 'publish_message', {
      token: accessToken,
      params: { topic_id: topicId },
      rawBody: sent,
      headers: { 'content-type': 'application/json' },
    });
    expect(published.status).toBe(201);
    const consumed = await fetch(`${server.url}/api/v1/topics/${topicId}/consume`, {
      method: 'POST',
      headers: { authorization: `Bearer ${accessToken}`, 'content-type': 'application/json' },
      body: '{}',
    });
    expect(await consumed.text()).toContain(`"payload":${sent},`);
  });

  it('refuses a body that is not UTF-8, a charset other than UTF-8 and a Content-Encoding, storing nothing', async () => {
    const { server, accessToken, topicId, consume } = await withTopic();
    const send = async (bytes: Uint8Array, headers: Record<string, string>) => {
      const response = await fetch(`${server.url}/api/v1/topics/${topicId}/publish`, {
        method: 'POST',
        headers: { authorization: `Bearer ${accessToken}`, 'content-type': 'application/json', ...headers },
        body: new Uint8Array(bytes),
      });
      const answer = await toAnswer(response);
      assertConforms('publish_message', answer);
      return answer;
    };
    const publish = async (bytes: Uint8Array, headers: Record<string, string> = {}) => {
      const answer = await send(bytes, headers);
      return [answer.status, errorOf(answer).details.code];
    };
    // JSON is UTF-8 (RFC 8259 8.1): a Latin-1 "é", a lone surrogate, an overlong "/" are not read as something else.
    for (const invalid of [[0xe9], [0xed, 0xa0, 0x80], [0xc0, 0xaf]]) {
      const bytes = Buffer.concat([Buffer.from('{"order_id":"'), Buffer.from(invalid), Buffer.from('"}')]);
      expect(await publish(bytes)).toEqual([400, 'INVALID_JSON']);
    }
    const utf16 = Buffer.from('{"order_id":"A"}', 'utf16le');
    expect(await publish(utf16, { 'content-type': 'application/json; charset=utf-16' })).toEqual([
      400,
      'UNSUPPORTED_CONTENT_TYPE',
    ]);
    const plain = Buffer.from('{"order_id":"A"}');
    expect(await publish(plain, { 'content-encoding': 'gzip' })).toEqual([400, 'UNSUPPORTED_CONTENT_TYPE']);
    expect((await consume()).body.messages).toEqual([]);
    // UTF-8 said in any spelling, and the identity encoding, are taken.
    for (const headers of <Record<string, string>[]>[
      { 'content-type': 'application/json; charset=UTF-8' },
      { 'content-type': 'application/json;charset="utf-8"' },
      { 'content-encoding': 'identity' },
    ]) {
      expect((await send(plain, headers)).status, JSON.stringify(headers)).toBe(201);
    }
  });

  it('answers 400 for bad JSON, a wrong Content-Type, a non-object body and a bad topic_id; 404 for an unknown topic', async () => {
    const { server, accessToken, topicId } = await withTopic();
    const publish = (options: Parameters<typeof call>[2]) =>
      call(server, 'publish_message', { token: accessToken, params: { topic_id: topicId }, ...options });
    const code = (answer: Answer) => errorOf(answer).details.code;
    expect(code(await publish({ rawBody: '{"order_id":', headers: { 'content-type': 'application/json' } }))).toBe(
      'INVALID_JSON',
    );
    expect(
      code(await publish({ rawBody: 'order_id=A', headers: { 'content-type': 'application/x-www-form-urlencoded' } })),
    ).toBe('UNSUPPORTED_CONTENT_TYPE');
    expect(code(await publish({ body: ['not', 'an', 'object'] }))).toBe('INVALID_REQUEST');
    expect(code(await publish({ rawBody: '', headers: { 'content-type': 'application/json' } }))).toBe(
      'INVALID_REQUEST',
    );
    for (const topic_id of ['4294967296', '-1', 'abc', '1.5']) {
      const answer = await call(server, 'publish_message', {
        token: accessToken,
        params: { topic_id },
        body: { order_id: 'A' },
      });
      expect([answer.status, code(answer)]).toEqual([400, 'INVALID_TOPIC_ID']);
    }
    const missing = await call(server, 'publish_message', {
      token: accessToken,
      params: { topic_id: 4294967295 },
      body: { order_id: 'A' },
    });
    expect([missing.status, code(missing)]).toEqual([404, 'TOPIC_NOT_FOUND']);
  });

  it('refuses a message over the size limit by its Content-Length, with max_size and current_size', async () => {
    const { publish } = await withTopic({ limits: { maxMessageBytes: 1000 } });
    const answer = await publish({ order_id: 'x'.repeat(2000) });
    expect(answer.status).toBe(413);
    expect(answer.body).toMatchObject({ max_size: 1000, current_size: 2000 + '{"order_id":""}'.length });
    expect((await publish({ order_id: 'x'.repeat(900) })).status).toBe(201);
  });

  it('stops reading a chunked body as soon as it passes the limit', async () => {
    const { server, accessToken, topicId } = await withTopic({ limits: { maxMessageBytes: 10_000 } });
    const { port } = new URL(server.url);
    // Three 4 KiB chunks pass the limit, and the body is never finished: the 413 can only come from a
    // server that stopped reading at the limit, whatever the machine's load.
    const answer = await new Promise<Answer>((resolve, reject) => {
      const req = request(
        {
          host: '127.0.0.1',
          port,
          method: 'POST',
          path: `/api/v1/topics/${topicId}/publish`,
          headers: {
            authorization: `Bearer ${accessToken}`,
            'content-type': 'application/json',
            'transfer-encoding': 'chunked',
          },
        },
        (res) => {
          answered = true;
          const headers = new Headers(res.headers as Record<string, string>);
          let text = '';
          res.on('data', (chunk) => (text += chunk));
          res.on('end', () => {
            resolve({ status: defined(res.statusCode), headers, body: JSON.parse(text) });
            req.destroy();
          });
        },
      );
      // Once answered, the server may close before taking the rest: the client's write error is expected.
      let answered = false;
      req.on('error', (error) => answered || reject(error));
      req.write('{"order_id":"');
      for (let chunk = 0; chunk < 3; chunk++) req.write('x'.repeat(4096));
    });
    assertConforms('publish_message', answer);
    expect(answer.status).toBe(413);
    expect(sizeLimitOf(answer).max_size).toBe(10_000);
    expect(sizeLimitOf(answer).current_size).toBeGreaterThan(10_000);
    expect(sizeLimitOf(answer).current_size).toBeLessThan(20_000);
  });

  it('reads a body that comes whole, in pieces, chunked or pipelined, and refuses one past the limit either way', async () => {
    const { server, accessToken, topicId, consume } = await withTopic({ limits: { maxMessageBytes: 1000 } });
    const head = (framing: string) =>
      `POST /api/v1/topics/${topicId}/publish HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${accessToken}\r\n` +
      `Content-Type: application/json\r\n${framing}\r\n`;
    const sized = (body: string) => head(`Content-Length: ${Buffer.byteLength(body)}\r\n`) + body;
    const chunked = (body: string) =>
      `${head('Transfer-Encoding: chunked\r\n')}${Buffer.byteLength(body).toString(16)}\r\n${body}\r\n0\r\n\r\n`;
    const message = (order_id: string) => JSON.stringify({ order_id });

    expect(await statuses(server.url, [chunked(message('whole, chunked'))], 1)).toEqual([201]);
    const inPieces = sized(message('in pieces'));
    expect(await statuses(server.url, [inPieces.slice(0, -8), inPieces.slice(-8)], 1)).toEqual([201]);
    expect(await statuses(server.url, [sized(message('pipelined 1')) + sized(message('pipelined 2'))], 2)).toEqual([
      201, 201,
    ]);
    expect(await statuses(server.url, [chunked(message('x'.repeat(2000)))], 1)).toEqual([413]);
    const stored = (await consume()).body.messages.map((m) => m.payload.order_id);
    expect(stored).toEqual(['whole, chunked', 'in pieces', 'pipelined 1', 'pipelined 2']);
  });

  it('takes a request whose Expect it does not know as if it had none (RFC 9110 10.1.1), not with a bare 417', async () => {
    const { server, accessToken, topicId, consume } = await withTopic();
    const body = JSON.stringify({ order_id: 'expected' });
    const raw = (expect: string) =>
      `POST /api/v1/topics/${topicId}/publish HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${accessToken}\r\n` +
      `Content-Type: application/json\r\nExpect: ${expect}\r\nContent-Length: ${body.length}\r\n\r\n${body}`;
    expect(await statuses(server.url, [raw('200-ok')], 1)).toEqual([201]);
    expect(await statuses(server.url, [raw('100-continue')], 2)).toEqual([100, 201]);
    const unknownPath = `GET /nowhere HTTP/1.1\r\nHost: x\r\nExpect: x\r\n\r\n`;
    expect(await statuses(server.url, [unknownPath], 1)).toEqual([404]);
    expect((await consume()).body.messages.map((m) => m.payload)).toEqual([
      { order_id: 'expected' },
      { order_id: 'expected' },
    ]);
  });

  it('stores nothing from a client that leaves mid-body, and keeps serving', async () => {
    const { server, accessToken, topicId, publish, consume } = await withTopic();
    const { port } = new URL(server.url);
    const socket = createConnection({ host: '127.0.0.1', port: Number(port) });
    await new Promise((resolve) => socket.once('connect', resolve));
    const body = JSON.stringify({ order_id: 'gone' });
    socket.write(
      `POST /api/v1/topics/${topicId}/publish HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${accessToken}\r\n` +
        `Content-Type: application/json\r\nContent-Length: ${body.length}\r\n\r\n${body.slice(0, 5)}`,
    );
    await new Promise((resolve) => setTimeout(resolve, 50));
    socket.destroy();
    expect((await publish({ order_id: 'kept' })).status).toBe(201);
    expect((await consume()).body.messages.map((m) => m.payload)).toEqual([{ order_id: 'kept' }]);
  });
});

describe('connections', () => {
  it('are kept after a request without a body answered at once, idle longer than clients keep theirs', async () => {
    // A 401 is answered as the headers arrive. A server that closed an idle connection first could
    // close it as a client sends on it (ECONNRESET): node's agent keeps one 5 s at most, or a second
    // less than the Keep-Alive hint; undici 4 s.
    const { server } = await withTopic();
    const headers = await new Promise<Record<string, string | string[] | undefined>>((resolve, reject) => {
      request(`${server.url}/api/event_streams/topics`, (response) => {
        response.resume();
        resolve(response.headers);
      })
        .on('error', reject)
        .end();
    });
    expect(headers.connection).toBe('keep-alive');
    expect(Number(/^timeout=(\d+)$/.exec(String(headers['keep-alive']))?.[1])).toBeGreaterThanOrEqual(60);
  });
});

describe('batch publish', () => {
  it('stores the messages in array order with a success entry per position', async () => {
    const { server, accessToken, topicId, consume } = await withTopic();
    const answer = await call(server, 'publish_messages_batch', {
      token: accessToken,
      params: { topic_id: topicId },
      body: { payloads: [{ order_id: 'A' }, { order_id: 'B' }, { order_id: 'C' }] },
    });
    expect(answer.status).toBe(201);
    expect(answer.body.is_partial_error).toBe(false);
    const ids = ['0', '1', '2'].map((position) => {
      const result = answer.body.message_ids[position];
      return result?.result === 'success' ? result.message_id : undefined;
    });
    const consumed = (await consume()).body.messages;
    expect(consumed.map((m) => m.message_id)).toEqual(ids);
    expect(consumed.map((m) => m.payload.order_id)).toEqual(['A', 'B', 'C']);
  });

  it('refuses more messages than the batch limit, a message over the size limit, and a schema mismatch, storing nothing', async () => {
    const { server, accessToken, topicId, consume } = await withTopic({
      limits: { maxBatchMessages: 3, maxMessageBytes: 100 },
    });
    const batch = (payloads: unknown[]) =>
      call(server, 'publish_messages_batch', { token: accessToken, params: { topic_id: topicId }, body: { payloads } });
    const tooMany = await batch([{ order_id: '1' }, { order_id: '2' }, { order_id: '3' }, { order_id: '4' }]);
    expect([tooMany.status, errorOf(tooMany).details]).toEqual([400, { code: 'BATCH_TOO_LARGE', max_messages: 3 }]);
    const tooBig = await batch([{ order_id: 'small' }, { order_id: 'x'.repeat(200) }]);
    expect(tooBig.status).toBe(413);
    expect(tooBig.body).toMatchObject({ max_size: 100, current_size: 215 });
    expect(sizeLimitOf(tooBig).details).toContain('Message 1');
    const mismatch = await batch([{ order_id: 'ok' }, { order_id: 5 }]);
    expect([mismatch.status, errorOf(mismatch).details]).toEqual([
      400,
      { code: 'SCHEMA_MISMATCH', field: 'order_id', position: 1 },
    ]);
    expect((await consume()).body.messages).toEqual([]);
  });

  it('keeps each emulator to its own batch limit when several run in one process', async () => {
    // Emulators of one process share the specs' compiled checks; the limit each applies is its own.
    const [three, five] = await Promise.all([
      withTopic({ limits: { maxBatchMessages: 3 } }),
      withTopic({ limits: { maxBatchMessages: 5 } }),
    ]);
    const payloads = ['1', '2', '3', '4'].map((order_id) => ({ order_id }));
    const batch = ({ server, accessToken, topicId }: typeof three) =>
      call(server, 'publish_messages_batch', { token: accessToken, params: { topic_id: topicId }, body: { payloads } });
    const [refused, stored] = [await batch(three), await batch(five)];
    expect([refused.status, errorOf(refused).details]).toEqual([400, { code: 'BATCH_TOO_LARGE', max_messages: 3 }]);
    expect([stored.status, stored.body.is_partial_error]).toEqual([201, false]);
    expect((await five.consume()).body.messages).toHaveLength(4);
    expect((await three.consume()).body.messages).toEqual([]);
  });

  it('answers 400, not 500, for a message nested too deeply to serialize', async () => {
    const { server, accessToken, topicId } = await withTopic();
    const deep = `{"order_id":"A","x":${'['.repeat(100_000)}${']'.repeat(100_000)}}`;
    const answer = await call(server, 'publish_messages_batch', {
      token: accessToken,
      params: { topic_id: topicId },
      rawBody: `{"payloads":[${deep}]}`,
      headers: { 'content-type': 'application/json' },
    });
    expect(answer.status).toBe(400);
    expect(errorOf(answer).details.code).toMatch(/INVALID_JSON|INVALID_REQUEST/);
  });

  it('refuses a batch body larger than the batch limit by its Content-Length', async () => {
    const { server, accessToken, topicId } = await withTopic({ limits: { maxBatchMessages: 2, maxMessageBytes: 100 } });
    const response = await fetch(`${server.url}/api/v1/batch/topics/${topicId}/publish`, {
      method: 'POST',
      headers: { authorization: `Bearer ${accessToken}`, 'content-type': 'application/json' },
      body: JSON.stringify({ payloads: [{ order_id: 'x'.repeat(70_000) }] }),
    });
    const answer = await toAnswer(response);
    assertConforms('publish_messages_batch', answer);
    expect(answer.status).toBe(413);
    expect(sizeLimitOf(answer).max_size).toBe(2 * 100 + 64 * 1024);
  });
});

describe('concurrency', () => {
  it('loses, duplicates and reorders nothing with several publishers and consumers on one topic', async () => {
    const { server, accessToken, topicId } = await withTopic();
    const publishers = 4;
    const perPublisher = 60;
    const total = publishers * perPublisher;
    const publisher = async (p: number) => {
      for (let i = 0; i < perPublisher; ) {
        if (i % 20 === 0) {
          const payloads = Array.from({ length: 10 }, (_, k) => ({ order_id: `${p}:${i + k}` }));
          const answer = await call(server, 'publish_messages_batch', {
            token: accessToken,
            params: { topic_id: topicId },
            body: { payloads },
          });
          expect(answer.body.is_partial_error).toBe(false);
          i += 10;
        } else {
          expect(
            (
              await call(server, 'publish_message', {
                token: accessToken,
                params: { topic_id: topicId },
                body: { order_id: `${p}:${i}` },
              })
            ).status,
          ).toBe(201);
          i += 1;
        }
      }
    };
    const consumer = async () => {
      const seen: Array<{ id: string; order: string }> = [];
      let after: string | undefined;
      while (seen.length < total) {
        const body = { batch_size: 7, timeout_secs: 2, ...(after ? { after_message_id: after } : {}) };
        const answer = await call(server, 'consume_messages', {
          token: accessToken,
          params: { topic_id: topicId },
          body,
        });
        expect(answer.status).toBe(200);
        for (const m of answer.body.messages) seen.push({ id: m.message_id, order: String(m.payload.order_id) });
        if (answer.body.messages.length === 0) break;
        after = seen.at(-1)?.id;
      }
      return seen;
    };
    const [results] = await Promise.all([
      Promise.all([consumer(), consumer(), consumer()]),
      Promise.all(Array.from({ length: publishers }, (_, p) => publisher(p))),
    ]);
    for (const seen of results) {
      expect(seen).toHaveLength(total);
      expect(new Set(seen.map((m) => m.order)).size).toBe(total);
      const ids = seen.map((m) => m.id);
      expect([...ids].sort()).toEqual(ids);
      for (let p = 0; p < publishers; p++) {
        const mine = seen.filter((m) => m.order.startsWith(`${p}:`)).map((m) => Number(m.order.split(':')[1]));
        expect(mine).toEqual(Array.from({ length: perPublisher }, (_, i) => i));
      }
    }
    expect(results[1]).toEqual(results[0]);
    expect(results[2]).toEqual(results[0]);
  });
});

/** Sends `pieces` on one connection, 30 ms apart; resolves to the statuses of the first `count` answers. */
async function statuses(url: string, pieces: string[], count: number): Promise<number[]> {
  const socket = createConnection({ host: '127.0.0.1', port: Number(new URL(url).port) });
  let received = '';
  const answered = new Promise<number[]>((resolve, reject) => {
    socket.on('error', reject);
    socket.on('data', (chunk) => {
      received += chunk;
      const found = [...received.matchAll(/HTTP\/1\.1 (\d{3}) /g)].map((m) => Number(m[1]));
      if (found.length >= count) resolve(found.slice(0, count));
    });
  });
  for (const [i, piece] of pieces.entries()) {
    if (i > 0) await new Promise((resolve) => setTimeout(resolve, 30));
    socket.write(piece);
  }
  try {
    return await answered;
  } finally {
    socket.destroy();
  }
}

/** Publishes a message, or a batch of payloads, given as the JSON text sent. */
function rawSenders(server: MockServer, accessToken: string, topicId: number) {
  const params = { topic_id: topicId };
  const headers = { 'content-type': 'application/json' };
  return {
    publish: (rawBody: string) => call(server, 'publish_message', { token: accessToken, params, rawBody, headers }),
    batch: (payloads: string) =>
      call(server, 'publish_messages_batch', {
        token: accessToken,
        params,
        rawBody: `{"payloads":[${payloads}]}`,
        headers,
      }),
  };
}
