// The test kit's emulator.workspace(): a workspace per test file on one shared emulator, each handle
// with its own credentials, reset, journal, faults and clock.
import { expect, it } from 'vitest';
import { Emulator, startEmulator } from '../src/testkit/index.js';
import { call, createTopic, start, token } from './support/helpers.js';

it('gives each workspace a handle of its own: credentials, reset, journal, faults and clock', async () => {
  const server = await start();
  const shared = new Emulator({ url: server.url, clientId: server.clientId, clientSecret: server.clientSecret });
  const [mine, theirs] = await Promise.all([
    shared.workspace({ name: 'Mine', environments: ['prod'] }),
    shared.workspace(),
  ]);
  const myToken = await token(server, mine.clientId, mine.clientSecret);
  const theirToken = await token(server, theirs.clientId, theirs.clientSecret);
  const [myTopic, theirTopic] = await Promise.all([createTopic(server, myToken), createTopic(server, theirToken)]);
  expect([myTopic, theirTopic]).toEqual([1, 1]);

  expect((await mine.requests()).map((entry) => entry.operation)).toEqual(['request_access_token', 'create_topic']);
  await mine.expectRequest({ operation: 'create_topic' }, { times: 1 });
  expect(await mine.environment('prod').requests()).toEqual([]);

  await mine.faults.failNext('list_topics', { status: 429, retryAfter: 1 });
  expect((await call(server, 'list_topics', { token: theirToken })).status).toBe(200);
  expect((await call(server, 'list_topics', { token: myToken })).status).toBe(429);

  await mine.clock.set('2031-01-01T00:00:00.000Z', { frozen: true });
  expect((await theirs.clock.now()).frozen).toBe(false);

  await mine.reset();
  expect((await call(server, 'list_topics', { token: myToken })).body.data).toEqual([]);
  expect((await call(server, 'list_topics', { token: theirToken })).body.data).toHaveLength(1);
  expect((await mine.clock.now()).frozen).toBe(false);

  // The emulator's own workspace saw none of it.
  expect(await shared.requests()).toEqual([]);

  await mine.delete();
  expect((await call(server, 'list_topics', { token: myToken })).status).toBe(401);
  expect(() => mine.environment('test')).toThrow(/no environment test/);
});

it("carries the emulator's admin token: its workspaces' handles reach them, a handle without it gets a 401", async () => {
  const { emulator, connection, close } = await startEmulator({ adminToken: 'testkit-admin-token' });
  try {
    expect(connection.adminToken).toBe('testkit-admin-token');
    const ws = await emulator.workspace({ environments: ['prod'] });
    await ws.environment('prod').clock.freeze();
    expect((await ws.environment('prod').clock.now()).frozen).toBe(true);
    await ws.reset();
    const withoutToken = new Emulator({ ...connection, adminToken: undefined });
    await expect(withoutToken.workspace()).rejects.toMatchObject({ name: 'EmulatorApiError', status: 401 });
    await ws.delete();
    await expect(ws.requests()).rejects.toMatchObject({ status: 404 });
  } finally {
    await close();
  }
});
