// The resource engine end to end over HTTP, family by family. call() checks every answer against the
// spec's schema for its operation and status.
import { describe, expect, it } from 'vitest';
import {
  type Answer,
  managementErrorOf,
  operation,
  type Run,
  type SuccessBody,
  session,
  token,
} from '../support/helpers.js';

const FOLDER_SEED = { version: 1, resources: { folder: [{ id: 10, name: 'Sales' }] } };

describe('recipes', () => {
  it('creates, gets, lists, updates and deletes a recipe; a later get, update or delete is a 404', async () => {
    const { run } = await session({ seed: FOLDER_SEED });
    const created = await run('create_recipe', {
      body: { recipe: { name: 'Orders', code: '{"keyword":"trigger"}', config: '[]', folder_id: '10' } },
    });
    expect(created.body).toEqual({ success: true, id: 1 });
    const got = await run('get_recipe', { params: { id: 1 } });
    expect(got.body).toMatchObject({ id: 1, name: 'Orders', folder_id: 10, running: false, version_no: 1, config: [] });
    expect(got.body.created_at).toBe(got.body.updated_at);
    await run('create_recipe', { body: { recipe: { name: 'Invoices', code: '{}' } } });
    const listed = await run('list_recipes', { query: { per_page: 1 } });
    expect(listed.body.items.map((r: { name: string }) => r.name)).toEqual(['Invoices']);
    const second = await run('list_recipes', { query: { per_page: 1, page: 2 } });
    expect(second.body.items.map((r: { name: string }) => r.name)).toEqual(['Orders']);
    expect((await run('list_recipes', { query: { folder_id: 10 } })).body.items).toHaveLength(1);

    expect((await run('update_recipe', { params: { id: 1 }, body: { recipe: { name: 'Orders v2' } } })).body).toEqual({
      success: true,
    });
    const updated = await run('get_recipe', { params: { id: 1 } });
    expect(updated.body).toMatchObject({ name: 'Orders v2', code: '{"keyword":"trigger"}', version_no: 2 });
    expect(updated.body.created_at).toBe(got.body.created_at);

    expect((await run('delete_recipe', { params: { id: 1 } })).body).toEqual({ success: true });
    for (const [operationId, body] of [
      ['get_recipe', undefined],
      ['update_recipe', { recipe: { name: 'x' } }],
      ['delete_recipe', undefined],
      ['start_recipe', undefined],
    ] as const) {
      const gone = await run(operationId, { params: { id: 1 }, body });
      expect([operationId, gone.status, managementErrorOf(gone).message]).toEqual([
        operationId,
        404,
        'recipe 1 was not found',
      ]);
    }
    expect((await run('list_recipes')).body.items).toHaveLength(1);
  });

  it('moves running with start and stop; a running recipe refuses update and a second start with 400', async () => {
    const { run } = await session();
    await run('create_recipe', { body: { recipe: { name: 'Orders', code: '{}' } } });
    expect((await run('start_recipe', { params: { id: 1 } })).body.success).toBe(true);
    expect((await run('get_recipe', { params: { id: 1 } })).body.running).toBe(true);
    const again = await run('start_recipe', { params: { id: 1 } });
    expect([again.status, managementErrorOf(again).errors]).toEqual([400, { running: ['is true'] }]);
    const edit = await run('update_recipe', { params: { id: 1 }, body: { recipe: { name: 'x' } } });
    expect(edit.status).toBe(400);
    expect((await run('list_recipes', { query: { running: 'true' } })).body.items).toHaveLength(1);
    await run('stop_recipe', { params: { id: 1 } });
    expect((await run('stop_recipe', { params: { id: 1 } })).status).toBe(400);
    expect((await run('list_recipes', { query: { running: 'true' } })).body.items).toHaveLength(0);
  });

  it('keeps a version per create and change, with its own comment', async () => {
    const { run } = await session();
    await run('create_recipe', { body: { recipe: { name: 'Orders', code: '{}' } } });
    await run('update_recipe', { params: { id: 1 }, body: { recipe: { code: '{"a":1}' } } });
    const versions = await run('list_recipe_versions', { params: { recipe_id: 1 } });
    expect(versions.body.data.map((v: { version_no: number }) => v.version_no)).toEqual([1, 2]);
    const latest = versions.body.data[1];
    if (!latest) throw new Error('no second version');
    const commented = await run('update_recipe_version_comment', {
      params: { recipe_id: 1, id: latest.id },
      body: { comment: 'Adds the field' },
    });
    expect(commented.body).toMatchObject({ id: latest.id, comment: 'Adds the field' });
    expect((await run('get_recipe_version', { params: { recipe_id: 1, id: latest.id } })).body.comment).toBe(
      'Adds the field',
    );
    expect((await run('get_recipe_version', { params: { recipe_id: 99, id: latest.id } })).status).toBe(404);
    await run('delete_recipe', { params: { id: 1 } });
    expect((await run('list_recipe_versions', { params: { recipe_id: 1 } })).status).toBe(404);
  });

  it('refuses a folder that does not exist, and stores nothing', async () => {
    const { run } = await session();
    const refused = await run('create_recipe', { body: { recipe: { name: 'Orders', code: '{}', folder_id: '7' } } });
    expect([refused.status, managementErrorOf(refused).errors]).toEqual([400, { folder_id: ['no folder 7'] }]);
    expect((await run('list_recipes')).body.items).toEqual([]);
  });

  it('answers the spec body for malformed JSON and a body that breaks the schema', async () => {
    const { run } = await session();
    const malformed = await run('create_recipe', {
      rawBody: '{"recipe":',
      headers: { 'content-type': 'application/json' },
    });
    expect([malformed.status, managementErrorOf(malformed).errors]).toEqual([400, { body: ['is not valid JSON'] }]);
    const invalid = await run('create_recipe', { body: { recipe: { name: '' } } });
    expect(invalid.status).toBe(400);
    expect(Object.keys(managementErrorOf(invalid).errors ?? {}).sort()).toEqual(['recipe.code', 'recipe.name']);
    // A flat body's errors are the flat form's, a wrapped one's the wrapped form's; neither form: both.
    const flat = await run('create_recipe', { body: { name: '', code: '{}' } });
    expect([flat.status, Object.keys(managementErrorOf(flat).errors ?? {})]).toEqual([400, ['name']]);
    const neither = await run('create_recipe', { body: { description: 'no code' } });
    expect(Object.keys(managementErrorOf(neither).errors ?? {}).sort()).toEqual(['code', 'recipe']);
    const badId = await run('get_recipe', { params: { id: 'abc' } });
    expect([badId.status, Object.keys(managementErrorOf(badId).errors ?? {})]).toEqual([400, ['id']]);
  });
});

