import { describe, expect, it } from 'vitest';
import { consumersWaiting, control, emulatorErrorOf } from './support/control/emulator-api.js';
import {
  call,
  createTopic,
  errorOf,
  managementErrorOf,
  oauthErrorOf,
  start,
  token,
  withTopic,
} from './support/helpers.js';

describe('consume offsets', () => {
  it('starts at the oldest message without an offset, and after_message_id is exclusive', async () => {
    const { publish, consume } = await withTopic();
    const ids: string[] = [];
    for (const order_id of ['A', 'B', 'C']) ids.push((await publish({ order_id })).body.message_id);
    expect([...ids].sort()).toEqual(ids);

    const all = await consume();
    expect(all.status).toBe(200);
    expect(all.body.messages.map((m) => m.payload.order_id)).toEqual(['A', 'B', 'C']);
    expect(all.body.messages.map((m) => m.message_id)).toEqual(ids);

    const after = await consume({ after_message_id: ids[0] });
    expect(after.body.messages.map((m) => m.message_id)).toEqual(ids.slice(1));
  });

  it('since_time is inclusive, and a time in the future means now', async () => {
    let now = Date.parse('2026-11-22T09:00:00.000Z');
    const { server, topicId, publish, consume } = await withTopic({ clock: () => now });
    await publish({ order_id: 'A' });
    now += 1000;
    await publish({ order_id: 'B' });
    now += 1000;
    await publish({ order_id: 'C' });

    const since = await consume({ since_time: '2026-11-22T09:00:01.000Z' });
    expect(since.body.messages.map((m) => m.payload.order_id)).toEqual(['B', 'C']);
    expect(since.body.messages[0]?.time).toBe('2026-11-22T09:00:01.000Z');

    now += 1000;
    const future = await consume({ since_time: '2030-01-01T00:00:00Z' });
    expect(future.body).toEqual({ messages: [], has_more: false });
    const waiting = consume({ since_time: '2030-01-01T00:00:00Z', timeout_secs: 30 });
    await consumersWaiting(server, topicId);
    await publish({ order_id: 'D' });
    expect((await waiting).body.messages.map((m) => m.payload.order_id)).toEqual(['D']);
  });

  it('since_time reads leap seconds and hour-only zones as times, not as a replay from the oldest message', async () => {
    let now = Date.parse('2026-12-31T23:59:59.500Z');
    const { publish, consume } = await withTopic({ clock: () => now });
    await publish({ order_id: 'before the leap second' });
    now = Date.parse('2027-01-01T00:00:00.000Z');
    await publish({ order_id: 'after the leap second' });
    now = Date.parse('2027-01-01T00:30:00.000Z');
    await publish({ order_id: 'at 05:30+05' });
    now += 1000;
    const orders = async (since_time: string) =>
      (await consume({ since_time })).body.messages.map((m) => m.payload.order_id);
    expect(await orders('2026-12-31T23:59:60Z')).toEqual(['after the leap second', 'at 05:30+05']);
    expect(await orders('2027-01-01T05:30:00+05')).toEqual(['at 05:30+05']);
    expect(await orders('2027-01-01T05:30:00.0001+05')).toEqual([]);
  });

  it('rejects an unknown after_message_id and sending both offsets', async () => {
    const { publish, consume } = await withTopic();
    const { message_id } = (await publish({ order_id: 'A' })).body;
    for (const unknown of ['zzzzzzzzzzz', 'not-an-id', message_id.replace(/.$/, '9')]) {
      const answer = await consume({ after_message_id: unknown });
      expect(answer.status).toBe(400);
      expect(errorOf(answer).details.code).toBe('UNKNOWN_MESSAGE_ID');
    }
    const both = await consume({ after_message_id: message_id, since_time: '2026-01-01T00:00:00Z' });
    expect(both.status).toBe(400);
    expect(errorOf(both).details.code).toBe('CONFLICTING_OFFSETS');
  });

  it('reduces batch_size to the configured maximum, which is also the default', async () => {
    const { publish, consume } = await withTopic({ limits: { maxBatchSize: 3 } });
    for (let i = 0; i < 5; i++) await publish({ order_id: `O${i}` });
    expect((await consume({ batch_size: 100 })).body.messages).toHaveLength(3);
    expect((await consume()).body.messages).toHaveLength(3);
    expect((await consume({ batch_size: 2 })).body.messages).toHaveLength(2);
  });

  it('has_more is true exactly when more messages follow the batch', async () => {
    const { publish, consume } = await withTopic();
    const ids: string[] = [];
    for (let i = 0; i < 4; i++) ids.push((await publish({ order_id: `O${i}` })).body.message_id);
    expect((await consume({ batch_size: 4 })).body.has_more).toBe(false);
    expect((await consume({ batch_size: 3 })).body.has_more).toBe(true);
    const rest = await consume({ batch_size: 3, after_message_id: ids[2] });
    expect(rest.body).toMatchObject({ has_more: false });
    expect(rest.body.messages.map((m) => m.message_id)).toEqual([ids[3]]);
    expect((await consume({ after_message_id: ids[3] })).body).toEqual({ messages: [], has_more: false });
  });

  it('validates the consume body against the spec', async () => {
    const { consume } = await withTopic();
    const answer = await consume({ timeout_secs: 61, extra: true });
    expect(answer.status).toBe(400);
    expect(errorOf(answer).details.code).toBe('INVALID_REQUEST');
    expect(errorOf(answer).details.errors).toEqual(
      expect.arrayContaining([
        { pointer: '/timeout_secs', message: 'must be <= 60' },
        { pointer: '/extra', message: 'is not allowed' },
      ]),
    );
  });
});

