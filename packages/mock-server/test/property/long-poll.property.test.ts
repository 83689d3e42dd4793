// A long poll under generated publishes: a consumer waiting on a topic is answered by the first
// request that stores a message in it, with exactly what that request stored, and by nothing else (a
// refused publish, a batch whose every position failed, a purge, a topic update, a publish to another
// topic): with nothing stored it gets its empty batch only at its timeout. A consumer whose offset was
// purged meanwhile gets 400 UNKNOWN_MESSAGE_ID when it wakes. `call` checks every answer against the spec.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { consumersWaiting } from '../support/control/emulator-api.js';
import { type Answer, call, createTopic, errorOf, start, token } from '../support/helpers.js';
import { propertyRuns, propertyTimeout } from '../support/property/runs.js';

const NOW = Date.parse('2026-11-22T09:00:00Z');
/** Sequences `npm test` runs, and the part of FUZZ_RUNS `npm run fuzz` runs: those that store nothing wait a second. */
const RUNS = 6;
const FUZZ_SHARE = 0.1;

type Step =
  | { kind: 'publish'; order: string }
  | { kind: 'mismatch' }
  | { kind: 'batch'; orders: string[]; failed: number[] }
  | { kind: 'refused batch'; orders: string[] }
  | { kind: 'purge' }
  | { kind: 'update' }
  | { kind: 'other topic'; order: string };

const order = fc.string({ minLength: 1, maxLength: 6 });
const orders = fc.array(order, { minLength: 1, maxLength: 4 });
const step: fc.Arbitrary<Step> = fc.oneof(
  fc.record({ kind: fc.constant('publish' as const), order }),
  fc.record({ kind: fc.constant('mismatch' as const) }),
  // `failed`: the positions an injected batch fault fails (all of them, some, or none).
  orders.chain((list) =>
    fc.record({
      kind: fc.constant('batch' as const),
      orders: fc.constant(list),
      failed: fc.oneof(
        fc.constant(list.map((_, position) => position)),
        fc.subarray(list.map((_, position) => position)),
      ),
    }),
  ),
  fc.record({ kind: fc.constant('refused batch' as const), orders }),
  fc.record({ kind: fc.constant('purge' as const) }),
  fc.record({ kind: fc.constant('update' as const) }),
  fc.record({ kind: fc.constant('other topic' as const), order }),
);

describe('a waiting consumer', () => {
  it(
    'is answered by the first request that stores a message, with what it stored, or at its timeout',
    async () => {
      await fc.assert(
        fc.asyncProperty(fc.boolean(), fc.array(step, { minLength: 1, maxLength: 4 }), async (fromOffset, steps) => {
          const server = await start({ clock: () => NOW });
          const accessToken = await token(server);
          const topicId = await createTopic(server, accessToken);
          const otherTopic = await createTopic(server, accessToken);
          const params = { topic_id: topicId };
          // From an offset: after the one message already in the topic; else from the oldest (none).
          const offset: { after_message_id?: string } = {};
          if (fromOffset) {
            const published = await call(server, 'publish_message', {
              token: accessToken,
              params,
              body: { order_id: 'before' },
            });
            offset.after_message_id = published.body.message_id;
          }
          const began = performance.now();
          let answeredAt = Number.POSITIVE_INFINITY;
          const waiting = call(server, 'consume_messages', {
            token: accessToken,
            params,
            body: { ...offset, timeout_secs: 1 },
          }).finally(() => {
            answeredAt = performance.now();
          });
          await consumersWaiting(server, topicId);

          let purged = false;
          let firstStored: { stored: string[]; purgedBefore: boolean } | undefined;
          for (const current of steps) {
            const stored = await run(current);
            if (current.kind === 'purge') purged = true;
            if (stored.length > 0 && !firstStored) firstStored = { stored, purgedBefore: purged };
          }
          const answer = await waiting;
          const context = JSON.stringify({ fromOffset, steps });
          if (firstStored?.purgedBefore && fromOffset) {
            expect([answer.status, errorOf(answer).details.code], context).toEqual([400, 'UNKNOWN_MESSAGE_ID']);
          } else if (firstStored) {
            const { messages, has_more } = answer.body;
            expect([answer.status, messages.map((m) => m.payload.order_id), has_more], context).toEqual([
              200,
              firstStored.stored,
              false,
            ]);
          } else {
            expect([answer.status, answer.body], context).toEqual([200, { messages: [], has_more: false }]);
            expect(answeredAt - began, `answered before its timeout: ${context}`).toBeGreaterThanOrEqual(950);
          }
          await server.close();

          /** Sends one step; returns the orders it stored in the topic, in order. */
          async function run(current: Step): Promise<string[]> {
            const ok = (answer: Answer, status: number) => expect(answer.status, JSON.stringify(current)).toBe(status);
            switch (current.kind) {
              case 'publish':
                ok(
                  await call(server, 'publish_message', {
                    token: accessToken,
                    params,
                    body: { order_id: current.order },
                  }),
                  201,
                );
                return [current.order];
              case 'mismatch':
                ok(await call(server, 'publish_message', { token: accessToken, params, body: { total: 'x' } }), 400);
                return [];
              case 'batch': {
                if (current.failed.length > 0) server.faults.failBatchPositions(current.failed);
                const payloads = current.orders.map((order_id) => ({ order_id }));
                const answer = await call(server, 'publish_messages_batch', {
                  token: accessToken,
                  params,
                  body: { payloads },
                });
                ok(answer, 201);
                return current.orders.filter((_, position) => !current.failed.includes(position));
              }
              case 'refused batch': {
                const payloads = [...current.orders.map((order_id) => ({ order_id })), { order_id: 7 }];
                const answer = await call(server, 'publish_messages_batch', {
                  token: accessToken,
                  params,
                  body: { payloads },
                });
                ok(answer, 400);
                return [];
              }
              case 'purge':
                ok(await call(server, 'purge_topic', { token: accessToken, params }), 200);
                return [];
              case 'update':
                ok(await call(server, 'update_topic', { token: accessToken, params, body: { retention: 3600 } }), 200);
                return [];
              case 'other topic': {
                const answer = await call(server, 'publish_message', {
                  token: accessToken,
                  params: { topic_id: otherTopic },
                  body: { order_id: current.order },
                });
                ok(answer, 201);
                return [];
              }
            }
          }
        }),
        propertyRuns(RUNS, FUZZ_SHARE),
      );
    },
    propertyTimeout(RUNS, 1500, FUZZ_SHARE),
  );
});
