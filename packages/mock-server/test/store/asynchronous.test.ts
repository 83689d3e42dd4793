import { describe, expect, it } from 'vitest';
import { MemoryStore, type MessageStore } from '../../src/index.js';
import { consumersWaiting } from '../support/control/emulator-api.js';
import { defined } from '../support/defined.js';
import { call, errorOf, withTopic } from '../support/helpers.js';

/** A MemoryStore whose every answer comes a turn later, through a promise, as a networked engine's would. */
function eventually(store: MemoryStore): MessageStore {
  const later = <T>(value: T) => new Promise<T>((resolve) => setImmediate(() => resolve(value)));
  return {
    addTopic: (topicId, retentionMs) => later(store.addTopic(topicId, retentionMs)),
    setRetention: (topicId, retentionMs) => later(store.setRetention(topicId, retentionMs)),
    removeTopic: (topicId) => later(store.removeTopic(topicId)),
    append: (topicId, payload, utf8) => later(store.append(topicId, payload, utf8)),
    readOldest: (topicId, limit) => later(store.readOldest(topicId, limit)),
    readAfter: (topicId, messageId, limit) => later(store.readAfter(topicId, messageId, limit)),
    readSince: (topicId, timeMs, limit) => later(store.readSince(topicId, timeMs, limit)),
    purge: (topicId) => later(store.purge(topicId)),
  };
}

describe('an asynchronous store', () => {
  it('serves publish, batch publish, consume, long polling and the topic operations', async () => {
    const { server, accessToken, topicId, publish, consume } = await withTopic({
      store: eventually(new MemoryStore()),
    });
    const first = (await publish({ order_id: 'A' })).body.message_id;
    server.faults.failBatchPositions([1]);
    const batch = await call(server, 'publish_messages_batch', {
      token: accessToken,
      params: { topic_id: topicId },
      body: { payloads: [{ order_id: 'B' }, { order_id: 'lost' }, { order_id: 'C' }] },
    });
    expect([batch.status, batch.body.is_partial_error, Object.keys(batch.body.message_ids)]).toEqual([
      201,
      true,
      ['0', '1', '2'],
    ]);
    const all = (await consume()).body.messages;
    expect(all.map((m) => m.payload.order_id)).toEqual(['A', 'B', 'C']);
    expect((await consume({ after_message_id: first })).body.messages).toHaveLength(2);
    expect(errorOf(await consume({ after_message_id: 'zzzzzzzzzzz' })).details.code).toBe('UNKNOWN_MESSAGE_ID');

    const waiting = consume({ after_message_id: defined(all.at(-1)).message_id, timeout_secs: 30 });
    await consumersWaiting(server, topicId);
    await publish({ order_id: 'D' });
    expect((await waiting).body.messages.map((m) => m.payload.order_id)).toEqual(['D']);

    const params = { topic_id: topicId };
    const updated = await call(server, 'update_topic', { token: accessToken, params, body: { retention: 60 } });
    expect(updated.body.retention).toBe(60);
    expect((await call(server, 'purge_topic', { token: accessToken, params })).body).toEqual({ success: true });
    expect((await consume()).body.messages).toEqual([]);
    expect((await call(server, 'delete_topic', { token: accessToken, params })).body).toEqual({ success: true });
    expect(errorOf(await publish({ order_id: 'E' })).details.code).toBe('TOPIC_NOT_FOUND');
  });
});