describe('folders', () => {
  it('lists by parent and refuses to delete a folder that is not empty, unless forced', async () => {
    const { run } = await session();
    const parent = await run('create_folder', { body: { name: 'Sales' } });
    const home = (await run('get_workspace_details')).body.root_folder_id;
    expect(parent.body).toMatchObject({ name: 'Sales', parent_id: home, is_project: true });
    const { id } = parent.body;
    const child = await run('create_folder', { body: { name: 'EMEA', parent_id: String(id) } });
    await run('create_recipe', { body: { recipe: { name: 'Orders', code: '{}', folder_id: String(child.body.id) } } });
    expect((await run('list_folders', { query: { parent_id: id } })).body.map((f: { id: number }) => f.id)).toEqual([
      child.body.id,
    ]);
    const refused = await run('delete_folder', { params: { folder_id: id } });
    expect([refused.status, managementErrorOf(refused).message]).toEqual([
      422,
      `folder ${id} still holds 1 folder(s); send force=true to delete them too`,
    ]);
    expect((await run('delete_folder', { params: { folder_id: id }, query: { force: 'true' } })).status).toBe(200);
    expect((await run('list_folders', { query: { parent_id: id } })).body).toEqual([]);
    expect((await run('list_projects')).body).toEqual([]);
    expect((await run('list_recipes')).body).toMatchObject({ items: [] });
  });
});

async function countriesTable(run: Run) {
  const table = await run('create_data_table', {
    body: {
      name: 'Countries',
      folder_id: 10,
      schema: [
        { name: 'code', type: 'string', optional: false },
        { name: 'population', type: 'integer', optional: true },
        { name: 'eu', type: 'boolean', optional: true, default_value: false },
      ],
    },
  });
  expect(table.status).toBe(200);
  return table.body.data;
}

