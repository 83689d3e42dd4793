// The emulator API's views of the state that the web console uses: the pending faults, the topics
// and their messages (listed, published with the schema check, followed live), the management
// resources (types with their create forms, items, creates and deletes through the management
// operations), none of them journaled; and the pages at / and /_emulator/console/.
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { control, emulatorErrorOf } from '../support/control/emulator-api.js';
import { call, start, token, withTopic } from '../support/helpers.js';

/** Reads a Server-Sent Events answer until `done` holds for the text so far. */
async function readEvents(response: Response, done: (text: string) => boolean): Promise<string> {
  const reader = (response.body as ReadableStream<Uint8Array>).getReader();
  const decoder = new TextDecoder();
  let text = '';
  while (!done(text)) {
    const { value, done: ended } = await reader.read();
    if (ended) break;
    text += decoder.decode(value, { stream: true });
  }
  await reader.cancel();
  return text;
}

const payloadsOf = (text: string) =>
  [...text.matchAll(/event: message\nid: [^\n]+\ndata: (.*)\n\n/g)].map(
    ([, data]) => (JSON.parse(data ?? '{}') as { payload: unknown }).payload,
  );

describe('the pending faults', () => {
  it('are listed in the order they are served, with the uses left, until used up or cleared', async () => {
    const { server, publish } = await withTopic();
    const arm = (body: object) => control(server, 'add_fault', { body });
    await arm({ operation: 'publish_message', status: 429, retry_after: 2, times: 2 });
    await arm({ operation: 'consume_messages', status: 500, code: 'TIMEOUT' });
    await arm({ batch_fail_positions: [0, 2], omit: true });
    expect((await control(server, 'list_faults')).body).toEqual({
      faults: [
        { operation: 'publish_message', status: 429, retry_after: 2, times: 2 },
        { operation: 'consume_messages', status: 500, code: 'TIMEOUT', times: 1 },
      ],
      batch_faults: [{ batch_fail_positions: [0, 2], omit: true, times: 1 }],
    });
    expect((await publish({ order_id: 'A-1' })).status).toBe(429);
    expect((await control(server, 'list_faults')).body?.faults[0]).toMatchObject({ times: 1 });
    expect((await publish({ order_id: 'A-1' })).status).toBe(429);
    expect((await control(server, 'list_faults')).body?.faults).toHaveLength(1);
    await control(server, 'clear_faults');
    expect((await control(server, 'list_faults')).body).toEqual({ faults: [], batch_faults: [] });
  });
});

describe('a journal entry', () => {
  it("keeps the answer's headers: its content type and the ones it carried", async () => {
    const { server, publish } = await withTopic();
    await control(server, 'add_fault', { body: { operation: 'publish_message', status: 429, retry_after: 3 } });
    expect((await publish({ order_id: 'H-1' })).status).toBe(429);
    expect((await publish({ order_id: 'H-2' })).status).toBe(201);
    const unknown = await fetch(`${server.url}/api/nowhere`, { method: 'DELETE' });
    expect(unknown.status).toBe(404);
    const { body } = await control(server, 'list_requests', { query: { path: '/api/*' } });
    expect(body?.requests.map((entry) => entry.response.headers)).toEqual([
      { 'content-type': 'application/json' },
      { 'content-type': 'application/json; charset=utf-8', 'retry-after': '3' },
      { 'content-type': 'application/json; charset=utf-8' },
      { 'content-type': 'application/json; charset=utf-8' },
    ]);
  });
});

