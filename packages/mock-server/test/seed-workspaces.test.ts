// A seed that declares workspaces (issue 42): made at start, each environment with its state and, when
// the seed fixes them, bootstrap credentials that CI knows ahead; a bad declaration stops the start,
// naming the entry at fault.
import { describe, expect, test } from 'vitest';
import { parseState } from '../src/engine/state-document.js';
import { control } from './support/control/emulator-api.js';
import { call, ORDER_SCHEMA, start, token } from './support/helpers.js';
import { tempDir } from './support/temp-dirs.js';

const SEED = `
format: platform-api-emulator-state
version: 1
topics:
  - { id: 1, name: local-orders, schema: [{ name: order_id, type: string }] }
workspaces:
  - name: Team A
    environments:
      dev:
        client_id: team-a-dev
        client_secret: team-a-dev-secret
        topics:
          - { id: 1, name: team-a-orders, schema: [{ name: order_id, type: string }], messages: [{ order_id: A-1 }] }
        resources:
          folder: [{ name: Team A folder }]
      prod: {}
  - name: Team B
`;

const topicNames = async (server: Awaited<ReturnType<typeof start>>, accessToken: string) =>
  (await call(server, 'list_topics', { token: accessToken })).body.data.map((topic) => topic.name);

describe('a seed declaring workspaces', () => {
  test('makes them at start, in order, each environment with its state and the credentials it fixes', async () => {
    const server = await start({ seed: await parseState(SEED) });
    const listed = await control(server, 'list_workspaces');
    expect(listed.body?.workspaces).toEqual([
      { id: 1, name: 'Local workspace', environments: [{ name: 'dev' }] },
      { id: 2, name: 'Team A', environments: [{ name: 'dev' }, { name: 'prod' }] },
      { id: 3, name: 'Team B', environments: [{ name: 'dev' }] },
    ]);
    const teamA = await token(server, 'team-a-dev', 'team-a-dev-secret');
    expect(await topicNames(server, teamA)).toEqual(['team-a-orders']);
    const folders = await call(server, 'list_folders', { token: teamA });
    expect(folders.body.map((folder) => folder.name)).toEqual(['Team A folder']);
    const consumed = await call(server, 'consume_messages', {
      token: teamA,
      params: { topic_id: 1 },
      body: { timeout_secs: 0 },
    });
    expect(consumed.body.messages.map((message) => message.payload)).toEqual([{ order_id: 'A-1' }]);
    expect(await topicNames(server, await token(server))).toEqual(['local-orders']);
    const prod = await control(server, 'inspect_topics', { query: { workspace: 2, environment: 'prod' } });
    expect(prod.body?.topics).toEqual([]);
  });

  test("a seeded environment's reset empties it and keeps its fixed credentials", async () => {
    const server = await start({ seed: await parseState(SEED) });
    expect((await control(server, 'reset', { query: { workspace: 2 } })).status).toBe(204);
    expect(await topicNames(server, await token(server, 'team-a-dev', 'team-a-dev-secret'))).toEqual([]);
  });

  test('a bad declaration stops the start, naming the entry at fault', async () => {
    const topic = { id: 1, name: 'orders', schema: ORDER_SCHEMA };
    const cases: [unknown, string][] = [
      [{ name: 'A' }, 'workspaces must be a list of workspaces'],
      [[{ name: '' }], 'workspaces[0].name must be a string of 1 to 200 characters'],
      [[{ name: 'A', colour: 'red' }], 'workspaces[0]: unknown keys colour'],
      [[{ name: 'A', environments: { staging: {} } }], 'workspaces[0].environments.staging: no such environment'],
      [
        [{ name: 'A', environments: { dev: { client_id: 'only-id' } } }],
        'workspaces[0].environments.dev: give client_id and client_secret together, or neither',
      ],
      [
        [
          { name: 'A', environments: { dev: { client_id: 'same', client_secret: 's1' } } },
          { name: 'B', environments: { prod: { client_id: 'same', client_secret: 's2' } } },
        ],
        'workspaces: client_id same is given more than once',
      ],
      [
        [{ name: 'A', environments: { dev: { client_id: 'local', client_secret: 's' } } }],
        "workspaces[0].environments.dev.client_id is workspace 1's bootstrap client ID",
      ],
      [
        [{ name: 'A', environments: { test: { topics: [topic, topic] } } }],
        'workspaces[0].environments.test: topics[1]',
      ],
      [
        [{ name: 'A', environments: { dev: { resources: { nope: [] } } } }],
        'workspaces[0].environments.dev: resources.nope',
      ],
    ];
    for (const [workspaces, message] of cases) {
      await expect(start({ clientId: 'local', seed: { version: 1, workspaces } }), message).rejects.toThrow(message);
    }
  });

  test('with a data dir, they are made in a new one only: a restart keeps what their tenants changed', async () => {
    const dataDir = tempDir();
    const seed = await parseState(SEED);
    const first = await start({ dataDir, seed });
    const teamA = await token(first, 'team-a-dev', 'team-a-dev-secret');
    expect((await call(first, 'delete_topic', { token: teamA, params: { topic_id: 1 } })).status).toBe(200);
    await first.close();
    const again = await start({ dataDir, seed });
    expect((await control(again, 'list_workspaces')).body?.workspaces.map((workspace) => workspace.name)).toEqual([
      'Local workspace',
      'Team A',
      'Team B',
    ]);
    expect(await topicNames(again, await token(again, 'team-a-dev', 'team-a-dev-secret'))).toEqual([]);
  });
});