describe('data tables and their records', () => {
  it('creates a table whose columns get their ids, and records keyed by name or $field_id', async () => {
    const { run } = await session({ seed: FOLDER_SEED });
    const table = await countriesTable(run);
    expect(table.schema[0]).toMatchObject({ name: 'code', multivalue: false, hint: null, metadata: {} });
    const [code, population, eu] = table.schema.map((c) => c.field_id);
    expect(code).toMatch(/^[0-9a-f-]{36}$/);
    const params = { data_table_id: table.id };
    const de = await run('create_data_table_record', { params, body: { code: 'DE', [`$${population}`]: 84 } });
    expect(de.body.data.document).toEqual([
      { field_id: code, value: 'DE' },
      { field_id: population, value: 84 },
      { field_id: eu, value: false },
    ]);
    const wrong = await run('create_data_table_record', { params, body: { code: 'FR', population: 'many', moon: 1 } });
    expect([wrong.status, managementErrorOf(wrong).errors]).toEqual([
      400,
      { population: ['must be a integer'], moon: ['is not a column of the table'] },
    ]);
    const missing = await run('create_data_table_record', { params, body: { population: 1 } });
    expect(managementErrorOf(missing).errors).toEqual({ code: ['is required'] });
    const recordParams = { ...params, record_id: de.body.data.record_id };
    const updated = await run('update_data_table_record', { params: recordParams, body: { eu: true } });
    expect(updated.body.data.document).toEqual([
      { field_id: code, value: 'DE' },
      { field_id: population, value: 84 },
      { field_id: eu, value: true },
    ]);
    expect((await run('delete_data_table_record', { params: recordParams })).body).toEqual({ success: true });
    expect((await run('delete_data_table_record', { params: recordParams })).status).toBe(404);
    expect(
      (await run('create_data_table_record', { params: { data_table_id: crypto.randomUUID() }, body: { code: 'X' } }))
        .status,
    ).toBe(404);
  });

  it('queries records with where, order, select, limit and continuation tokens', async () => {
    const { run } = await session({ seed: FOLDER_SEED });
    const table = await countriesTable(run);
    const params = { data_table_id: table.id };
    for (const [code, population, eu] of [
      ['DE', 84, true],
      ['fr', 68, true],
      ['NO', 5, false],
      ['CH', 9, false],
    ] as const) {
      await run('create_data_table_record', { params, body: { code, population, eu } });
    }
    const codes = (answer: Answer<SuccessBody<'query_data_table_records'>>) =>
      answer.body.data.map((r) => r.document[0]?.value);
    const query = (body: object) => run('query_data_table_records', { params, body });
    expect(codes(await query({ where: { eu: { $eq: true } }, order: 'code' }))).toEqual(['DE', 'fr']);
    expect(codes(await query({ where: { code: { $eq: { value: 'FR', case_sensitive: false } } } }))).toEqual(['fr']);
    expect(codes(await query({ where: { $or: [{ population: { $gte: 68 } }, { code: { $in: ['CH'] } }] } }))).toEqual([
      'DE',
      'fr',
      'CH',
    ]);
    expect(codes(await query({ where: { population: { $lt: 10 }, code: { $starts_with: 'N' } } }))).toEqual(['NO']);
    expect(codes(await query({ order: { by: 'population', order: 'desc' } }))).toEqual(['DE', 'fr', 'CH', 'NO']);
    const first = await query({ order: 'population', limit: 3 });
    expect(codes(first)).toEqual(['NO', 'CH', 'fr']);
    const rest = await query({ order: 'population', limit: 3, continuation_token: first.body.continuation_token });
    expect([codes(rest), rest.body.continuation_token]).toEqual([['DE'], null]);
    const selected = await query({ select: ['population'], where: { code: { $eq: 'DE' } } });
    expect(selected.body.data[0]?.document).toEqual([{ field_id: table.schema[1]?.field_id, value: 84 }]);
    const unknown = await query({ where: { moon: { $eq: 1 } } });
    expect([unknown.status, managementErrorOf(unknown).errors]).toEqual([
      400,
      { moon: ['is not a field of the table'] },
    ]);
    expect((await query({ continuation_token: 'nope' })).status).toBe(400);

    expect((await run('truncate_data_table', { params })).body).toEqual({ success: true });
    expect((await query({})).body.data).toEqual([]);
    await run('create_data_table_record', { params, body: { code: 'DE' } });
    await run('delete_data_table', { params });
    expect((await query({})).status).toBe(404);
    expect((await run('list_data_tables')).body.data).toEqual([]);
  });

  it('refuses a table in a folder that does not exist', async () => {
    const { run } = await session();
    const refused = await run('create_data_table', {
      body: { name: 'T', folder_id: 3, schema: [{ name: 'a', type: 'string', optional: true }] },
    });
    expect([refused.status, managementErrorOf(refused).errors]).toEqual([400, { folder_id: ['no folder 3'] }]);
  });
});