describe('the topics', () => {
  it('are listed with their schemas; a topic lists its last messages, no token and no journal entry', async () => {
    const { server, topicId, publish } = await withTopic();
    for (const order_id of ['A-1', 'A-2', 'A-3']) await publish({ order_id });
    const { body } = await control(server, 'inspect_topics');
    expect(body?.topics).toEqual([
      expect.objectContaining({
        id: topicId,
        schema: expect.arrayContaining([{ name: 'order_id', type: 'string' }]),
        waiting_consumers: 0,
      }),
    ]);
    const last = await control(server, 'inspect_messages', { params: { topic_id: topicId }, query: { limit: 2 } });
    expect(last.body?.messages.map((m) => m.payload)).toEqual([{ order_id: 'A-2' }, { order_id: 'A-3' }]);
    expect(last.body?.messages[0]).toEqual({
      message_id: expect.any(String),
      time: expect.any(String),
      payload: { order_id: 'A-2' },
    });
    const missing = await control(server, 'inspect_messages', { params: { topic_id: 99 } });
    expect([missing.status, emulatorErrorOf(missing).message]).toEqual([404, 'Topic 99 was not found']);
    const journal = await control(server, 'list_requests', { query: { path: '/_emulator/*' } });
    expect(journal.body?.total).toBe(0);
  });

  it("publishes a message checked against the topic's schema, which consumers get; a mismatch names its field", async () => {
    const { server, topicId, consume } = await withTopic();
    const published = await control(server, 'add_message', {
      params: { topic_id: topicId },
      body: { order_id: 'C-1', total: 9.5 },
    });
    expect(published.status).toBe(201);
    expect((await consume()).body.messages.map((m) => [m.message_id, m.payload])).toEqual([
      [published.body?.message_id, { order_id: 'C-1', total: 9.5 }],
    ]);
    const mismatch = await control(server, 'add_message', {
      params: { topic_id: topicId },
      body: { order_id: 'C-2', customer: { id: 'seven' } },
    });
    expect(mismatch.status).toBe(400);
    expect(emulatorErrorOf(mismatch).errors).toEqual([{ pointer: '/customer/id', message: expect.any(String) }]);
    const notObject = await control(server, 'add_message', { params: { topic_id: topicId }, body: [1] });
    expect(notObject.status).toBe(400);
    // Stored from its parsed value, 1e400 would become null: refused as publish_message refuses it.
    const outOfRange = await control(server, 'add_message', {
      params: { topic_id: topicId },
      rawBody: '{"order_id":"C-3","extra":[1e400]}',
      headers: { 'content-type': 'application/json' },
    });
    expect([outOfRange.status, emulatorErrorOf(outOfRange).errors]).toEqual([
      400,
      [{ pointer: '/extra/0', message: 'is a number past the range of a double' }],
    ]);
    expect((await consume()).body.messages).toHaveLength(1);
    expect((await control(server, 'list_requests', { query: { operation: 'publish_message' } })).body?.total).toBe(0);
  });

  it('streams the retained messages, then each new one as it is stored; after an id, only the later ones', async () => {
    const { server, topicId, publish } = await withTopic();
    const first = await publish({ order_id: 'S-1' });
    await publish({ order_id: 'S-2' });
    const stream = await fetch(`${server.url}/_emulator/topics/${topicId}/messages/stream`);
    expect([stream.status, stream.headers.get('content-type')]).toEqual([200, 'text/event-stream; charset=utf-8']);
    const later = control(server, 'add_message', { params: { topic_id: topicId }, body: { order_id: 'S-3' } });
    const text = await readEvents(stream, (sofar) => payloadsOf(sofar).length >= 3);
    await later;
    expect(payloadsOf(text)).toEqual([{ order_id: 'S-1' }, { order_id: 'S-2' }, { order_id: 'S-3' }]);

    const afterFirst = await fetch(
      `${server.url}/_emulator/topics/${topicId}/messages/stream?after=${first.body.message_id}`,
    );
    const rest = await readEvents(afterFirst, (sofar) => payloadsOf(sofar).length >= 2);
    expect(payloadsOf(rest)).toEqual([{ order_id: 'S-2' }, { order_id: 'S-3' }]);
    // A reconnecting browser names the last id it had.
    const resumed = await fetch(`${server.url}/_emulator/topics/${topicId}/messages/stream`, {
      headers: { 'last-event-id': first.body.message_id },
    });
    expect(payloadsOf(await readEvents(resumed, (sofar) => payloadsOf(sofar).length >= 2))).toHaveLength(2);
  });

  it("ends a topic's stream when the topic is deleted, and answers 404 for one that does not exist", async () => {
    const { server, accessToken, topicId } = await withTopic();
    const stream = await fetch(`${server.url}/_emulator/topics/${topicId}/messages/stream`);
    const ended = readEvents(stream, () => false);
    await call(server, 'delete_topic', { token: accessToken, params: { topic_id: topicId } });
    expect(await ended).toBe(': listening\n\n');
    expect((await fetch(`${server.url}/_emulator/topics/${topicId}/messages/stream`)).status).toBe(404);
  });
});

