// Account properties, tag assignments, project-grant upserts, derived privileges, eligible reviewers and
// role migrations, served from the engine's state by the handlers of src/engine/custom/ (properties.ts,
// tags.ts, grants.ts, privileges.ts, deployment-reviewers.ts, role-migration.ts). Over HTTP; call() checks
// every answer against the spec.
import { describe, expect, it } from 'vitest';
import { managementErrorOf, session } from '../support/helpers.js';

/** A session on a workspace seeded with these resources. */
const seededWith = (resources: Record<string, unknown[]>) => session({ seed: { version: 1, resources } });

const PROJECTS = {
  folder: [
    { id: 10, name: 'Order to cash' },
    { id: 20, name: 'Hire to retire' },
  ],
  project: [
    { id: 4123, name: 'Order to cash', folder_id: 10 },
    { id: 4124, name: 'Hire to retire', folder_id: 20 },
  ],
};

const priya = { id: 5521, name: 'Priya', email: 'priya@example.com' };
const tomas = { id: 5522, name: 'Tomas', email: 'tomas@example.com' };

describe('account properties', () => {
  it('upserts and lists environment and project properties by prefix; the state keeps them', async () => {
    const { server, run } = await seededWith(PROJECTS);
    const saved = await run('upsert_properties', {
      body: { properties: { 'orders.sync.batch': '50', 'orders.sync.mode': 'full', 'hr.flag': 'on' } },
    });
    expect(saved.body).toEqual({ success: true });
    await run('upsert_properties', { body: { properties: { 'orders.sync.mode': 'delta' } } });
    await run('upsert_properties', { query: { project_id: 4123 }, body: { properties: { 'orders.sync.batch': '5' } } });

    expect((await run('list_properties', { query: { prefix: 'orders.sync.' } })).body).toEqual({
      'orders.sync.batch': '50',
      'orders.sync.mode': 'delta',
    });
    expect((await run('list_properties', { query: { prefix: 'orders.', project_id: 4123 } })).body).toEqual({
      'orders.sync.batch': '5',
    });
    expect((await run('list_properties', { query: { prefix: 'x' } })).body).toEqual({});
    // Hidden from the workspace's and the project's answers, kept in the exported state.
    expect(JSON.stringify((await run('get_workspace_details')).body)).not.toContain('properties');
    const exported = await server.state.export();
    await server.state.reset();
    expect((await run('list_properties', { query: { prefix: 'orders.' } })).body).toEqual({});
    await server.state.load(exported);
    expect((await run('list_properties', { query: { prefix: 'hr.' } })).body).toEqual({ 'hr.flag': 'on' });
  });

  it('refuses an unknown project (400 on list, 422 on upsert), a missing prefix and going past 1,000', async () => {
    const { run } = await seededWith(PROJECTS);
    expect((await run('list_properties', { query: { prefix: 'a', project_id: 9 } })).status).toBe(400);
    const upsert = await run('upsert_properties', { query: { project_id: 9 }, body: { properties: { a: '1' } } });
    expect([upsert.status, managementErrorOf(upsert).message]).toEqual([422, expect.stringMatching(/project 9/)]);
    expect((await run('list_properties')).status).toBe(400);
    const many = Object.fromEntries(Array.from({ length: 1000 }, (_, i) => [`p${i}`, 'v']));
    expect((await run('upsert_properties', { body: { properties: many } })).status).toBe(200);
    expect((await run('upsert_properties', { body: { properties: { p1: 'changed' } } })).status).toBe(200);
    expect((await run('upsert_properties', { body: { properties: { extra: 'v' } } })).status).toBe(422);
    expect((await run('list_properties', { query: { prefix: 'extra' } })).body).toEqual({});
  });
});