describe('lookup tables and their rows', () => {
  async function countries(run: Run) {
    await run('create_folder', { body: { name: 'Geography' } }); // the project the table goes to
    const table = await run('create_lookup_table', {
      body: { lookup_table: { name: 'Countries', schema: [{ label: 'code' }, { label: 'country' }] } },
    });
    const params = { lookup_table_id: table.body.id };
    for (const [code, country] of [
      ['DE', 'Germany'],
      ['FR', 'France'],
      ['AT', 'Germany'],
    ])
      await run('create_lookup_table_row', { params, body: { data: { code, country } } });
    return params;
  }

  it('looks a row up with by[code]=DE, lists rows by column values, and 404s when none matches', async () => {
    const { server, run } = await session();
    const params = await countries(run);
    const lookup = await fetch(`${server.url}/api/lookup_tables/${params.lookup_table_id}/lookup?by[code]=DE`, {
      headers: { authorization: `Bearer ${await token(server)}` },
    });
    expect(lookup.status).toBe(200);
    expect((await lookup.json()).data).toEqual({ code: 'DE', country: 'Germany' });
    const byQuery = (query: string) => run('find_lookup_table_row', { params, query: { [`by[${query}]`]: 'Germany' } });
    expect((await byQuery('country')).body.id).toBe(1);
    expect((await byQuery('code')).status).toBe(404);
    const rows = await run('list_lookup_table_rows', { params, query: { 'by[country]': 'Germany' } });
    expect(rows.body.map((r) => r.data.code)).toEqual(['DE', 'AT']);
    expect((await run('list_lookup_table_rows', { params, query: { per_page: 2, page: 2 } })).body).toHaveLength(1);
    const missingBy = await run('find_lookup_table_row', { params });
    expect([missingBy.status, managementErrorOf(missingBy).errors]).toEqual([400, { by: ['is required'] }]);
  });

  it('states that a lookup needs a pair (minProperties 1), and answers a query without one its 400', async () => {
    // A request generator that reads the spec must not send `by={}`: serialized, it is no pair at all.
    const by = operation('find_lookup_table_row').parameters.find((parameter) => parameter.name === 'by');
    expect(by?.schema).toMatchObject({ type: 'object', minProperties: 1 });
    const { server, run } = await session();
    const params = await countries(run);
    const headers = { authorization: `Bearer ${await token(server)}` };
    for (const query of ['', '?by=DE', '?code=DE', '?by%5B=DE']) {
      const url = `${server.url}/api/lookup_tables/${params.lookup_table_id}/lookup${query}`;
      const answer = await fetch(url, { headers });
      expect([query, answer.status, (await answer.json()).errors]).toEqual([query, 400, { by: ['is required'] }]);
    }
  });

  it('updates only the columns sent, refuses unknown labels, and deletes rows with their table', async () => {
    const { run } = await session();
    const params = await countries(run);
    const row = { ...params, row_id: 2 };
    const updated = await run('update_lookup_table_row', { params: row, body: { data: { country: 'République' } } });
    expect(updated.body.data).toEqual({ code: 'FR', country: 'République' });
    const unknown = await run('create_lookup_table_row', { params, body: { data: { capital: 'Paris' } } });
    expect([unknown.status, managementErrorOf(unknown).errors]).toEqual([
      400,
      { capital: ['is not a column of the table'] },
    ]);
    expect((await run('delete_lookup_table_row', { params: row })).body).toEqual({ success: true });
    expect((await run('get_lookup_table_row', { params: row })).status).toBe(404);
    const deleted = await run('batch_delete_lookup_tables', { body: { ids: [params.lookup_table_id, 99] } });
    expect(deleted.body.data).toEqual({
      deleted_ids: [params.lookup_table_id],
      failed: [{ id: 99, message: 'lookup table 99 was not found' }],
    });
    expect((await run('list_lookup_table_rows', { params })).status).toBe(404);
    expect((await run('list_lookup_tables')).body).toEqual([]);
  });
});

