// The connection and connector operations real clients call beyond create, list and update: runtime
// user connections and their OAuth URL, pick lists, custom connector code; and IDs taken as numbers or
// decimal strings. The happy paths against the platform's public description are in
// reference-contract.test.ts; here, what a user relies on around them, refusals included.
import { describe, expect, it } from 'vitest';
import { managementErrorOf, session } from '../support/helpers.js';

const SEED = {
  version: 1,
  resources: {
    folder: [{ id: 7, name: 'Sales', parent_id: null }],
    connector: [
      {
        name: 'salesforce',
        title: 'Salesforce',
        $pick_lists: {
          sobject_fields: [
            ['Record ID', 'Id'],
            ['Parent', 'ParentId', null, true],
          ],
        },
      },
    ],
    connection: [
      { id: 3, name: 'Salesforce production', application: 'salesforce', provider: 'salesforce', folder_id: 7 },
    ],
    custom_connector: [
      { id: 1, name: 'acme', title: 'Acme CRM', $code: "{ title: 'Acme CRM', actions: {} }" },
      { id: 2, name: 'bare', title: 'Bare' },
    ],
  },
};

describe('runtime user connections', () => {
  it('are children of the parent with its connector, listed only on request, with one OAuth URL each', async () => {
    const { run } = await session({ seed: SEED });
    const created = await run('create_runtime_user_connection', {
      body: { parent_id: 3, folder_id: '7', external_id: 'lucy@example.com' },
    });
    expect(created.status).toBe(200);
    const { id, url } = created.body.data;
    expect(url).toMatch(
      new RegExp(
        `^http://127\\.0\\.0\\.1:\\d+/_emulator/oauth/authorize\\?connection_id=${id}&workspace=1&environment=dev&key=[\\w-]{43}$`,
      ),
    );
    const again = await run('get_connection_oauth_url', { params: { connection_id: id } });
    expect(again.body.data.url).toBe(url);

    const hidden = await run('list_connections', { query: { parent_id: 3 } });
    expect(hidden.body).toEqual([]);
    const shown = await run('list_connections', { query: { parent_id: 3, include_runtime_connections: 'true' } });
    expect(shown.body).toMatchObject([
      {
        id,
        application: 'salesforce',
        name: 'Salesforce production (lucy@example.com)',
        external_id: 'lucy@example.com',
        folder_id: 7,
        parent_id: 3,
        authorization_status: null,
      },
    ]);
    expect(JSON.stringify(shown.body)).not.toContain('$runtime_user');
  });

  it('refuse a parent that does not exist (404), a folder that does not exist and ids that are not ids (400)', async () => {
    const { run } = await session({ seed: SEED });
    const body = { parent_id: 3, folder_id: 7, external_id: 'x' };
    const noParent = await run('create_runtime_user_connection', { body: { ...body, parent_id: 99 } });
    expect([noParent.status, managementErrorOf(noParent).message]).toEqual([404, 'Parent connection 99 was not found']);
    expect((await run('create_runtime_user_connection', { body: { ...body, folder_id: 99 } })).status).toBe(400);
    for (const parent_id of ['abc', '0', '07', 0, -1, 1.5]) {
      const refused = await run('create_runtime_user_connection', { body: { ...body, parent_id } });
      expect(refused.status, String(parent_id)).toBe(400);
      expect(managementErrorOf(refused).errors).toHaveProperty('parent_id');
    }
    expect((await run('get_connection_oauth_url', { params: { connection_id: 99 } })).status).toBe(404);
  });
});

describe('pick lists', () => {
  it("answer the seeded values of the connection's connector as [label, value, null, has_children]", async () => {
    const { run } = await session({ seed: SEED });
    const picked = await run('get_connection_picklist', {
      params: { connection_id: 3 },
      body: { pick_list_name: 'sobject_fields', pick_list_params: { sobject_name: 'Account' } },
    });
    expect(picked.body.data).toEqual([
      ['Record ID', 'Id', null, false],
      ['Parent', 'ParentId', null, true],
    ]);
  });

  it('refuse an unknown pick list (400, naming it) and an unknown connection (404)', async () => {
    const { run } = await session({ seed: SEED });
    const unknown = await run('get_connection_picklist', {
      params: { connection_id: 3 },
      body: { pick_list_name: 'objects' },
    });
    expect(unknown.status).toBe(400);
    expect(managementErrorOf(unknown).errors).toEqual({
      pick_list_name: ["'objects' is not a pick list of salesforce"],
    });
    const missing = await run('get_connection_picklist', {
      params: { connection_id: 99 },
      body: { pick_list_name: 'sobject_fields' },
    });
    expect(missing.status).toBe(404);
  });
});

describe('custom connector code', () => {
  it('is the code kept with the connector, a minimal source without one, and 404 for an unknown connector', async () => {
    const { run } = await session({ seed: SEED });
    expect((await run('get_custom_connector_code', { params: { id: 1 } })).body.data.code).toBe(
      "{ title: 'Acme CRM', actions: {} }",
    );
    expect((await run('get_custom_connector_code', { params: { id: 2 } })).body.data.code).toContain('title: "Bare"');
    expect((await run('get_custom_connector_code', { params: { id: 9 } })).status).toBe(404);
    const listed = await run('list_custom_connectors');
    expect(JSON.stringify(listed.body)).not.toContain('$code');
  });
});

describe('ids as numbers or decimal strings', () => {
  it('a folder created under a parent given either way answers the parent as a number', async () => {
    const { run } = await session({ seed: SEED });
    for (const parent_id of [7, '7']) {
      const created = await run('create_folder', { body: { name: `child of ${typeof parent_id}`, parent_id } });
      expect(created.body).toMatchObject({ parent_id: 7 });
    }
    const connection = await run('create_connection', {
      body: { name: 'Jira', provider: 'jira', folder_id: '7', shell_connection: true },
    });
    expect(connection.body).toMatchObject({ application: 'jira', provider: 'jira', folder_id: 7 });
  });
});
