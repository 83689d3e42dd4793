// An emulator with a data dir, restarted on it: everything it held is there again and behaves as before.
import { describe, expect, it } from 'vitest';
import { MemoryStore, type MockServer, type MockServerOptions } from '../src/index.js';
import { defined } from './support/defined.js';
import { call, createTopic, errorOf, start, token } from './support/helpers.js';
import { tempDir } from './support/temp-dirs.js';

const CREDENTIALS = { clientId: 'dev', clientSecret: 'dev-secret' };

/** Closes `server` and starts another on the same data dir. */
async function restart(server: MockServer, options: MockServerOptions): Promise<MockServer> {
  await server.close();
  return start(options);
}

const consume = (server: MockServer, accessToken: string, topicId: number, body: object = {}) =>
  call(server, 'consume_messages', { token: accessToken, params: { topic_id: topicId }, body });

const publish = (server: MockServer, accessToken: string, topicId: number, payload: object) =>
  call(server, 'publish_message', { token: accessToken, params: { topic_id: topicId }, body: payload });

describe('an emulator with a data dir', () => {
  it('has its topics, messages, API clients, keys and tokens again after a restart; ids go on', async () => {
    const options = { dataDir: tempDir(), ...CREDENTIALS };
    const before = await start(options);
    const admin = await token(before);
    const topicId = await createTopic(before, admin, { retention: 3600 });
    await publish(before, admin, topicId, { order_id: 'A' });
    await call(before, 'publish_messages_batch', {
      token: admin,
      params: { topic_id: topicId },
      body: { payloads: [{ order_id: 'B' }, { order_id: 'C' }] },
    });
    const client = (await call(before, 'create_api_client', { token: admin, body: { name: 'ci', auth_type: 'token' } }))
      .body.data;
    const key = (
      await call(before, 'create_api_key', {
        token: admin,
        params: { api_client_id: client.id },
        body: { name: 'publisher', scopes: ['event_streams:consume'], topic_ids: [topicId] },
      })
    ).body.data;
    const keyToken = await token(before, key.client_id, key.auth_token);
    const topics = (await call(before, 'list_topics', { token: admin })).body;
    const messages = (await consume(before, admin, topicId)).body.messages;

    const after = await restart(before, options);
    expect((await call(after, 'list_topics', { token: admin })).body).toEqual(topics);
    expect((await consume(after, admin, topicId)).body.messages).toEqual(messages);
    expect((await consume(after, keyToken, topicId)).body.messages).toHaveLength(3);
    // The key's secret is its static bearer token (a `token` client), and still gets access tokens.
    expect((await consume(after, defined(key.auth_token), topicId)).status).toBe(200);
    await token(after, key.client_id, key.auth_token);
    const keys = (await call(after, 'list_api_keys', { token: admin, params: { api_client_id: client.id } })).body;
    // Listed with its secret masked.
    expect(keys.data).toEqual([{ ...key, auth_token: '********' }]);
    expect(errorOf(await publish(after, keyToken, topicId, { order_id: 'D' })).details.code).toBe('FORBIDDEN');

    const waiting = consume(after, admin, topicId, {
      after_message_id: defined(messages.at(-1)).message_id,
      timeout_secs: 5,
    });
    const next = (await publish(after, admin, topicId, { order_id: 'D' })).body.message_id;
    expect(next > defined(messages.at(-1)).message_id).toBe(true);
    expect((await waiting).body.messages.map((m) => m.message_id)).toEqual([next]);
    expect(await createTopic(after, admin)).toBe(topicId + 1);
    const another = (await call(after, 'create_api_client', { token: admin, body: { name: 'another' } })).body.data;
    expect(another.id).toBe(client.id + 1);
  });

  it('keeps purges, deletions, refreshed secrets and disabled keys', async () => {
    const options = { dataDir: tempDir(), ...CREDENTIALS };
    const before = await start(options);
    const admin = await token(before);
    const [purged, deleted] = [await createTopic(before, admin), await createTopic(before, admin)];
    const old = (await publish(before, admin, purged, { order_id: 'A' })).body.message_id;
    await call(before, 'purge_topic', { token: admin, params: { topic_id: purged } });
    await call(before, 'delete_topic', { token: admin, params: { topic_id: deleted } });
    const client = (await call(before, 'create_api_client', { token: admin, body: { name: 'ci' } })).body.data;
    const createKey = async (name: string) => {
      const params = { api_client_id: client.id };
      return (await call(before, 'create_api_key', { token: admin, params, body: { name } })).body.data;
    };
    const [refreshed, disabled] = [await createKey('refreshed'), await createKey('disabled')];
    const disabledToken = await token(before, disabled.client_id, disabled.auth_token);
    const keyParams = (key: { id: number }) => ({ api_client_id: client.id, api_key_id: key.id });
    await call(before, 'refresh_api_key_secret', { token: admin, params: keyParams(refreshed) });
    await call(before, 'disable_api_key', { token: admin, params: keyParams(disabled) });

    const after = await restart(before, options);
    expect((await consume(after, admin, purged)).body.messages).toEqual([]);
    expect((await publish(after, admin, purged, { order_id: 'B' })).body.message_id > old).toBe(true);
    expect((await call(after, 'get_topic', { token: admin, params: { topic_id: deleted } })).status).toBe(404);
    const tokenOf = (key: { client_id: string; auth_token?: string }) =>
      call(after, 'request_access_token', {
        body: { grant_type: 'client_credentials', client_id: key.client_id, client_secret: key.auth_token },
      });
    expect((await tokenOf(refreshed)).status).toBe(400);
    expect((await tokenOf(disabled)).status).toBe(400);
    expect(errorOf(await consume(after, disabledToken, purged)).details.code).toBe('INVALID_TOKEN');
  });

  it('expires tokens and messages on the injected clock across a restart', async () => {
    let now = Date.parse('2026-11-22T12:00:00Z');
    const options = { dataDir: tempDir(), ...CREDENTIALS, clock: () => now, tokenTtlSeconds: 60 };
    const before = await start(options);
    const admin = await token(before);
    const topicId = await createTopic(before, admin, { retention: 120 });
    const first = (await publish(before, admin, topicId, { order_id: 'A' })).body.message_id;
    now += 50_000;
    await publish(before, admin, topicId, { order_id: 'B' });

    const after = await restart(before, options);
    expect((await consume(after, admin, topicId)).body.messages).toHaveLength(2);
    now += 20_000;
    expect(errorOf(await consume(after, admin, topicId)).details.code).toBe('TOKEN_EXPIRED');
    const fresh = await token(after);
    expect((await consume(after, fresh, topicId)).body.messages).toHaveLength(2);
    now += 50_000; // A is 120 s old: past its topic's retention
    expect((await consume(after, fresh, topicId)).body.messages.map((m) => m.payload.order_id)).toEqual(['B']);
    const gone = await consume(after, fresh, topicId, { after_message_id: first });
    expect(errorOf(gone).details.code).toBe('UNKNOWN_MESSAGE_ID');
  });

  it('keeps its bootstrap key: the secret given, or a new one at each start that revokes the old tokens', async () => {
    const dataDir = tempDir();
    const first = await start({ dataDir });
    const firstToken = await token(first);
    const second = await restart(first, { dataDir });
    expect(second.clientId).toBe(first.clientId);
    expect(second.clientSecret).not.toBe(first.clientSecret);
    expect(errorOf(await consume(second, firstToken, 1)).details.code).toBe('INVALID_TOKEN');
    const admin = await token(second);
    const clients = (await call(second, 'list_api_clients', { token: admin })).body.data;
    expect(clients.map((client) => client.name)).toEqual(['Local emulator']);

    const fixed = await restart(second, { dataDir, clientSecret: 'fixed' });
    const fixedToken = await token(fixed);
    const again = await restart(fixed, { dataDir, clientSecret: 'fixed' });
    expect([again.clientId, again.clientSecret]).toEqual([first.clientId, 'fixed']);
    expect((await call(again, 'list_topics', { token: fixedToken })).status).toBe(200);
  });

  it('keeps the management resources; a seed initialises a new dir only, and a reset is kept', async () => {
    const seed = { version: 1, resources: { folder: [{ id: 10, name: 'Sales' }] } };
    const options = { dataDir: tempDir(), seed, ...CREDENTIALS };
    const before = await start(options);
    const admin = await token(before);
    const topicId = await createTopic(before, admin);
    const created = await call(before, 'create_recipe', {
      token: admin,
      body: { recipe: { name: 'Orders', code: '{}', folder_id: '10' } },
    });
    const recipe = (await call(before, 'get_recipe', { token: admin, params: { id: created.body.id } })).body;

    // Restarted with a seed of another folder: the dir's state is kept, the seed ignored.
    const after = await restart(before, {
      ...options,
      seed: { version: 1, resources: { folder: [{ id: 20, name: 'Ops' }] } },
    });
    expect((await call(after, 'get_recipe', { token: admin, params: { id: recipe.id } })).body).toEqual(recipe);
    const folders = (await call(after, 'list_folders', { token: admin })).body;
    expect(folders.map((folder: { id: number }) => folder.id)).toEqual([10]);
    const next = await call(after, 'create_recipe', {
      token: admin,
      body: { recipe: { name: 'Invoices', code: '{}' } },
    });
    expect(next.body.id).toBe(recipe.id + 1);

    // A reset (management resources, topics, API clients and keys but the bootstrap key) is kept too.
    expect((await call(after, 'list_topics', { token: admin })).body.data.map((t: { id: number }) => t.id)).toEqual([
      topicId,
    ]);
    await after.state.reset();
    const reopened = await restart(after, options);
    expect((await call(reopened, 'get_recipe', { token: admin, params: { id: recipe.id } })).status).toBe(404);
    expect((await call(reopened, 'list_topics', { token: admin })).body.count).toBe(0);
    expect(await createTopic(reopened, admin)).toBe(1);
  });

  it('is refused while another emulator uses the dir, and with a message store of its own', async () => {
    const dataDir = tempDir();
    await start({ dataDir });
    await expect(start({ dataDir })).rejects.toThrow(/in use by another running emulator/);
    await expect(start({ dataDir: tempDir(), store: new MemoryStore() })).rejects.toThrow(
      /one of store, dataDir and redisUrl/,
    );
  });
});