describe('the management resources', () => {
  it('lists every resource type, with its count and the create form its spec implies', async () => {
    const server = await start();
    const { body } = await control(server, 'list_resource_types');
    const types = body?.types ?? [];
    expect(types.map((type) => type.name)).toEqual([...types.map((type) => type.name)].sort());
    const folder = types.find((type) => type.name === 'folder');
    expect(folder).toMatchObject({ id_field: 'id', parent: null, singleton: false, count: 0, delete: 'delete_folder' });
    expect(folder?.create?.operation).toBe('create_folder');
    expect(folder?.create?.fields.map((field) => [field.name, field.required])).toEqual(
      expect.arrayContaining([
        ['name', true],
        ['parent_id', false],
      ]),
    );
    const subCollection = types.find((type) => type.parent !== null && type.create !== null);
    expect(subCollection, 'a sub-collection that can be created from here').toBeDefined();
  });

  it('creates through the management operation (the API then lists it), and deletes what it deletes', async () => {
    const server = await start();
    const accessToken = await token(server);
    const created = await control(server, 'create_resource', { params: { type: 'folder' }, body: { name: 'Ops' } });
    expect(created.status).toBe(201);
    expect(created.body).toMatchObject({ parent: null, name: 'Ops', value: { name: 'Ops' } });
    const folders = await call(server, 'list_folders', { token: accessToken });
    expect(folders.body).toEqual(
      expect.arrayContaining([expect.objectContaining({ id: Number(created.body?.id), name: 'Ops' })]),
    );
    const child = await control(server, 'create_resource', {
      params: { type: 'folder' },
      body: { name: 'Inner', parent_id: created.body?.id },
    });
    expect(child.status).toBe(201);
    expect(
      (await control(server, 'list_resources', { params: { type: 'folder' } })).body?.items.map((i) => i.name),
    ).toEqual(['Home', 'Ops', 'Inner']);

    const deleted = await control(server, 'delete_resource', {
      params: { type: 'folder', id: String(child.body?.id) },
    });
    expect(deleted.status).toBe(204);
    // The home folder, which the first create made, and Ops.
    expect((await control(server, 'list_resources', { params: { type: 'folder' } })).body?.items).toHaveLength(2);
    expect((await control(server, 'list_requests')).body?.requests.map((r) => r.operation)).toEqual([
      'request_access_token',
      'list_folders',
    ]);
  });

  it("answers the operation's refusals as a 400 naming the field, an unknown type or item as a 404", async () => {
    const server = await start();
    const orphan = await control(server, 'create_resource', {
      params: { type: 'folder' },
      body: { name: 'Orphan', parent_id: '999999' },
    });
    expect(orphan.status).toBe(400);
    expect(emulatorErrorOf(orphan).errors?.[0]?.pointer).toBe('/parent_id');
    const invalid = await control(server, 'create_resource', { params: { type: 'folder' }, body: { name: 7 } });
    expect([invalid.status, emulatorErrorOf(invalid).errors?.[0]?.pointer]).toEqual([400, '/name']);
    const unknown = await control(server, 'list_resources', { params: { type: 'spaceship' } });
    expect([unknown.status, emulatorErrorOf(unknown).message]).toEqual([404, 'No resource type spaceship']);
    const gone = await control(server, 'delete_resource', { params: { type: 'folder', id: '424242' } });
    expect(gone.status).toBe(404);
    const { body } = await control(server, 'list_resource_types');
    const subCollection = body?.types.find((type) => type.parent !== null && type.create !== null);
    const noParent = await control(server, 'create_resource', {
      params: { type: subCollection?.name ?? '' },
      body: {},
    });
    expect([noParent.status, emulatorErrorOf(noParent).message]).toEqual([400, expect.stringMatching(/\?parent=/)]);
  });
});

