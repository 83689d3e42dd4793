// IDs in arrays of a request body, like single IDs, as numbers or as their decimal digits: the
// platform takes both (its own CLI sends `api_collection_ids: ["50"]`), and so does every operation
// whose body holds a list of IDs; each is stored and answered as a number. Over HTTP; call() checks
// every answer against the spec.
import { describe, expect, it } from 'vitest';
import { managementErrorOf, session } from '../support/helpers.js';

const SEED = {
  version: 1,
  resources: {
    folder: [{ id: 10, name: 'Sales', parent_id: null }],
    recipe: [{ id: 20, name: 'Orders', folder_id: 10, code: '{}' }],
    connection: [{ id: 30, name: 'CRM', provider: 'salesforce', application: 'salesforce', folder_id: 10 }],
    tag: [{ handle: 'tag-finance', title: 'Finance', description: null, color: 'green' }],
    api_collection: [{ id: 50, name: 'Orders API', project_id: 1 }],
    project: [{ id: 1, name: 'Sales', folder_id: 10 }],
    lookup_table: [{ id: 60, name: 'Countries', schema: '[{"label":"code"}]' }],
    legacy_role: [{ id: 70, name: 'Reviewer', inheritable: false, folder_ids: [] }],
  },
};

describe('IDs in arrays as numbers or decimal strings', () => {
  it('API clients, API keys and older access profiles: collection and topic IDs as strings, answered as numbers', async () => {
    const { run } = await session({ seed: SEED });
    const client = await run('create_api_client', { body: { name: 'Partner', api_collection_ids: ['50'] } });
    expect(client.body.data.api_collections).toEqual([{ id: 50, name: 'Orders API' }]);
    const key = await run('create_api_key', {
      params: { api_client_id: client.body.data.id },
      body: { name: 'partner', topic_ids: ['1', 2] },
    });
    expect(key.body.data.topic_ids).toEqual([1, 2]);
    const profile = await run('legacy_create_api_access_profile', {
      body: { name: 'Partner token', api_collection_ids: ['50'], auth_type: 'token' },
    });
    expect(profile.body.api_collection_ids).toEqual([50]);
  });

  it('tag assignments, lookup-table batch deletes, developer API clients and legacy roles', async () => {
    const { run } = await session({ seed: SEED });
    const assigned = await run('update_tag_assignments', {
      body: { add_tags: ['tag-finance'], recipe_ids: ['20'], connection_ids: ['30'] },
    });
    expect(assigned.status).toBe(200);
    expect((await run('get_recipe', { params: { id: 20 }, query: { 'includes[]': 'tags' } })).body.tags).toEqual([
      'tag-finance',
    ]);
    const deleted = await run('batch_delete_lookup_tables', { body: { ids: ['60', 61] } });
    expect(deleted.body.data.deleted_ids).toEqual([60]);
    const developer = await run('create_developer_api_client', {
      body: { name: 'CI', api_privilege_group_id: 12, all_folders: false, folder_ids: ['10'] },
    });
    expect(developer.body.result.folder_ids).toEqual([10]);
    const role = await run('legacy_update_role', {
      params: { role_id: 70 },
      body: { all_folders: 'false', folder_ids: ['10'] },
    });
    expect(role.body.folder_ids).toEqual([10]);
  });

  it('refuses an API client of collections that do not exist (422), storing nothing', async () => {
    const { run } = await session({ seed: SEED });
    const refused = await run('create_api_client', { body: { name: 'Partner', api_collection_ids: ['50', '51'] } });
    expect([refused.status, managementErrorOf(refused).message]).toEqual([422, expect.stringMatching(/51/)]);
    expect((await run('list_api_clients')).body.data.map((client) => client.name)).not.toContain('Partner');
  });

  it('refuses an ID that is no decimal number, naming it', async () => {
    const { run } = await session({ seed: SEED });
    for (const sent of ['0x32', '5.0', '-5', ' 50']) {
      const refused = await run('create_api_client', { body: { name: 'Partner', api_collection_ids: [sent] } });
      expect([sent, refused.status]).toEqual([sent, 400]);
      expect(Object.keys(managementErrorOf(refused).errors ?? {})).toEqual(['api_collection_ids.0']);
    }
  });
});
