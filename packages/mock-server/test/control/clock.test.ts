// The clock over HTTP, on each storage: set, advanced and frozen, and everything time-based follows
// it (token expiry, message times and since_time, retention, the rate-limit window, created_at and
// updated_at); emulators sharing a Redis share it. Reset and DELETE bring real time back.
import { describe, expect, it } from 'vitest';
import type { MockServerOptions } from '../../src/index.js';
import { type ControlOptions, control, emulatorErrorOf } from '../support/control/emulator-api.js';
import { storages } from '../support/control/storages.js';
import { call, createTopic, errorOf, start, token } from '../support/helpers.js';
import { NO_REDIS, sharedRedis, uniquePrefix } from '../support/redis-server.js';

const T0 = '2030-01-01T00:00:00.000Z';
const at = (seconds: number) => new Date(Date.parse(T0) + seconds * 1000).toISOString();

for (const storage of storages) {
  describe.skipIf(storage.skip !== undefined)(
    `the clock ${storage.name}${storage.skip ? ` (skipped: ${storage.skip})` : ''}`,
    () => {
      async function frozenAtT0(extra: MockServerOptions = {}) {
        const server = await start({ ...(await storage.options()), ...extra });
        const set = await control(server, 'set_clock', { body: { now: T0, frozen: true } });
        expect(set.body).toEqual({ now: T0, frozen: true });
        const advance = async (seconds: number) =>
          (await control(server, 'set_clock', { body: { advance_seconds: seconds } })).body;
        return { server, advance };
      }

      it('is set, advanced and frozen; timestamps, message times and since_time follow it', async () => {
        const { server, advance } = await frozenAtT0({ tokenTtlSeconds: 86_400 });
        const accessToken = await token(server);
        const topicId = await createTopic(server, accessToken, { retention: 3600 });
        const topic = await call(server, 'get_topic', { token: accessToken, params: { topic_id: topicId } });
        expect(topic.body).toMatchObject({ created_at: T0, updated_at: T0 });
        const publish = (order_id: string) =>
          call(server, 'publish_message', { token: accessToken, params: { topic_id: topicId }, body: { order_id } });
        await publish('first');
        expect(await advance(90)).toEqual({ now: at(90), frozen: true });
        await publish('second');
        const consume = (body: object) =>
          call(server, 'consume_messages', { token: accessToken, params: { topic_id: topicId }, body });
        expect((await consume({})).body.messages.map((m) => [m.payload, m.time])).toEqual([
          [{ order_id: 'first' }, T0],
          [{ order_id: 'second' }, at(90)],
        ]);
        expect((await consume({ since_time: at(60) })).body.messages.map((m) => m.payload)).toEqual([
          { order_id: 'second' },
        ]);
        // Retention: an hour after the first message, it is gone.
        await advance(3600 - 90);
        expect((await consume({})).body.messages.map((m) => m.payload)).toEqual([{ order_id: 'second' }]);
        expect((await control(server, 'get_clock')).body).toEqual({ now: at(3600), frozen: true });
      });

      it('expires tokens: an expired token is 401 TOKEN_EXPIRED', async () => {
        const { server, advance } = await frozenAtT0({ tokenTtlSeconds: 600 });
        const accessToken = await token(server);
        const list = () => call(server, 'list_topics', { token: accessToken });
        await advance(599);
        expect((await list()).status).toBe(200);
        await advance(1);
        const publish = await call(server, 'publish_message', {
          token: accessToken,
          params: { topic_id: 1 },
          body: { order_id: 'x' },
        });
        expect([publish.status, errorOf(publish).details.code]).toEqual([401, 'TOKEN_EXPIRED']);
        expect((await list()).status).toBe(401);
      });

      it('moves the rate-limit window', async () => {
        const { server, advance } = await frozenAtT0({ limits: { rateLimitPerMinute: 2 } });
        const accessToken = await token(server);
        const topicId = await createTopic(server, accessToken);
        const publish = () =>
          call(server, 'publish_message', {
            token: accessToken,
            params: { topic_id: topicId },
            body: { order_id: 'x' },
          });
        expect([(await publish()).status, (await publish()).status, (await publish()).status]).toEqual([201, 201, 429]);
        await advance(60);
        expect((await publish()).status).toBe(201);
      });

      it('runs again from where it was set when unfrozen, and follows real time after DELETE', async () => {
        const { server } = await frozenAtT0();
        const running = (await control(server, 'set_clock', { body: { frozen: false } })).body;
        expect(running?.frozen).toBe(false);
        const later = (await control(server, 'get_clock')).body;
        expect(Date.parse(later?.now ?? '')).toBeGreaterThanOrEqual(Date.parse(T0));
        expect(Date.parse(later?.now ?? '')).toBeLessThan(Date.parse(T0) + 60_000);
        expect((await control(server, 'reset_clock')).status).toBe(204);
        const real = (await control(server, 'get_clock')).body;
        expect(Math.abs(Date.parse(real?.now ?? '') - Date.now())).toBeLessThan(60_000);
      });

      it('refuses a negative advance, a bad time and an empty change with a 400', async () => {
        const server = await start(await storage.options());
        for (const body of [{ advance_seconds: -1 }, { now: 'yesterday' }, {}, { frozen: 'yes' }]) {
          const answer = await control(server, 'set_clock', { body });
          expect(answer.status, JSON.stringify(body)).toBe(400);
          expect(emulatorErrorOf(answer).errors?.length).toBeGreaterThan(0);
        }
      });
    },
  );
}

describe('the emulator API reads a JSON body by the rules of the platform APIs', () => {
  it('refuses another charset, a Content-Encoding and bytes that are not UTF-8, changing nothing', async () => {
    const server = await start();
    const refusals: ControlOptions[] = [
      { headers: { 'content-type': 'application/json; charset=latin1' }, rawBody: '{"frozen":true}' },
      { headers: { 'content-type': 'application/json', 'content-encoding': 'gzip' }, rawBody: '{"frozen":true}' },
      {
        headers: { 'content-type': 'application/json' },
        rawBody: Buffer.from('{"now":"2030-01-01T00:00:00\xffZ"}', 'latin1'),
      },
    ];
    for (const options of refusals) {
      const answer = await control(server, 'set_clock', options);
      expect([answer.status, emulatorErrorOf(answer).message]).toEqual([400, expect.stringMatching(/UTF-8|Encoding/)]);
    }
    expect((await control(server, 'get_clock')).body?.frozen).toBe(false);
  });
});

describe.skipIf(NO_REDIS !== undefined)(`the clock shared on Redis${NO_REDIS ? ` (skipped: ${NO_REDIS})` : ''}`, () => {
  it('is one clock for every emulator sharing the Redis: set on one, read and followed on the other', async () => {
    const options = {
      redisUrl: (await sharedRedis()).url,
      redisPrefix: uniquePrefix(),
      clientId: 'c',
      clientSecret: 's',
    };
    const one = await start(options);
    const two = await start(options);
    const accessToken = await token(one);
    await control(one, 'set_clock', { body: { now: T0, frozen: true } });
    expect((await control(two, 'get_clock')).body).toEqual({ now: T0, frozen: true });
    await control(one, 'set_clock', { body: { advance_seconds: 3600 } });
    expect((await control(two, 'get_clock')).body).toEqual({ now: at(3600), frozen: true });
    // A token issued at T0 by the first has expired on the second.
    const expired = await call(two, 'list_topics', { token: accessToken });
    expect(expired.status).toBe(401);
  });
});