describe('a refusal of the emulator API', () => {
  it('names an unknown resource type or topic (404) before it reads the body (400)', async () => {
    const { server } = await withTopic();
    const badJson = { rawBody: '{"name":', headers: { 'content-type': 'application/json' } };
    const type = await control(server, 'create_resource', { params: { type: 'spaceship' }, ...badJson });
    expect([type.status, emulatorErrorOf(type).message]).toEqual([404, 'No resource type spaceship']);
    const topic = await control(server, 'add_message', { params: { topic_id: 99 }, ...badJson });
    expect([topic.status, emulatorErrorOf(topic).message]).toEqual([404, 'Topic 99 was not found']);
    const known = await control(server, 'create_resource', { params: { type: 'folder' }, ...badJson });
    expect(known.status).toBe(400);
  });
});

describe('the pages', () => {
  it('answer /favicon.ico, which every page load asks for, with the icon the pages link, and journal none of it', async () => {
    const server = await start();
    const icon = await fetch(`${server.url}/favicon.ico`);
    expect([icon.status, icon.headers.get('content-type')]).toEqual([200, 'image/svg+xml']);
    expect(await icon.text()).toMatch(/^<svg /);
    expect(await (await fetch(`${server.url}/`)).text()).toContain('<link rel="icon" href="/favicon.ico"');
    const console = readFileSync(fileURLToPath(new URL('../../../console/src/index.html', import.meta.url)), 'utf8');
    expect(console).toContain('<link rel="icon" href="/favicon.ico"');
    expect((await control(server, 'list_requests')).body?.total).toBe(0);
    expect((await control(server, 'get_coverage')).body?.requests).toBe(0);
  });

  it('/ links the console and the docs; the console is served from its folder, or a 404 names the folder given when it holds none', async () => {
    const consoleDir = mkdtempSync(join(tmpdir(), 'console-'));
    writeFileSync(join(consoleDir, 'index.html'), '<h1>Console</h1>');
    writeFileSync(join(consoleDir, 'console.js'), 'export {};');
    const server = await start({ consoleDir });
    const home = await fetch(`${server.url}/`);
    expect([home.status, home.headers.get('content-type')]).toEqual([200, 'text/html; charset=utf-8']);
    const html = await home.text();
    expect(html).toContain('href="/_emulator/console/"');
    expect(html).toContain('href="/docs/"');
    const page = await fetch(`${server.url}/_emulator/console/`);
    expect([page.status, await page.text()]).toEqual([200, '<h1>Console</h1>']);
    const script = await fetch(`${server.url}/_emulator/console/console.js`);
    expect([script.status, script.headers.get('content-type')]).toEqual([200, 'text/javascript; charset=utf-8']);
    const redirect = await fetch(`${server.url}/_emulator/console`, { redirect: 'manual' });
    expect([redirect.status, redirect.headers.get('location')]).toEqual([301, '/_emulator/console/']);
    expect((await fetch(`${server.url}/_emulator/console/..%2f..%2fetc%2fpasswd`)).status).toBe(404);
    expect((await control(server, 'list_requests')).body?.total).toBe(0);

    const without = await start({ consoleDir: join(consoleDir, 'missing') });
    const missing = await fetch(`${without.url}/_emulator/console/`);
    expect(missing.status).toBe(404);
    expect(await missing.text()).toBe(
      `The web console is not served: ${join(consoleDir, 'missing')} (--console-dir, consoleDir) holds no index.html. Give the folder of a build and restart.`,
    );
  });
});