describe('tag assignments', () => {
  const SEED = {
    tag: [
      { handle: 'tag-fin', title: 'Finance', color: 'blue' },
      { handle: 'tag-old', title: 'Legacy', color: 'red' },
    ],
    folder: [{ id: 10, name: 'Sales' }],
    recipe: [
      { id: 1, name: 'Orders', code: '{}', folder_id: 10, tags: ['tag-old'] },
      { id: 2, name: 'Invoices', code: '{}', folder_id: 10 },
    ],
    connection: [{ id: 7, name: 'Salesforce', provider: 'salesforce', folder_id: 10 }],
  };

  it('applies and removes tags on recipes and connections; later gets and tag lists show them', async () => {
    const { run } = await seededWith(SEED);
    const answer = await run('update_tag_assignments', {
      body: { add_tags: ['tag-fin'], remove_tags: ['tag-old'], recipe_ids: [1, 2], connection_ids: [7] },
    });
    expect(answer.status).toBe(200);
    expect((await run('get_recipe', { params: { id: 1 } })).body).toMatchObject({ tags: ['tag-fin'], version_no: 1 });
    expect((await run('get_recipe', { params: { id: 2 } })).body.tags).toEqual(['tag-fin']);
    const connections = JSON.stringify((await run('list_connections')).body);
    expect(connections).toContain('"tags":["tag-fin"]');
    const tags = (await run('list_tags')).body as unknown as { data: { tags: Record<string, unknown>[] } };
    expect(tags.data.tags.map((t) => [t.handle, t.assignment_count])).toEqual([
      ['tag-fin', 3],
      ['tag-old', 0],
    ]);
    expect(tags.data.tags[0]?.last_assigned_at).toEqual(expect.any(String));

    await run('update_tag_assignments', { body: { remove_tags: ['tag-fin'], recipe_ids: [2] } });
    expect((await run('get_recipe', { params: { id: 2 } })).body.tags).toEqual([]);
  });

  it('refuses an unknown tag, recipe or connection with 422 and changes nothing', async () => {
    const { run } = await seededWith(SEED);
    for (const body of [
      { add_tags: ['tag-none'], recipe_ids: [1] },
      { remove_tags: ['tag-none'], recipe_ids: [1] },
      { add_tags: ['tag-fin'], recipe_ids: [2, 99] },
      { add_tags: ['tag-fin'], recipe_ids: [2], connection_ids: [99] },
    ]) {
      const refused = await run('update_tag_assignments', { body });
      expect([refused.status, managementErrorOf(refused).message]).toEqual([422, expect.stringMatching(/none|99/)]);
    }
    expect((await run('get_recipe', { params: { id: 2 } })).body.tags).toBeUndefined();
    expect((await run('update_tag_assignments', { body: { add_tags: ['tag-fin'] } })).status).toBe(400);
  });
});