describe('deployments', () => {
  it('walks the review flow of x-states; a move the flow does not allow is a 422', async () => {
    const { run } = await session({ seed: { version: 1, resources: { project: [{ id: 4123, name: 'Orders' }] } } });
    const deployment = await run('deploy_project', { params: { id: '4123' }, query: { environment_type: 'prod' } });
    expect(deployment.body).toMatchObject({ id: 1, project_id: '4123', environment_type: 'prod', state: 'pending' });
    const params = { id: 1 };
    const early = await run('approve_deployment', { params, body: {} });
    expect([early.status, managementErrorOf(early).errors]).toEqual([422, { state: ['is "pending"'] }]);
    const states = [];
    for (const operationId of [
      'submit_deployment_for_review',
      'reject_deployment',
      'reopen_deployment',
      'approve_deployment',
      'deploy_deployment',
    ] as const) {
      const body = operationId.endsWith('review') || operationId.startsWith('deploy') ? undefined : {};
      states.push((await run(operationId, { params, body })).body.state);
    }
    expect(states).toEqual(['pending_review', 'rejected', 'pending_review', 'approved', 'success']);
    expect((await run('list_deployments', { query: { state: 'success' } })).body.items).toHaveLength(1);
    expect((await run('list_deployments', { query: { environment_type: 'test' } })).body.items).toHaveLength(0);
    const unknownProject = await run('deploy_project', { params: { id: '77' }, query: { environment_type: 'test' } });
    // A project named in the path that does not exist is a 404, as a missing parent is.
    expect([unknownProject.status, managementErrorOf(unknownProject).message]).toEqual([
      404,
      'project 77 was not found',
    ]);
  });
});

describe('genies', () => {
  it('start and stop, 409 for a second start; ids carry the gin- prefix', async () => {
    const { run } = await session();
    const created = await run('create_genie', { body: { name: 'Helpdesk' } });
    expect(created.body).toEqual({ data: { id: 'gin-1' } });
    expect((await run('start_genie', { params: { id: 'gin-1' } })).status).toBe(200);
    expect((await run('get_genie', { params: { id: 'gin-1' } })).body.data.state).toBe('running');
    expect((await run('start_genie', { params: { id: 'gin-1' } })).status).toBe(409);
    expect((await run('list_genies', { query: { state: 'running' } })).body.data).toHaveLength(1);
  });
});

