import { describe, expect, it } from 'vitest';
import { call, errorOf, withTopic } from './support/helpers.js';

describe('fault injection', () => {
  it('makes chosen batch positions fail, with failure entries or no entries, then stops', async () => {
    const { server, accessToken, topicId, consume } = await withTopic();
    const batch = () =>
      call(server, 'publish_messages_batch', {
        token: accessToken,
        params: { topic_id: topicId },
        body: { payloads: ['A', 'B', 'C', 'D'].map((order_id) => ({ order_id })) },
      });
    server.faults.failBatchPositions([1, 3]);
    const failed = await batch();
    expect(failed.status).toBe(201);
    expect(failed.body.is_partial_error).toBe(true);
    expect(Object.keys(failed.body.message_ids)).toEqual(['0', '1', '2', '3']);
    expect(failed.body.message_ids['1']).toEqual({ result: 'failure', error: expect.any(String) });
    expect(failed.body.message_ids['2']?.result).toBe('success');

    server.faults.failBatchPositions([0], { omit: true });
    const omitted = await batch();
    expect(Object.keys(omitted.body.message_ids)).toEqual(['1', '2', '3']);
    expect(omitted.body.is_partial_error).toBe(true);

    expect((await batch()).body.is_partial_error).toBe(false);
    // Only the positions reported as success were stored.
    const stored = (await consume()).body.messages.map((m) => m.payload.order_id);
    expect(stored).toEqual(['A', 'C', 'B', 'C', 'D', 'A', 'B', 'C', 'D']);
  });

  it('injects 500s in the InternalServerErrorResponse shape, 429 with RETRY-AFTER and 401, for the given number of calls', async () => {
    const { server, consume, publish } = await withTopic();
    server.faults.failNext('consume_messages', { status: 500, code: 'TIMEOUT', times: 1 });
    server.faults.failNext('consume_messages', { status: 500 });
    server.faults.failNext('consume_messages', { status: 401, times: 1 });
    server.faults.failNext('publish_message', { status: 429, retryAfter: 7, times: 2 });
    expect(errorOf(await consume()).details.code).toBe('TIMEOUT');
    expect(errorOf(await consume()).details.code).toBe('INTERNAL_SERVER_ERROR');
    const unauthorized = await consume();
    expect([unauthorized.status, errorOf(unauthorized).details.code]).toEqual([401, 'INVALID_TOKEN']);
    expect((await consume()).status).toBe(200);
    for (let i = 0; i < 2; i++) {
      const limited = await publish({ order_id: 'A' });
      expect([limited.status, limited.headers.get('retry-after')]).toEqual([429, '7']);
    }
    expect((await publish({ order_id: 'A' })).status).toBe(201);
  });

  it('still takes the earlier spelling, times as a third argument', async () => {
    const { server, consume } = await withTopic();
    server.faults.failNext('consume_messages', { status: 500 }, { times: 2 });
    expect(server.faults.pending().operations).toEqual([
      { operationId: 'consume_messages', fault: { status: 500 }, times: 2 },
    ]);
    expect([(await consume()).status, (await consume()).status, (await consume()).status]).toEqual([500, 500, 200]);
  });

  it('refuses a fault the operation cannot answer, and clears faults', async () => {
    const { server, consume } = await withTopic();
    expect(() => server.faults.failNext('consume_messages', { status: 413 })).toThrow(/declares no 413/);
    expect(() => server.faults.failNext('consume_messages', { status: 500, code: 'OOPS' })).toThrow(/TIMEOUT/);
    expect(() => server.faults.failNext('no_such_operation', { status: 500 })).toThrow(/Unknown operation/);
    // The seconds become a RETRY-AFTER header: text in them would break the answer.
    expect(() => server.faults.failNext('publish_message', { status: 429, retryAfter: '1\r\nx: y' as never })).toThrow(
      /whole number of seconds/,
    );
    expect(() => server.faults.failNext('publish_message', { status: 429, retryAfter: 1.5 })).toThrow(
      /whole number of seconds/,
    );
    expect(() => server.faults.failNext('consume_messages', { status: 500, times: 0 })).toThrow(/positive integer/);
    server.faults.failNext('consume_messages', { status: 500, times: 5 });
    server.faults.clear();
    expect((await consume()).status).toBe(200);
  });

  it('is available over HTTP for an emulator started from the command line', async () => {
    const { server, consume } = await withTopic();
    const post = (body: unknown) =>
      fetch(`${server.url}/_emulator/faults`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify(body),
      });
    expect((await post({ operation: 'consume_messages', status: 500, code: 'TIMEOUT', times: 1 })).status).toBe(204);
    expect(errorOf(await consume()).details.code).toBe('TIMEOUT');
    expect((await post({ batch_fail_positions: [1, 3], omit: false, times: 1 })).status).toBe(204);
    const bad = await post({ operation: 'consume_messages', status: 418 });
    expect(bad.status).toBe(400);
    expect((await bad.json()).message).toMatch(/declares no 418/);
    const badSeconds = await post({ operation: 'publish_message', status: 429, retry_after: '1\r\nx: y' });
    expect(badSeconds.status).toBe(400);
    expect(await badSeconds.json()).toMatchObject({
      message: expect.stringMatching(/retry_after must be integer/),
      errors: [{ pointer: '/retry_after', message: 'must be integer' }],
    });
    expect((await post({ operation: 'consume_messages', status: 500, times: 3 })).status).toBe(204);
    expect((await fetch(`${server.url}/_emulator/faults`, { method: 'DELETE' })).status).toBe(204);
    expect((await consume()).status).toBe(200);
  });
});