describe('project grants and privileges', () => {
  const SEED = {
    ...PROJECTS,
    member: [
      { ...priya, roles: [{ environment_type: 'dev', role_name: 'Builder', role_type: 'environment' }] },
      { ...tomas, roles: [{ environment_type: 'dev', role_name: 'Ops', role_type: 'privilege_group' }] },
    ],
    user_group: [{ id: 'ug-1', name: 'Finance reviewers', $members: ['5522'] }],
    environment_role: [{ id: 1, name: 'Builder', config: { recipes: { privileges: ['read', 'create'] } } }],
    project_role: [
      { id: 'pr-1', name: 'Viewer', config: { recipes: { privileges: ['read'] } } },
      { id: 'pr-2', name: 'Deployer', config: { deployments: { privileges: 'all' } } },
    ],
    legacy_role: [{ id: 3, name: 'Ops', folder_ids: [20], privileges: { Jobs: ['read'] } }],
  };

  it('upserts grants visible in the project list, updating the role of an assignee that holds one', async () => {
    const { run } = await seededWith(SEED);
    const created = await run('upsert_project_grants', {
      params: { id: 4123 },
      body: {
        project_grants: [
          { assignment_type: 'User', assignment_id: '5521', project_role_id: 'pr-1' },
          { assignment_type: 'UserGroup', assignment_id: 'ug-1', project_role_id: 'pr-2' },
        ],
      },
    });
    expect(created.body.data).toEqual([
      {
        id: 'pg-1',
        project: { id: 4123, name: 'Order to cash', environment: { id: 1, type: 'dev' } },
        project_role: { id: 'pr-1', name: 'Viewer' },
        user: priya,
        user_group: null,
      },
      expect.objectContaining({ id: 'pg-2', user: null, user_group: { id: 'ug-1', name: 'Finance reviewers' } }),
    ]);
    const updated = await run('upsert_project_grants', {
      params: { id: 4123 },
      body: { project_grants: [{ assignment_type: 'User', assignment_id: '5521', project_role_id: 'pr-2' }] },
    });
    expect(updated.body.data?.map((g) => [g.id, g.project_role.id])).toEqual([['pg-1', 'pr-2']]);
    const listed = await run('list_project_grants', { params: { id: 4123 } });
    expect(listed.body.data?.map((g) => [g.id, g.project_role.name])).toEqual([
      ['pg-1', 'Deployer'],
      ['pg-2', 'Deployer'],
    ]);
    expect((await run('list_project_grants', { params: { id: 4124 } })).body.total).toBe(0);
    const role = await run('get_project_role', { params: { id: 'pr-2' } });
    expect(JSON.stringify(role.body)).toContain('"members_count":2');
  });

  it('refuses an unknown project (404) and unknown members, groups or roles (422) before any change', async () => {
    const { run } = await seededWith(SEED);
    const grant = (assignment_type: string, assignment_id: string, project_role_id = 'pr-1') => ({
      assignment_type,
      assignment_id,
      project_role_id,
    });
    expect(
      (await run('upsert_project_grants', { params: { id: 9 }, body: { project_grants: [grant('User', '5521')] } }))
        .status,
    ).toBe(404);
    for (const bad of [grant('User', '9'), grant('UserGroup', 'ug-9'), grant('User', '5521', 'pr-9')]) {
      const refused = await run('upsert_project_grants', {
        params: { id: 4123 },
        body: { project_grants: [grant('User', '5522'), bad] },
      });
      expect(refused.status).toBe(422);
    }
    expect((await run('list_project_grants', { params: { id: 4123 } })).body.total).toBe(0);
  });

  it('lists the grants of a project, member or group that exists, none there yet included; 404 for one that does not', async () => {
    const { run } = await seededWith(SEED);
    const lists = [
      ['list_project_grants', 4124, 9],
      ['list_member_project_grants', 5521, 9],
      ['list_user_group_project_grants', 'ug-1', 'ug-9'],
    ] as const;
    for (const [operation, known, unknown] of lists) {
      const listed = await run(operation, { params: { id: known } });
      expect([listed.status, listed.body.total], operation).toEqual([200, 0]);
      const missing = await run(operation, { params: { id: unknown } });
      expect([missing.status, managementErrorOf(missing).message], operation).toEqual([
        404,
        expect.stringMatching(new RegExp(`^\\w[\\w ]* ${unknown} was not found$`)),
      ]);
    }
  });

  it('derives privileges from the member roles and the grants that reach them, directly or through groups', async () => {
    const { run } = await seededWith(SEED);
    await run('upsert_project_grants', {
      params: { id: 4123 },
      body: {
        project_grants: [
          { assignment_type: 'User', assignment_id: '5521', project_role_id: 'pr-1' },
          { assignment_type: 'UserGroup', assignment_id: 'ug-1', project_role_id: 'pr-2' },
        ],
      },
    });
    expect((await run('get_member_privileges', { params: { id: 5521 } })).body.data).toEqual([
      { environment_type: 'dev', name: 'Builder', privileges: { Recipes: ['read', 'create'] }, folder_ids: [10] },
    ]);
    expect((await run('get_member_privileges', { params: { id: 5522 } })).body.data).toEqual([
      { environment_type: 'dev', name: 'Ops', privileges: { Jobs: ['read'] }, folder_ids: [20] },
    ]);
    expect((await run('get_member_projects_privileges', { params: { id: 5521 } })).body.data).toEqual([
      {
        project_id: 4123,
        project_name: 'Order to cash',
        environment_type: 'dev',
        privileges: { Recipes: ['read'] },
        user_group_ids: [],
      },
    ]);
    expect((await run('get_member_projects_privileges', { params: { id: 5522 } })).body.data).toEqual([
      {
        project_id: 4123,
        project_name: 'Order to cash',
        environment_type: 'dev',
        privileges: { Deployments: ['all'] },
        user_group_ids: ['ug-1'],
      },
      {
        project_id: 4124,
        project_name: 'Hire to retire',
        environment_type: 'dev',
        privileges: { Jobs: ['read'] },
        user_group_ids: [],
      },
    ]);
    expect((await run('get_member_privileges', { params: { id: 9 } })).status).toBe(404);
    expect((await run('get_member_projects_privileges', { params: { id: 9 } })).status).toBe(404);
  });
});

describe('eligible deployment reviewers', () => {
  it('are the workspace members except the deployment authors; 404 for an unknown deployment', async () => {
    const { run } = await seededWith({
      ...PROJECTS,
      member: [priya, tomas, { id: 5523, name: 'Ana', email: 'ana@example.com' }],
      deployment: [{ id: 58, project_id: '4123', project_build_id: 90, environment_type: 'test', authors: [tomas] }],
    });
    const reviewers = await run('list_deployment_eligible_reviewers', { params: { id: 58 } });
    expect(reviewers.body.data.map((m) => m.name)).toEqual(['Priya', 'Ana']);
    await run('delete_member', { params: { id: 5523 } });
    expect((await run('list_deployment_eligible_reviewers', { params: { id: 58 } })).body.data).toEqual([priya]);
    expect((await run('list_deployment_eligible_reviewers', { params: { id: 59 } })).status).toBe(404);
  });
});