describe('seeded families', () => {
  it('API endpoints from a seed: listed by collection, enabled and disabled, 409 for a second enable', async () => {
    const { run } = await session({
      seed: {
        version: 1,
        resources: {
          api_collection: [{ id: 3, name: 'Orders API' }],
          api_endpoint: [{ id: 8, api_collection_id: 3, name: 'Get order' }, { api_collection_id: 4 }],
        },
      },
    });
    const listed = await run('list_api_endpoints', { query: { api_collection_id: 3 } });
    expect(listed.body.map((endpoint) => [endpoint.id, endpoint.active])).toEqual([[8, false]]);
    expect((await run('enable_api_endpoint', { params: { id: 8 } })).body).toEqual({ success: true });
    const again = await run('enable_api_endpoint', { params: { id: 8 } });
    expect([again.status, managementErrorOf(again).errors]).toEqual([409, { active: ['is true'] }]);
    await run('disable_api_endpoint', { params: { id: 8 } });
    expect((await run('list_api_endpoints', { query: { api_collection_id: 3 } })).body[0]?.active).toBe(false);
    expect((await run('enable_api_endpoint', { params: { id: 10 } })).status).toBe(404);
  });

  it("a recipe's seeded jobs are listed newest first and go with the recipe", async () => {
    const { run } = await session({
      seed: {
        version: 1,
        resources: {
          recipe: [{ id: 5, name: 'Orders', code: '{}' }],
          job: [
            { $parent: 5, id: 'j-1', status: 'succeeded' },
            { $parent: 5, id: 'j-2', status: 'failed' },
          ],
        },
      },
    });
    const jobs = await run('list_recipe_jobs', { params: { recipe_id: 5 } });
    expect(jobs.body.items.map((job) => [job.id, job.recipe_id])).toEqual([
      ['j-2', 5],
      ['j-1', 5],
    ]);
    expect(
      (await run('list_recipe_jobs', { params: { recipe_id: 5 }, query: { status: 'failed' } })).body.items,
    ).toHaveLength(1);
    expect((await run('get_recipe_job', { params: { recipe_id: 5, job_handle: 'j-1' } })).body.status).toBe(
      'succeeded',
    );
    await run('delete_recipe', { params: { id: 5 } });
    expect((await run('get_recipe_job', { params: { recipe_id: 5, job_handle: 'j-1' } })).status).toBe(404);
  });
  it("a knowledge base's seeded data sources and recipes, a recipe's test cases: listed by parent, gone with it", async () => {
    const { run } = await session({
      seed: {
        version: 1,
        resources: {
          knowledge_base: [{ id: 'kb-1', name: 'Docs' }],
          knowledge_base_data_source: [{ $parent: 'kb-1', id: 'ds-1', source_type: 'google_drive' }],
          knowledge_base_recipe: [
            { $parent: 'kb-1', id: 3, name: 'Sync drive' },
            { $parent: 'kb-1', id: 4, name: 'Sync wiki' },
          ],
          recipe: [{ id: 5, name: 'Orders', code: '{}' }],
          test_case: [{ $parent: 5, name: 'Happy path' }],
        },
      },
    });
    const kb = { id: 'kb-1' };
    const sources = await run('list_knowledge_base_data_sources', { params: kb });
    expect(sources.body.data.map((source) => source.source_type)).toEqual(['google_drive']);
    const recipes = await run('list_knowledge_base_recipes', { params: kb, query: { query: 'WIKI' } });
    expect(recipes.body.data.map((recipe) => recipe.id)).toEqual([4]);
    const cases = await run('list_recipe_test_cases', { params: { recipe_id: 5 } });
    expect(cases.body.data.map((testCase) => [testCase.id, testCase.recipe_id])).toEqual([['citc-1', 5]]);
    await run('delete_knowledge_base', { params: kb });
    expect((await run('list_knowledge_base_data_sources', { params: kb })).status).toBe(404);
    expect((await run('list_knowledge_base_recipes', { params: kb })).status).toBe(404);
    await run('delete_recipe', { params: { id: 5 } });
    expect((await run('list_recipe_test_cases', { params: { recipe_id: 5 } })).status).toBe(404);
  });
  it('project grants from a seed: listed by project, by collaborator and by group (dotted fields)', async () => {
    const project = (id: number) => ({ id, name: `P${id}`, environment: { id: 1, type: 'dev' } });
    const role = { id: 'pr-1', name: 'Operator' };
    const { run } = await session({
      seed: {
        version: 1,
        resources: {
          // What the grants name exists: a list for a project, member or group that does not is a 404.
          folder: [4, 5, 6].map((id) => ({ id: id * 10, name: `F${id}` })),
          project: [4, 5, 6].map((id) => ({ id, name: `P${id}`, folder_id: id * 10 })),
          member: [{ id: 7, name: 'Ada', email: 'ada@example.com' }],
          user_group: [{ id: 'am-1', name: 'Ops' }],
          project_grant: [
            { project: project(4), project_role: role, user: { id: 7, name: 'Ada', email: 'ada@example.com' } },
            { project: project(4), project_role: role, user: null, user_group: { id: 'am-1', name: 'Ops' } },
            { project: project(5), project_role: role, user: { id: 7, name: 'Ada', email: 'ada@example.com' } },
          ],
        },
      },
    });
    const ids = (answer: { body: { data: { id: string }[] | null } }) =>
      (answer.body.data ?? []).map((grant) => grant.id);
    expect(ids(await run('list_project_grants', { params: { id: 4 } }))).toEqual(['pg-1', 'pg-2']);
    expect(ids(await run('list_project_grants', { params: { id: 6 } }))).toEqual([]);
    expect(ids(await run('list_member_project_grants', { params: { id: 7 } }))).toEqual(['pg-1', 'pg-3']);
    expect(ids(await run('list_user_group_project_grants', { params: { id: 'am-1' } }))).toEqual(['pg-2']);
    await run('delete_project_grant', { params: { id: 'pg-1' } });
    expect(ids(await run('list_member_project_grants', { params: { id: 7 } }))).toEqual(['pg-3']);
  });
});

