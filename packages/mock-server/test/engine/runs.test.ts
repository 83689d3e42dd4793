// The engine's handlers for runs and derivations: resuming and repeating jobs, recipe health scans,
// the assets of a folder, a package's zip file and the secrets-manager cache. Over HTTP; call() checks
// every answer against the spec (status, content type, JSON body).
import { strFromU8, strToU8, unzipSync, zipSync } from 'fflate';
import { describe, expect, it } from 'vitest';
import { createResourceEngine } from '../../src/engine/engine.js';
import { importZip } from '../support/engine/package-zip.js';
import { managementErrorOf, type Run, session, specs } from '../support/helpers.js';

const OPERATIONS = [
  'resume_job',
  'repeat_recipe_jobs',
  'get_recipe_health',
  'queue_recipe_health_scan',
  'list_folder_assets',
  'download_package',
  'clear_secrets_management_cache',
] as const;

it('the engine serves all seven operations (Prism answers none of them)', () => {
  const engine = createResourceEngine(specs);
  expect(OPERATIONS.filter((operationId) => !engine.handles(operationId))).toEqual([]);
});

describe('jobs', () => {
  const SEED = {
    version: 1,
    resources: {
      recipe: [
        { id: 5, name: 'Orders', code: '{}' },
        { id: 6, name: 'Invoices', code: '{}' },
      ],
      job: [
        { $parent: 5, id: 'j-waiting', title: 'Order 1', status: 'pending', $resume_token: 'rt-waiting' },
        { $parent: 5, id: 'j-done', title: 'Order 2', status: 'succeeded', $resume_token: 'rt-done' },
        { $parent: 5, id: 'j-failed', title: 'Order 3', status: 'failed', is_error: true, error: 'Timeout' },
        { $parent: 6, id: 'j-invoice', title: 'Invoice 1', status: 'succeeded' },
      ],
    },
  };
  const job = (run: Run, handle: string) => run('get_recipe_job', { params: { recipe_id: 5, job_handle: handle } });

  it('resuming a waiting job completes it and uses its token up', async () => {
    const { run } = await session({ seed: SEED, clock: () => Date.parse('2026-11-21T10:00:00.000Z') });
    const resumed = await run('resume_job', { body: { token: 'rt-waiting', data: { approved: true } } });
    expect([resumed.status, resumed.body]).toEqual([204, undefined]);
    const after = (await job(run, 'j-waiting')).body;
    expect(after).toMatchObject({ status: 'succeeded', completed_at: '2026-11-21T10:00:00.000Z', is_error: false });
    expect(Object.keys(after).filter((name) => name.startsWith('$'))).toEqual([]);
    const jobs = await run('list_recipe_jobs', { params: { recipe_id: 5 }, query: { status: 'pending' } });
    expect(jobs.body.items).toEqual([]);

    const again = await run('resume_job', { body: { token: 'rt-waiting' } });
    expect([again.status, managementErrorOf(again).message]).toEqual([
      404,
      'No job waits for the resume token rt-waiting',
    ]);
  });

  it('refuses an unknown token (404), a job no longer pending (400) and a body without token (400)', async () => {
    const { run } = await session({ seed: SEED });
    expect((await run('resume_job', { body: { token: 'rt-unknown' } })).status).toBe(404);
    const finished = await run('resume_job', { body: { token: 'rt-done' } });
    expect(finished.status).toBe(400);
    expect(managementErrorOf(finished).message).toMatch(/j-done is "succeeded": resume_job needs "pending"/);
    expect((await job(run, 'j-done')).body.status).toBe('succeeded');
    const noToken = await run('resume_job', { body: { data: {} } });
    expect(noToken.status).toBe(400);
    expect(managementErrorOf(noToken).errors).toHaveProperty('token');
  });

  it('repeating makes a new pending job for each finished job of the recipe; the others are reported failed', async () => {
    const { run } = await session({ seed: SEED, clock: () => Date.parse('2026-11-21T11:00:00.000Z') });
    const repeated = await run('repeat_recipe_jobs', {
      params: { recipe_id: 5 },
      body: { job_ids: ['j-failed', 'j-waiting', 'j-invoice', 'j-nothing', 'j-done'] },
    });
    expect(repeated.status).toBe(200);
    expect(repeated.body.results).toEqual([
      { job_id: 'j-failed', status: 'enqueued', error: null },
      { job_id: 'j-waiting', status: 'failed', error: 'Job is still running' },
      { job_id: 'j-invoice', status: 'failed', error: 'Job j-invoice is not a job of recipe 5' },
      { job_id: 'j-nothing', status: 'failed', error: 'Job j-nothing is not a job of recipe 5' },
      { job_id: 'j-done', status: 'enqueued', error: null },
    ]);

    const listed = (await run('list_recipe_jobs', { params: { recipe_id: 5 } })).body.items;
    expect(listed.map((each) => [each.id, each.status, each.master_job_id ?? null])).toEqual([
      ['j-2', 'pending', 'j-done'],
      ['j-1', 'pending', 'j-failed'],
      ['j-failed', 'failed', null],
      ['j-done', 'succeeded', null],
      ['j-waiting', 'pending', null],
    ]);
    const repeat = (await job(run, 'j-1')).body;
    expect(repeat).toMatchObject({
      id: 'j-1',
      handle: 'j-1',
      recipe_id: 5,
      title: 'Order 3',
      is_repeat: true,
      master_job_handle: 'j-failed',
      started_at: '2026-11-21T11:00:00.000Z',
      completed_at: null,
      is_error: false,
      error: null,
    });
    // The repeat is pending: repeating it again is refused until it finishes.
    const early = await run('repeat_recipe_jobs', { params: { recipe_id: 5 }, body: { job_ids: ['j-1'] } });
    expect(early.body.results).toEqual([{ job_id: 'j-1', status: 'failed', error: 'Job is still running' }]);
    expect((await run('list_recipe_jobs', { params: { recipe_id: 6 } })).body.items).toHaveLength(1);
  });

  it('refuses an unknown recipe (404) and job ids that break the schema (400)', async () => {
    const { run } = await session({ seed: SEED });
    const missing = await run('repeat_recipe_jobs', { params: { recipe_id: 9 }, body: { job_ids: ['j-done'] } });
    expect([missing.status, managementErrorOf(missing).message]).toEqual([404, 'recipe 9 was not found']);
    for (const job_ids of [[], ['done'], Array.from({ length: 26 }, (_, i) => `j-${i}`)]) {
      expect((await run('repeat_recipe_jobs', { params: { recipe_id: 5 }, body: { job_ids } })).status).toBe(400);
    }
    expect((await run('list_recipe_jobs', { params: { recipe_id: 5 } })).body.items).toHaveLength(3);
  });
});

