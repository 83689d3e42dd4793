// The state document: the README's seed, export and load round trips, reset, refusals that change
// nothing, the HTTP endpoints and the CLI's --seed.
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { call, ORDER_SCHEMA, start, token, withTopic } from '../support/helpers.js';

const README = readFileSync(fileURLToPath(new URL('../../README.md', import.meta.url)), 'utf8');
const README_SEED = /```yaml\n# seed\.yaml\n([\s\S]*?)```/.exec(README)?.[1] ?? '';

async function seeded() {
  const server = await start({ seed: parse(README_SEED) });
  const admin = await token(server);
  return { server, admin };
}

describe('the state document', () => {
  it("loads the README's seed: items completed, parents linked, counters kept", async () => {
    const { server, admin } = await seeded();
    const recipe = await call(server, 'get_recipe', { token: admin, params: { id: 1 } });
    expect(recipe.body).toMatchObject({ id: 1, name: 'Orders', folder_id: 10, running: true });
    const lookup = await call(server, 'find_lookup_table_row', {
      token: admin,
      params: { lookup_table_id: 1 },
      query: { 'by[code]': 'DE' },
    });
    expect(lookup.body.data).toEqual({ code: 'DE', country: 'Germany' });
    const created = await call(server, 'create_recipe', {
      token: admin,
      body: { recipe: { name: 'New', code: '{}' } },
    });
    expect(created.body.id).toBe(101);
    expect((await call(server, 'stop_recipe', { token: admin, params: { id: 1 } })).status).toBe(200);
  });

  it('exports what load reads back, and reset empties it', async () => {
    const { server, admin } = await seeded();
    await call(server, 'delete_recipe', { token: admin, params: { id: 1 } });
    const saved = await server.state.export();
    expect(saved).toMatchObject({ format: 'platform-api-emulator-state', version: 1, counters: { recipe: 100 } });
    expect(saved).toMatchObject({ resources: { lookup_table_row: [{ $parent: '1', id: 1 }] } });
    await server.state.reset();
    expect((await call(server, 'list_folders', { token: admin })).body).toEqual([]);
    expect(await server.state.export()).toEqual({
      format: 'platform-api-emulator-state',
      version: 1,
      resources: {},
      counters: {},
    });
    await server.state.load(saved);
    expect(await server.state.export()).toEqual(saved);
    expect(
      (await call(server, 'create_recipe', { token: admin, body: { recipe: { name: 'N', code: '{}' } } })).body.id,
    ).toBe(101);
  });

  it('round-trips topics with their messages, API clients and keys; reset keeps only the bootstrap key', async () => {
    const { server, accessToken: admin, topicId, publish, consume } = await withTopic();
    await publish({ order_id: 'A' });
    await publish({ order_id: 'B', total: 2 });
    const client = await call(server, 'create_api_client', { token: admin, body: { name: 'CI', auth_type: 'token' } });
    const clientId = client.body.data.id;
    const key = await call(server, 'create_api_key', {
      token: admin,
      params: { api_client_id: clientId },
      body: { name: 'ci', scopes: ['event_streams:consume'], topic_ids: [topicId] },
    });
    const { client_id: keyClientId, auth_token: secret } = key.body.data;
    const saved = await server.state.export();
    expect(saved).toMatchObject({
      topics: [{ id: topicId, schema: ORDER_SCHEMA, messages: [{ order_id: 'A' }, { order_id: 'B', total: 2 }] }],
      api_clients: [{ id: clientId, name: 'CI', auth_type: 'token' }],
      api_keys: [{ api_client_id: clientId, name: 'ci', client_id: keyClientId, secret_sha256: expect.any(String) }],
    });
    // Only the secret's digest: an exported document does not authenticate.
    expect(JSON.stringify(saved)).not.toContain(secret);

    await server.state.reset();
    expect(await server.state.export()).toEqual({
      format: 'platform-api-emulator-state',
      version: 1,
      resources: {},
      counters: {},
    });
    expect((await call(server, 'list_topics', { token: admin })).body.count).toBe(0);
    // The bootstrap key and its token still work; the deleted key's static token does not.
    expect((await call(server, 'list_api_clients', { token: admin })).body.data.map((c) => c.id)).toEqual([1]);
    expect((await call(server, 'list_topics', { token: secret })).status).toBe(401);

    await server.state.load(saved);
    expect(await server.state.export()).toEqual(saved);
    const consumed = await consume({});
    expect(consumed.body.messages.map((message) => message.payload)).toEqual([
      { order_id: 'A' },
      { order_id: 'B', total: 2 },
    ]);
    const loadedKeyToken = await token(server, keyClientId, secret);
    const asKey = await call(server, 'consume_messages', {
      token: loadedKeyToken,
      params: { topic_id: topicId },
      body: {},
    });
    expect(asKey.body.messages).toHaveLength(2);
    // New ids continue after the loaded ones.
    expect(
      (await call(server, 'create_topic', { token: admin, body: { name: 'n', schema: ORDER_SCHEMA } })).body.id,
    ).toBe(topicId + 1);
  });

  it('seeds a topic and a key with known credentials; refuses bad topics and keys, changing nothing', async () => {
    const server = await start({
      seed: {
        version: 1,
        topics: [{ name: 'orders', schema: ORDER_SCHEMA, messages: [{ order_id: 'S' }] }],
        api_clients: [{ name: 'CI' }],
        api_keys: [{ api_client_id: 2, name: 'ci', client_id: 'ci-client', secret: 'ci-secret' }],
      },
    });
    const ci = await token(server, 'ci-client', 'ci-secret');
    const consumed = await call(server, 'consume_messages', { token: ci, params: { topic_id: 1 }, body: {} });
    expect(consumed.body.messages.map((message) => message.payload)).toEqual([{ order_id: 'S' }]);
    const before = await server.state.export();
    for (const [document, message] of [
      [
        { version: 1, topics: [{ name: 'o', schema: ORDER_SCHEMA, messages: [{ total: 1 }] }] },
        'topics[0].messages[0]',
      ],
      [
        {
          version: 1,
          topics: [
            { name: 'o', schema: ORDER_SCHEMA },
            { name: 'o', schema: ORDER_SCHEMA },
          ],
        },
        "topics[1]: a topic named 'o' is already in the document",
      ],
      [{ version: 1, topics: [{ name: 'o' }] }, 'topics[0]: '],
      [{ version: 1, api_clients: [{ id: 1, name: 'x' }] }, 'api_clients[0]: id 1 is taken'],
      [{ version: 1, api_keys: [{ api_client_id: 1, name: 'k' }] }, 'api_keys[0]: api_client_id names no API client'],
      [
        {
          version: 1,
          api_clients: [{ name: 'x' }],
          api_keys: [{ api_client_id: 2, name: 'k', client_id: server.clientId }],
        },
        'is taken',
      ],
    ] as const) {
      await expect(server.state.load(document)).rejects.toThrow(message);
    }
    expect(await server.state.export()).toEqual(before);
  });

  it('refuses a document with a message naming the entry, and keeps the state as it was', async () => {
    const { server } = await seeded();
    const before = await server.state.export();
    for (const [document, message] of [
      [{ version: 2 }, 'version must be 1'],
      [{ version: 1, webhooks: [] }, 'Unknown keys webhooks'],
      [{ version: 1, resources: { spaceship: [] } }, 'resources.spaceship: no such resource type'],
      [{ version: 1, resources: { recipe: [{ name: 5 }] } }, 'resources.recipe[0]: /name must be string'],
      [{ version: 1, resources: { lookup_table_row: [{ data: {} }] } }, 'resources.lookup_table_row[0]: $parent'],
      [
        { version: 1, resources: { lookup_table_row: [{ $parent: 9, data: {} }] } },
        'resources.lookup_table_row[0]: $parent names no lookup_table of the document',
      ],
      [{ version: 1, counters: { recipe: -1 } }, 'counters.recipe must be a non-negative integer'],
    ] as const) {
      await expect(server.state.load(document)).rejects.toThrow(message);
    }
    expect(await server.state.export()).toEqual(before);
  });

  it('over HTTP: GET exports JSON or YAML, PUT replaces, POST /_emulator/reset empties; 400 for a bad document', async () => {
    const { server, admin } = await seeded();
    const yaml = await fetch(`${server.url}/_emulator/state?format=yaml`);
    expect(yaml.headers.get('content-type')).toBe('application/yaml');
    const exported = await yaml.text();
    expect(parse(exported)).toEqual(await server.state.export());
    expect((await fetch(`${server.url}/_emulator/reset`, { method: 'POST' })).status).toBe(204);
    expect((await call(server, 'list_recipes', { token: admin })).body.items).toEqual([]);
    expect((await fetch(`${server.url}/_emulator/state`, { method: 'PUT', body: exported })).status).toBe(204);
    expect((await call(server, 'get_recipe', { token: admin, params: { id: 1 } })).status).toBe(200);
    const json = await (await fetch(`${server.url}/_emulator/state`)).json();
    expect(json.resources.recipe[0].name).toBe('Orders');
    const refused = await fetch(`${server.url}/_emulator/state`, { method: 'PUT', body: '{"version":1,"resources":[' });
    expect([refused.status, (await refused.json()).message]).toEqual([
      400,
      expect.stringMatching(/^The state document is neither JSON nor YAML/),
    ]);
    expect((await fetch(`${server.url}/_emulator/reset`)).status).toBe(405);
  });

  it('--seed FILE starts the CLI with the state, and a bad seed stops it with the entry named', async () => {
    const folder = mkdtempSync(join(tmpdir(), 'seed-'));
    const good = join(folder, 'seed.yaml');
    const bad = join(folder, 'bad.json');
    writeFileSync(good, README_SEED);
    writeFileSync(bad, '{"version":1,"resources":{"recipe":[{"name":5}]}}');
    const cli = (args: string[]) => {
      const child = spawn(process.execPath, [
        '--import',
        'tsx',
        fileURLToPath(new URL('../../src/cli.ts', import.meta.url)),
        ...args,
      ]);
      let output = '';
      child.stdout.on('data', (chunk) => {
        output += chunk;
      });
      child.stderr.on('data', (chunk) => {
        output += chunk;
      });
      const exited = new Promise<number | null>((resolve) => child.on('exit', resolve));
      return { child, output: () => output, exited };
    };
    const refused = cli(['--port', '0', '--seed', bad]);
    expect(await refused.exited).toBe(1);
    expect(refused.output()).toContain('resources.recipe[0]: /name must be string');
    const running = cli(['--port', '0', '--seed', good]);
    try {
      await expect.poll(() => running.output(), { timeout: 60_000 }).toContain('Try it:');
      const url = /listening on (http:\/\/\S+)/.exec(running.output())?.[1];
      const state = await (await fetch(`${url}/_emulator/state`)).json();
      expect(state.resources.folder[0]).toMatchObject({ id: 10, name: 'Sales' });
    } finally {
      running.child.kill('SIGTERM');
      await running.exited;
    }
  });
});