describe('bodies too large', () => {
  it('are 400 INVALID_REQUEST for consume, which declares no 413, and for the token, management and emulator API operations', async () => {
    const { server, accessToken, consume } = await withTopic();
    const padding = 'x'.repeat(70_000);
    const tooLarge = await consume({ after_message_id: padding });
    expect([tooLarge.status, errorOf(tooLarge).details.code]).toEqual([400, 'INVALID_REQUEST']);
    expect(errorOf(tooLarge).message).toMatch(/larger than 65536 bytes/);
    const tokenAnswer = await call(server, 'request_access_token', { body: { grant_type: padding } });
    expect([tokenAnswer.status, oauthErrorOf(tokenAnswer).error]).toEqual([400, 'invalid_request']);
    const topic = await call(server, 'create_topic', { token: accessToken, body: { name: padding, schema: [] } });
    expect([topic.status, managementErrorOf(topic).message]).toEqual([
      400,
      'The request body is larger than 65536 bytes',
    ]);
    const fault = await control(server, 'add_fault', { body: { operation: padding, status: 500 } });
    expect([fault.status, emulatorErrorOf(fault).message]).toEqual([
      400,
      'The request body is larger than 65536 bytes',
    ]);
  });
});

describe('long polling', () => {
  it('answers when a message is published, not at its timeout', async () => {
    const { server, topicId, publish, consume } = await withTopic();
    const waiting = consume({ timeout_secs: 30 }).then((answer) => ({ answer, at: performance.now() }));
    await consumersWaiting(server, topicId);
    const published = await publish({ order_id: 'late' });
    const publishedAt = performance.now();
    const { answer, at } = await waiting;
    expect(answer.body.messages.map((m) => m.message_id)).toEqual([published.body.message_id]);
    // Woken by the publish, long before its timeout (how fast is measured by the bench: about a millisecond).
    expect(at - publishedAt).toBeLessThan(15_000);
  });

  it('keeps waiting through a batch publish that stored nothing', async () => {
    const server = await start();
    const accessToken = await token(server);
    const topicId = await createTopic(server, accessToken);
    const params = { topic_id: topicId };
    const consumed = call(server, 'consume_messages', { token: accessToken, params, body: { timeout_secs: 30 } });
    await consumersWaiting(server, topicId);
    server.faults.failBatchPositions([0, 1]);
    const failed = await call(server, 'publish_messages_batch', {
      token: accessToken,
      params,
      body: { payloads: [{ order_id: 'lost' }, { order_id: 'lost too' }] },
    });
    expect(failed.body.is_partial_error).toBe(true);
    await call(server, 'publish_message', { token: accessToken, params, body: { order_id: 'stored' } });
    expect((await consumed).body.messages.map((m) => m.payload.order_id)).toEqual(['stored']);
  });

  it('answers 200 with an empty batch when timeout_secs passes', async () => {
    const { consume } = await withTopic();
    const began = performance.now();
    const answer = await consume({ timeout_secs: 1 });
    expect(performance.now() - began).toBeGreaterThanOrEqual(950);
    expect(answer.status).toBe(200);
    expect(answer.body).toEqual({ messages: [], has_more: false });
  });

  it('frees the waiter of a client that disconnects', async () => {
    const server = await start();
    const accessToken = await token(server);
    const topicId = await createTopic(server, accessToken);
    const aborted = new AbortController();
    const request = fetch(`${server.url}/api/v1/topics/${topicId}/consume`, {
      method: 'POST',
      headers: { authorization: `Bearer ${accessToken}`, 'content-type': 'application/json' },
      // Longer than consumersWaiting waits: only the disconnection can free it in time.
      body: JSON.stringify({ timeout_secs: 60 }),
      signal: aborted.signal,
    });
    await consumersWaiting(server, topicId);
    aborted.abort();
    await expect(request).rejects.toThrow();
    await consumersWaiting(server, topicId, 0);
  });

  it('answers a waiting consumer 404 when its topic is deleted, and an empty batch when the server closes', async () => {
    const { server, accessToken, topicId, consume } = await withTopic();
    const waiting = consume({ timeout_secs: 30 });
    await consumersWaiting(server, topicId);
    await call(server, 'delete_topic', { token: accessToken, params: { topic_id: topicId } });
    const deleted = await waiting;
    expect([deleted.status, errorOf(deleted).details.code]).toEqual([404, 'TOPIC_NOT_FOUND']);

    const other = await createTopic(server, accessToken);
    const pending = call(server, 'consume_messages', {
      token: accessToken,
      params: { topic_id: other },
      body: { timeout_secs: 30 },
    });
    await consumersWaiting(server, other);
    const began = performance.now();
    await server.close();
    expect((await pending).body).toEqual({ messages: [], has_more: false });
    // Answered as the server closed, long before its timeout.
    expect(performance.now() - began).toBeLessThan(15_000);
  });
});