describe('recipe health', () => {
  const SEED = {
    version: 1,
    resources: {
      recipe: [
        { id: 5, name: 'Orders', code: '{}' },
        { id: 6, name: 'Invoices', code: '{}' },
      ],
      recipe_health_report: [
        {
          $parent: 6,
          recipe_id: 6,
          status: 'completed',
          scanned_at: '2026-11-01T06:00:00Z',
          findings: [{ step: 1, severity: 'warning', rule: 'action_in_loop', message: 'Use a batch search' }],
        },
      ],
    },
  };

  it('is a 404 before the first scan; a scan leaves a completed report that later gets answer', async () => {
    const { run } = await session({ seed: SEED, clock: () => Date.parse('2026-11-21T09:30:00.000Z') });
    const before = await run('get_recipe_health', { params: { recipe_id: 5 } });
    expect([before.status, managementErrorOf(before).message]).toEqual([404, 'Recipe 5 has never been scanned']);

    const queued = await run('queue_recipe_health_scan', { params: { recipe_id: 5 } });
    expect([queued.status, queued.body]).toEqual([
      200,
      { recipe_id: 5, status: 'queued', queued_at: '2026-11-21T09:30:00.000Z' },
    ]);
    const report = await run('get_recipe_health', { params: { recipe_id: 5 } });
    expect(report.body).toEqual({
      recipe_id: 5,
      status: 'completed',
      scanned_at: '2026-11-21T09:30:00.000Z',
      findings: [],
    });
  });

  it("a rescan keeps a seeded report's findings; the report goes with its recipe; unknown recipes are 404s", async () => {
    const { run } = await session({ seed: SEED, clock: () => Date.parse('2026-11-21T09:30:00.000Z') });
    const seeded = await run('get_recipe_health', { params: { recipe_id: 6 } });
    expect(seeded.body.scanned_at).toBe('2026-11-01T06:00:00Z');
    await run('queue_recipe_health_scan', { params: { recipe_id: 6 } });
    const rescanned = (await run('get_recipe_health', { params: { recipe_id: 6 } })).body;
    expect(rescanned.scanned_at).toBe('2026-11-21T09:30:00.000Z');
    expect(rescanned.findings).toEqual(seeded.body.findings);

    await run('delete_recipe', { params: { id: 6 } });
    for (const operationId of ['get_recipe_health', 'queue_recipe_health_scan'] as const) {
      const answer = await run(operationId, { params: { recipe_id: 6 } });
      expect([operationId, answer.status, managementErrorOf(answer).message]).toEqual([
        operationId,
        404,
        'recipe 6 was not found',
      ]);
    }
  });
});