describe('role migration', () => {
  const SEED = {
    ...PROJECTS,
    member: [
      {
        ...priya,
        roles: [
          { environment_type: 'dev', role_name: 'Admin', role_type: 'privilege_group' },
          { environment_type: 'prod', role_name: 'Operator', role_type: 'privilege_group' },
        ],
      },
      { ...tomas, roles: [{ environment_type: 'dev', role_name: 'Ops support', role_type: 'privilege_group' }] },
    ],
    legacy_role: [
      { id: 3421, name: 'Ops support', folder_ids: [10], privileges: { Recipes: ['read', 'run'], Team: ['read'] } },
    ],
  };

  it('system roles: a dry run changes nothing; the migration creates the roles, member roles and grants', async () => {
    const { run } = await seededWith(SEED);
    const planned = await run('migrate_system_roles', { body: { dry_run: true } });
    expect(planned.body.data.collaborators).toEqual([
      {
        user_id: 5521,
        email: priya.email,
        name: 'Priya',
        roles: [
          { environment: 'dev', name: 'EnvironmentAdmin' },
          { environment: 'prod', name: 'Member' },
        ],
      },
    ]);
    expect((await run('list_environment_roles')).body.total).toBe(0);

    const done = await run('migrate_system_roles');
    expect(done.body).toEqual(planned.body);
    expect(done.body.data.projects.map((p) => [p.id, p.environment, p.collaborators[0]?.project_role])).toEqual([
      [4123, 'dev', 'ProjectAdmin'],
      [4123, 'prod', 'ProjectOperator'],
      [4124, 'dev', 'ProjectAdmin'],
      [4124, 'prod', 'ProjectOperator'],
    ]);
    const environmentRoles = await run('list_environment_roles');
    expect(environmentRoles.body.data?.map((r) => [r.name, r.type, r.members_count])).toEqual([
      ['EnvironmentAdmin', 'system', 1],
      ['EnvironmentManager', 'system', 0],
      ['Member', 'system', 1],
    ]);
    const projectRoles = await run('list_project_roles');
    expect(projectRoles.body.data?.map((r) => r.name)).toEqual(['ProjectAdmin', 'AdvancedBuilder', 'ProjectOperator']);
    const member = JSON.stringify((await run('get_member', { params: { id: 5521 } })).body);
    expect(member).toContain('"role_name":"EnvironmentAdmin","role_type":"environment"');
    const grants = await run('list_project_grants', { params: { id: 4124 } });
    expect(grants.body.data?.map((g) => [g.project.environment.type, g.project_role.name, g.user?.id])).toEqual([
      ['dev', 'ProjectAdmin', 5521],
      ['prod', 'ProjectOperator', 5521],
    ]);
    const privileges = await run('get_member_privileges', { params: { id: 5521 } });
    expect(privileges.body.data.map((e) => [e.environment_type, e.name, e.folder_ids])).toEqual([
      ['dev', 'EnvironmentAdmin', [10, 20]],
      ['prod', 'Member', [10, 20]],
    ]);

    // Again: the roles are reused, and nobody holds a legacy system role any more.
    const again = await run('migrate_system_roles');
    expect([again.body.data.collaborators, (await run('list_environment_roles')).body.total]).toEqual([[], 3]);
  });

  it('a custom role becomes an environment and a project role of its name; 404 unknown, 422 twice', async () => {
    const { run } = await seededWith(SEED);
    const done = await run('migrate_custom_role', { body: { role_id: 3421 } });
    expect(done.body.data).toMatchObject({
      environment_roles: [
        { name: 'Ops support', config: { recipes: { privileges: ['read', 'run'] }, team: { privileges: ['read'] } } },
      ],
      project_roles: [{ name: 'Ops support', config: { recipes: { privileges: ['read', 'run'] } } }],
      collaborators: [{ user_id: 5522, roles: [{ environment: 'dev', name: 'Ops support' }] }],
      projects: [{ id: 4123, environment: 'dev', collaborators: [{ user_id: 5522, project_role: 'Ops support' }] }],
    });
    const roles = await run('list_environment_roles');
    expect(roles.body.data?.map((r) => [r.name, r.type, r.members_count])).toEqual([['Ops support', 'custom', 1]]);
    const role = await run('get_environment_role', { params: { id: 1 } });
    expect(JSON.stringify(role.body)).toContain('"team":{"privileges":["read"]}');
    expect((await run('list_project_grants', { params: { id: 4123 } })).body.data?.[0]?.user?.id).toBe(5522);
    expect((await run('list_project_grants', { params: { id: 4124 } })).body.total).toBe(0);
    const privileges = await run('get_member_projects_privileges', { params: { id: 5522 } });
    expect(privileges.body.data).toEqual([
      expect.objectContaining({ project_id: 4123, privileges: { Recipes: ['read', 'run'] } }),
    ]);

    expect((await run('migrate_custom_role', { body: { role_id: 3421 } })).status).toBe(422);
    expect((await run('migrate_custom_role', { body: { role_id: 9 } })).status).toBe(404);
  });
});