describe('IAM users and groups', () => {
  it('adds a user to a group that exists, once, and removes it', async () => {
    const { run } = await session();
    await run('iam_create_user_group', { body: { name: 'Support' } });
    const user = await run('iam_create_user', { body: { email: 'ada@example.com', full_name: 'Ada' } });
    const params = { 'user-id': String(user.body.data.id) };
    for (let i = 0; i < 2; i++) await run('iam_add_user_to_groups', { params, body: { user_group_id: '1' } });
    expect((await run('iam_get_user', { params })).body.data.user_group_ids).toEqual(['1']);
    const unknown = await run('iam_add_user_to_groups', { params, body: { user_group_id: '9' } });
    expect([unknown.status, managementErrorOf(unknown).errors]).toEqual([
      422,
      { user_group_ids: ['no iam_user_group 9'] },
    ]);
    await run('iam_remove_user_from_groups', { params, body: { user_group_id: '1' } });
    expect((await run('iam_get_user', { params })).body.data.user_group_ids).toEqual([]);
  });
});

describe('catalogs, memberships, copies and packages', () => {
  it('seeded catalogs: connectors by name list, custom connectors by title, activity logs filtered and paged by cursor', async () => {
    const log = (id: number, event: string, user: number, type: string, day: number) => ({
      id,
      event_type: event,
      timestamp: `2026-01-0${day}T00:00:00.000Z`,
      user: { id: user, name: `U${user}` },
      resource: { id, type },
    });
    const { run } = await session({
      seed: {
        version: 1,
        resources: {
          connector: [{ name: 'google_drive', title: 'Google Drive' }, { name: 'service_now' }, { name: 'slack' }],
          custom_connector: [
            { name: 'acme', title: 'Acme CRM' },
            { name: 'other', title: 'Other' },
          ],
          activity_log: [
            log(1, 'recipe_started', 7, 'Recipe', 1),
            log(2, 'user_login', 8, 'User', 2),
            log(3, 'recipe_stopped', 7, 'Recipe', 3),
            log(4, 'recipe_started', 7, 'Recipe', 4),
          ],
          api_portal: [{ name: 'Partners', url: 'https://partners.example.com' }],
          developer_api_client_role: [{ name: 'Reader' }],
          mcp_user_group: [{ id: 'g-1', name: 'Ops' }],
        },
      },
    });
    const connectors = await run('list_connectors', { query: { applications: 'google_drive, slack' } });
    expect(connectors.body.items.map((c) => c.name)).toEqual(['google_drive', 'slack']);
    expect((await run('list_all_connectors', { query: { per_page: 2, page: 2 } })).body).toMatchObject({
      count: 3,
      items: [{ name: 'slack' }],
    });
    expect((await run('list_custom_connectors', { query: { title: 'crm' } })).body.result.map((c) => c.name)).toEqual([
      'acme',
    ]);
    const logs = (query: Record<string, string | number>) =>
      run('list_activity_logs', { query }).then((answer) => (answer.body.data ?? []).map((entry) => entry.id));
    expect(await logs({})).toEqual([4, 3, 2, 1]);
    expect(await logs({ 'users_ids[]': 7, 'exclude_event_types[]': 'recipe_stopped' })).toEqual([4, 1]);
    expect(await logs({ from: '2026-01-02T00:00:00.000Z', to: '2026-01-03T00:00:00.000Z' })).toEqual([3, 2]);
    expect(await logs({ 'page[size]': 2 })).toEqual([4, 3]);
    expect(await logs({ 'page[size]': 2, 'page[after]': 3 })).toEqual([2, 1]);
    expect((await run('list_api_portals')).body).toMatchObject({ count: 1, data: [{ id: 1, name: 'Partners' }] });
    expect((await run('list_developer_api_client_roles')).body.result.items.map((r) => r.name)).toEqual(['Reader']);
    expect((await run('mcp_list_user_groups')).body).toMatchObject({ count: 1, data: [{ id: 'g-1' }] });
  });

  it('IAM group membership: add and remove users, list the members; unknown users are a 404 and change nothing', async () => {
    const { run } = await session();
    await run('iam_create_user_group', { body: { name: 'Support' } });
    const ids: string[] = [];
    for (const email of ['ada@example.com', 'bob@example.com']) {
      ids.push(String((await run('iam_create_user', { body: { email, full_name: email } })).body.data.id));
    }
    const group = { 'user-group-id': '1' };
    expect((await run('iam_add_users_to_group', { params: group, body: { user_ids: ids } })).body).toEqual({
      success: true,
    });
    const members = async () =>
      (await run('iam_list_user_group_members', { params: group })).body.data.map((u) => u.id);
    expect(await members()).toEqual(ids);
    const unknown = await run('iam_add_users_to_group', { params: { 'user-group-id': '9' }, body: { user_ids: ids } });
    expect(unknown.status).toBeGreaterThanOrEqual(400);
    // The members of a group that does not exist are a 404, not an empty list.
    expect((await run('iam_list_user_group_members', { params: { 'user-group-id': '9' } })).status).toBe(404);
    const missing = await run('iam_remove_users_from_group', { params: group, body: { user_ids: [ids[0], 'nobody'] } });
    expect(missing.status).toBe(404);
    expect(await members()).toEqual(ids);
    await run('iam_remove_users_from_group', { params: group, body: { user_ids: [ids[0]] } });
    expect(await members()).toEqual([ids[1]]);
  });

  it('deletes IAM app links in a batch (all or nothing), copies a legacy role, builds packages from manifests', async () => {
    const { run } = await session({
      seed: {
        version: 1,
        resources: {
          iam_app_link: [
            { id: 'al-1', name: 'A', url: 'https://a.example.com' },
            { id: 'al-2', name: 'B', url: 'https://b.example.com' },
          ],
          legacy_role: [{ id: 3, name: 'Ops' }],
          export_manifest: [{ id: 2207, name: 'Release' }],
          folder: [{ id: 1, name: 'Target', parent_id: null }],
        },
      },
    });
    const partly = await run('iam_delete_app_links', { body: { ids: ['al-1', 'al-9'] } });
    expect([partly.status, managementErrorOf(partly).message]).toEqual([404, 'iam app link al-9 was not found']);
    expect((await run('iam_list_app_links')).body.data).toHaveLength(2);
    await run('iam_delete_app_links', { body: { ids: ['al-1', 'al-2'] } });
    expect((await run('iam_list_app_links')).body.data).toEqual([]);

    const copy = await run('legacy_copy_role', { params: { role_id: 3 }, body: { name: 'Ops copy' } });
    expect(copy.body).toMatchObject({ id: 4, name: 'Ops copy' });
    expect((await run('legacy_copy_role', { params: { role_id: 9 }, body: { name: 'x' } })).status).toBe(404);

    const exported = await run('export_package', { params: { manifest_id: 2207 } });
    expect(exported.body).toMatchObject({
      id: 1,
      operation_type: 'export',
      status: 'completed',
      export_manifest_id: 2207,
    });
    expect((await run('get_package', { params: { id: 1 } })).body).toEqual(exported.body);
    expect((await run('export_package', { params: { manifest_id: 9 } })).status).toBe(404);
    const imported = await run('import_package', {
      params: { folder_id: 1 },
      rawBody: 'PK',
      headers: { 'content-type': 'application/octet-stream' },
    });
    // Two bytes are no zip: refused, naming it, and no package is made.
    expect([imported.status, managementErrorOf(imported).message]).toEqual([
      400,
      expect.stringContaining('(the zip file): not a readable zip archive'),
    ]);
    expect((await run('get_package', { params: { id: 2 } })).status).toBe(404);
  });
});

describe('modes', () => {
  it('--mode prism answers annotated operations from the examples, the spec body for malformed JSON, and by[code]=DE', async () => {
    const { run } = await session({ mode: 'prism' });
    const recipe = await run('get_recipe', { params: { id: 424242 } });
    expect(recipe.status).toBe(200);
    const malformed = await run('create_genie', {
      rawBody: '{"name":',
      headers: { 'content-type': 'application/json' },
    });
    expect([malformed.status, managementErrorOf(malformed).message]).toEqual([
      400,
      expect.stringMatching(/^The body is not valid JSON/),
    ]);
    const lookup = await run('find_lookup_table_row', { params: { lookup_table_id: 1 }, query: { 'by[code]': 'DE' } });
    expect([lookup.status, lookup.body.data.code]).toEqual([200, 'DE']);
    // A guard against a hang: Prism parses the whole management spec before it answers, seconds alone
    // and half a minute beside the other suites of npm test.
  }, 120_000);
});