describe('folder assets', () => {
  const SEED = {
    version: 1,
    resources: {
      folder: [
        { id: 1, name: 'Order to cash', parent_id: null, is_project: true, project_id: 10 },
        { id: 2, name: 'Sales ops', parent_id: 1 },
        { id: 3, name: 'Finance', parent_id: null },
      ],
      project: [{ id: 10, name: 'Order to cash', folder_id: 1 }],
      recipe: [{ id: 5, name: 'Salesforce orders to NetSuite', code: '{}', folder_id: 2 }],
      connection: [
        { id: 6, name: 'Salesforce production', provider: 'salesforce', folder_id: 1 },
        { id: 8, name: 'Bank', provider: 'http', folder_id: 3 },
      ],
      lookup_table: [{ id: 4, name: 'Country codes', project_id: '10' }],
    },
  };
  const assets = async (run: Run, folder_id?: number) =>
    (await run('list_folder_assets', folder_id === undefined ? {} : { query: { folder_id } })).body.result.assets;

  it('lists what the folder and its sub-folders hold, with their paths', async () => {
    const { run } = await session({ seed: SEED });
    expect(await assets(run, 2)).toEqual([
      {
        id: 5,
        name: 'Salesforce orders to NetSuite',
        type: 'recipe',
        version: 1,
        folder: 'Sales ops',
        absolute_path: 'Order to cash/Sales ops',
        root_folder: false,
        unreachable: false,
        zip_name: 'salesforce_orders_to_netsuite.recipe.json',
        checked: true,
        status: 'added',
      },
    ]);
    const project = await assets(run, 1);
    expect(project.map((a) => [a.type, a.id, a.folder, a.absolute_path])).toEqual([
      ['recipe', 5, 'Sales ops', 'Order to cash/Sales ops'],
      ['connection', 6, 'Order to cash', 'Order to cash'],
      ['lookup_table', 4, 'Order to cash', 'Order to cash'],
    ]);
    expect((await assets(run, 3)).map((a) => a.name)).toEqual(['Bank']);
    expect((await assets(run)).map((a) => a.name)).toEqual([
      'Salesforce orders to NetSuite',
      'Salesforce production',
      'Bank',
      'Country codes',
    ]);
  });

  it('follows the state: created and updated assets appear, deleted ones leave; an unknown folder is a 404', async () => {
    const { run } = await session({ seed: SEED });
    const created = await run('create_recipe', {
      body: { recipe: { name: 'Refunds', code: '{}', folder_id: '3' } },
    });
    expect(created.status).toBe(200);
    const recipeId = (created.body as { id: number }).id;
    await run('update_recipe', { params: { id: recipeId }, body: { recipe: { name: 'Refunds v2' } } });
    await run('delete_connection', { params: { connection_id: 8 } });
    expect((await assets(run, 3)).map((a) => [a.type, a.name, a.version, a.zip_name])).toEqual([
      ['recipe', 'Refunds v2', 2, 'refunds_v2.recipe.json'],
    ]);

    const missing = await run('list_folder_assets', { query: { folder_id: 99 } });
    expect([missing.status, managementErrorOf(missing).message]).toEqual([404, 'folder 99 was not found']);
    expect((await run('list_folder_assets', { query: { folder_id: 0 } })).status).toBe(400);
  });
});

describe('package download', () => {
  const SEED = {
    version: 1,
    resources: {
      export_manifest: [{ id: 2207, name: 'Release' }],
      package: [{ id: 40, operation_type: 'export', status: 'in_progress', export_manifest_id: 2207 }],
    },
    counters: { package: 40 },
  };

  it('answers the zip file of a completed export', async () => {
    const { server, admin, run } = await session({ seed: SEED, clock: () => Date.parse('2026-11-21T12:00:00.000Z') });
    const exported = await run('export_package', { params: { manifest_id: 2207 } });
    const id = exported.body.id;
    // call() checks the status and the documented content type (application/zip).
    const answer = await run('download_package', { params: { id } });
    expect(answer.status).toBe(200);
    const response = await fetch(`${server.url}/api/packages/${id}/download`, {
      headers: { authorization: `Bearer ${admin}` },
    });
    expect(response.headers.get('content-type')).toBe('application/zip');
    const bytes = Buffer.from(await response.arrayBuffer());
    expect(Number(response.headers.get('content-length'))).toBe(bytes.length);
    const entries = unzipSync(bytes);
    expect(Object.keys(entries)).toEqual(['manifest.json']);
    expect(JSON.parse(strFromU8(entries['manifest.json'] ?? new Uint8Array()))).toEqual({
      export_manifest: { id: 2207, name: 'Release' },
      exported_at: '2026-11-21T12:00:00.000Z',
      assets: [],
    });
  });

  it('is a 404 for an unknown package, an unfinished export and an import', async () => {
    const { server, run } = await session({ seed: SEED });
    const folder = (await run('create_folder', { body: { name: 'Target' } })).body;
    const manifest = { 'manifest.json': strToU8('{"assets":[]}') };
    const imported = (await importZip(server, folder.id, zipSync(manifest))).body as { id: number };
    for (const id of [99, 40, imported.id]) {
      const answer = await run('download_package', { params: { id } });
      expect([id, answer.status, typeof managementErrorOf(answer).message]).toEqual([id, 404, 'string']);
    }
  });
});

it('clearing the secrets-manager cache succeeds, with the documented body', async () => {
  const { run } = await session();
  const cleared = await run('clear_secrets_management_cache');
  expect([cleared.status, cleared.body]).toEqual([200, { success: true }]);
});