describe('retention and purge', () => {
  it('does not return messages older than the topic retention', async () => {
    let now = Date.parse('2026-11-22T09:00:00Z');
    const server = await start({ clock: () => now });
    const accessToken = await token(server);
    const topicId = await createTopic(server, accessToken, { retention: 60 });
    const publish = (order_id: string) =>
      call(server, 'publish_message', { token: accessToken, params: { topic_id: topicId }, body: { order_id } });
    const consume = (body = {}) =>
      call(server, 'consume_messages', { token: accessToken, params: { topic_id: topicId }, body });
    const old = (await publish('old')).body.message_id;
    now += 30_000;
    await publish('recent');
    now += 30_000; // `old` is now exactly 60 s old
    expect((await consume()).body.messages.map((m) => m.payload.order_id)).toEqual(['recent']);
    const expired = await consume({ after_message_id: old });
    expect(errorOf(expired).details.code).toBe('UNKNOWN_MESSAGE_ID');
    now += 30_000;
    expect((await consume()).body.messages).toEqual([]);
  });

  it('purge removes every message, and later ids keep increasing', async () => {
    const { server, accessToken, topicId, publish, consume } = await withTopic();
    const first = (await publish({ order_id: 'A' })).body.message_id;
    await publish({ order_id: 'B' });
    const purged = await call(server, 'purge_topic', { token: accessToken, params: { topic_id: topicId } });
    expect(purged.body).toEqual({ success: true });
    expect((await consume()).body.messages).toEqual([]);
    expect(errorOf(await consume({ after_message_id: first })).details.code).toBe('UNKNOWN_MESSAGE_ID');
    const next = (await publish({ order_id: 'C' })).body.message_id;
    expect(next > first).toBe(true);
    expect((await consume()).body.messages.map((m) => m.payload.order_id)).toEqual(['C']);
  });
});
