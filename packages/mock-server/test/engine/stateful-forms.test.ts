// The operations served by the engine's hand-written handlers for forms the generic vocabulary does not
// describe: the older access profiles (the body names the item), collaborator group members (a group
// keeps its members' ids) and member invitations. Over HTTP; call() checks every answer against the spec.
import { describe, expect, it } from 'vitest';
import { managementErrorOf, type Run, session } from '../support/helpers.js';

describe('older API access profiles', () => {
  const SEED = {
    version: 1,
    resources: {
      api_collection: [{ id: 3, name: 'Orders API' }],
      legacy_api_client: [{ id: 7, name: 'Partner' }],
    },
  };

  it('creates (secret shown once), lists by client, updates, enables/disables and refreshes a profile', async () => {
    const { run } = await session({ seed: SEED });
    const created = await run('legacy_create_api_access_profile', {
      body: { name: 'Partner token', api_client_id: 7, api_collection_ids: [3], auth_type: 'token' },
    });
    expect(created.status).toBe(200);
    expect(created.body).toMatchObject({ id: 1, name: 'Partner token', api_client_id: 7, active: true });
    expect(created.body.secret).toMatch(/^[0-9a-f]{32}$/);
    await run('legacy_create_api_access_profile', {
      body: { name: 'Other', api_collection_ids: [3], auth_type: 'oauth2' },
    });

    const listed = await run('legacy_list_api_access_profiles', { query: { api_client_id: 7 } });
    expect(listed.body.map((p) => p?.name)).toEqual(['Partner token']);
    expect(listed.body[0]).not.toHaveProperty('secret');
    expect((await run('legacy_list_api_access_profiles')).body).toHaveLength(2);

    const updated = await run('legacy_update_api_access_profile', { body: { id: 1, name: 'Renamed' } });
    expect(updated.body).toMatchObject({ id: 1, name: 'Renamed', api_collection_ids: [3] });
    expect(updated.body).not.toHaveProperty('secret');

    const disabled = await run('legacy_enable_or_disable_api_access_profiles', { body: { action: 'disable', id: 1 } });
    expect(disabled.body).toEqual({ result: 'success' });
    expect((await run('legacy_list_api_access_profiles')).body.map((p) => p?.active)).toEqual([false, true]);
    await run('legacy_enable_or_disable_api_access_profiles', { body: { action: 'enable', id: 1 } });
    expect((await run('legacy_list_api_access_profiles')).body[0]?.active).toBe(true);

    const refreshed = await run('legacy_refresh_api_access_profile_secret', { params: { id: 1 } });
    expect(refreshed.body.secret).toMatch(/^[0-9a-f]{32}$/);
    expect(refreshed.body.secret).not.toBe(created.body.secret);
    const oauth = await run('legacy_refresh_api_access_profile_secret', { params: { id: 2 } });
    expect(oauth.body.oauth_client_id).toBeTruthy();
    expect(oauth.body.oauth_client_secret).toBeTruthy();
  });

  it('refuses unknown profiles (404), unknown references, and refreshing a profile without a secret (400)', async () => {
    const { run } = await session({ seed: SEED });
    for (const [operationId, options] of [
      ['legacy_update_api_access_profile', { body: { id: 9, name: 'x' } }],
      ['legacy_enable_or_disable_api_access_profiles', { body: { action: 'enable', id: 9 } }],
      ['legacy_refresh_api_access_profile_secret', { params: { id: 9 } }],
    ] as const) {
      expect([operationId, (await run(operationId, options)).status]).toEqual([operationId, 404]);
    }
    const missing = await run('legacy_create_api_access_profile', {
      body: { name: 'x', api_collection_ids: [4], auth_type: 'token' },
    });
    expect(missing.status).toBe(422);
    expect((await run('legacy_list_api_access_profiles')).body).toEqual([]);
    await run('legacy_create_api_access_profile', {
      body: { name: 'JWT', api_collection_ids: [3], auth_type: 'jwt', jwt_method: 'hmac', jwt_secret: 's' },
    });
    const refused = await run('legacy_refresh_api_access_profile_secret', { params: { id: 1 } });
    expect(refused.status).toBe(400);
    expect(managementErrorOf(refused).message).toMatch(/auth_type/);
  });
});

describe('collaborator group members and invitations', () => {
  const invite = (run: Run, name: string, user_group_ids?: string[]) =>
    run('invite_member', {
      body: {
        name,
        email: `${name.toLowerCase()}@example.com`,
        env_roles: [{ environment_type: 'dev', name: 'Analyst' }],
        ...(user_group_ids ? { user_group_ids } : {}),
      },
    });

  it('invites members into groups, lists, adds and removes members, with the group count', async () => {
    const { run } = await session();
    const group = await run('create_user_group', { body: { user_group: { name: 'Ops' } } });
    const groupId = String((group.body as { id?: string; data?: { id: string } }).id ?? '');
    const id = groupId || (await run('list_user_groups')).body.data?.[0]?.id;
    expect(id).toBe('ug-1');

    expect((await invite(run, 'Ada', ['ug-1'])).body).toEqual({ result: 'ok' });
    expect((await invite(run, 'Bob')).body).toEqual({ result: 'ok' });
    const members = await run('list_members');
    expect(JSON.stringify(members.body)).toContain('ada@example.com');
    expect(JSON.stringify(members.body)).not.toContain('$invitation_id');

    const listed = await run('list_user_group_members', { params: { id: 'ug-1' } });
    expect(listed.body.data?.map((m) => m.name)).toEqual(['Ada']);
    expect(listed.body.total).toBe(1);

    expect((await run('add_user_group_members', { params: { id: 'ug-1' }, query: { user_ids: [2, 1] } })).status).toBe(
      204,
    );
    const both = await run('list_user_group_members', { params: { id: 'ug-1' }, query: { 'page[size]': 1 } });
    expect([both.body.data?.map((m) => m.name), both.body.total, both.body.page]).toEqual([
      ['Ada'],
      2,
      { number: 1, size: 1 },
    ]);
    const bob = await run('list_user_group_members', { params: { id: 'ug-1' }, query: { text: 'BOB@' } });
    expect(bob.body.data?.map((m) => m.name)).toEqual(['Bob']);
    const got = await run('get_user_group', { params: { id: 'ug-1' } });
    expect(JSON.stringify(got.body)).toContain('"members_count":2');
    expect(JSON.stringify(got.body)).not.toContain('$members');

    expect((await run('add_user_group_members', { params: { id: 'ug-1' }, query: { user_ids: [9] } })).status).toBe(
      404,
    );
    expect((await run('remove_user_group_members', { params: { id: 'ug-1' } })).status).toBe(400);
    expect(
      (await run('remove_user_group_members', { params: { id: 'ug-1' }, query: { member_invitation_ids: [1] } }))
        .status,
    ).toBe(204);
    const left = await run('list_user_group_members', { params: { id: 'ug-1' } });
    expect(left.body.data?.map((m) => m.name)).toEqual(['Bob']);
    await run('remove_user_group_members', { params: { id: 'ug-1' }, query: { user_ids: [2] } });
    expect((await run('list_user_group_members', { params: { id: 'ug-1' } })).body.total).toBe(0);

    expect((await run('list_user_group_members', { params: { id: 'ug-9' } })).status).toBe(404);
    expect((await invite(run, 'Cy', ['ug-9'])).status).toBe(422);
    expect((await invite(run, 'Ada')).status).toBe(422);
  });
});
