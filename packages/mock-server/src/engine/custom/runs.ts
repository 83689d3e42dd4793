// Hand-written handlers for operations whose platform behaviour is a run or a derivation rather than
// a stored item: resuming and repeating jobs, recipe health scans, the assets of a folder, a package's
// zip file, and clearing the secrets-manager cache. Each works on the engine's state (EXTENSIONS.md).

import { crc32 } from 'node:zlib';
import { NotFound } from '../../errors.js';
import type { JsonObject, StoredItem } from '../../store/resource-store.js';
import { notFound } from '../errors.js';
import type { Handler } from '../handlers.js';

export const runsHandlers: Record<string, Handler> = {
  /**
   * `resume_job`: the job whose hidden `$resume_token` is the body's `token` completes (the emulator runs
   * no steps): `resume_job` moves it from pending to succeeded (Job's x-states) and uses its token up.
   */
  'jobs.resume': async (workspace, op, { body }) => {
    const { token, data } = body as JsonObject;
    const job = (await workspace.store.list(op.type.name)).find((item) => item.value.$resume_token === token);
    if (!job) throw new NotFound(`No job waits for the resume token ${token}`);
    await workspace.update(op, job, {
      completed_at: workspace.values.now,
      is_error: false,
      error: null,
      $resume_token: null,
      $resume_data: data ?? null,
    });
    return {};
  },

  /**
   * `repeat_recipe_jobs`: each job of the recipe that is not pending gets a new pending job, a repeat of
   * it; the others are reported `failed` with the reason. An unknown recipe is a 404.
   */
  'jobs.repeat': async (workspace, op, { params, body }) => {
    const recipe = await workspace.parentOf(op, params);
    const results: JsonObject[] = [];
    for (const jobId of (body as JsonObject).job_ids as string[]) {
      const job = await workspace.store.get(op.type.name, jobId);
      if (!job || job.parent !== recipe.id) {
        results.push({ job_id: jobId, status: 'failed', error: `Job ${jobId} is not a job of recipe ${recipe.id}` });
        continue;
      }
      if (job.value.status === 'pending') {
        results.push({ job_id: jobId, status: 'failed', error: 'Job is still running' });
        continue;
      }
      const { value } = job;
      const repeat = await workspace.create(
        op,
        {
          title: value.title ?? null,
          started_at: workspace.values.now,
          completed_at: null,
          is_error: false,
          is_poll_error: false,
          error: null,
          is_repeat: true,
          is_test: value.is_test ?? false,
          is_test_case_job: value.is_test_case_job ?? false,
          master_job_id: job.id,
          master_job_handle: value.handle ?? job.id,
        },
        recipe,
      );
      const stored = await workspace.store.get(op.type.name, String(repeat.id));
      if (stored) await workspace.update(op, stored, { handle: repeat.id });
      results.push({ job_id: jobId, status: 'enqueued' });
    }
    return { body: { results } };
  },

  /** `get_recipe_health`: the recipe's report, kept by its last scan; 404 before the first scan. */
  'recipe_health.get': async (workspace, op, { params }) => {
    const recipe = await workspace.parentOf(op, params);
    const report = await workspace.store.get(op.type.name, recipe.id);
    if (!report) throw new NotFound(`Recipe ${recipe.id} has never been scanned`);
    return { item: report.value };
  },

  /**
   * `queue_recipe_health_scan`: the scan completes at once (the emulator does not analyse recipe code):
   * the report is `completed`, scanned now, with the findings it had (none for a first scan).
   */
  'recipe_health.scan': async (workspace, op, { params }) => {
    const recipe = await workspace.parentOf(op, params);
    const previous = await workspace.store.get(op.type.name, recipe.id);
    const findings = Array.isArray(previous?.value.findings) ? previous.value.findings : [];
    const now = workspace.values.now;
    const recipeId = Number(recipe.id);
    await workspace.store.put(op.type.name, {
      id: recipe.id,
      parent: recipe.id,
      value: { ...previous?.value, recipe_id: recipeId, status: 'completed', scanned_at: now, findings },
    });
    return { body: { recipe_id: recipeId, status: 'queued', queued_at: now } };
  },

  /**
   * `list_folder_assets`: what the folder (the root folder without `folder_id`) and its sub-folders hold,
   * at any depth: recipes, connections, and what the projects whose folders are there hold (lookup
   * tables, API collections and their endpoints). An unknown folder is a 404.
   */
  'folders.assets': async (workspace, op, { params }) => {
    const folders = new Map((await workspace.store.list(op.type.name)).map((item) => [item.id, item.value]));
    const start = params.folder_id === undefined ? undefined : String(params.folder_id);
    if (start !== undefined && !folders.has(start)) throw notFound('folder', start);
    const chains = new Map<string, string[]>();
    const chainOf = (folderId: string): string[] => {
      let chain = chains.get(folderId);
      if (!chain) {
        chain = [];
        // Top first; a cycle (only a hand-written seed can make one) stops the walk.
        for (let id: string | undefined = folderId; id !== undefined && folders.has(id) && !chain.includes(id); ) {
          chain.unshift(id);
          const parent: unknown = folders.get(id)?.parent_id;
          id = parent === null || parent === undefined ? undefined : String(parent);
        }
        chains.set(folderId, chain);
      }
      return chain;
    };
    const listed = async (type: string) => (await workspace.store.list(type)).map((item) => item.value);
    const projectFolders = new Map((await listed('project')).map((p) => [String(p.id), p.folder_id]));
    const collections = await listed('api_collection');
    const collectionProjects = new Map(collections.map((c) => [String(c.id), c.project_id]));
    const inProject = (projectId: unknown) => projectFolders.get(String(projectId));
    const held: [asset: string, item: JsonObject, folderId: unknown][] = [
      ...(await listed('recipe')).map((r): [string, JsonObject, unknown] => ['recipe', r, r.folder_id]),
      ...(await listed('connection')).map((c): [string, JsonObject, unknown] => ['connection', c, c.folder_id]),
      ...(await listed('lookup_table')).map((t): [string, JsonObject, unknown] => [
        'lookup_table',
        t,
        inProject(t.project_id),
      ]),
      ...collections.map((c): [string, JsonObject, unknown] => ['api_group', c, inProject(c.project_id)]),
      ...(await listed('api_endpoint')).map((e): [string, JsonObject, unknown] => [
        'api_endpoint',
        e,
        inProject(collectionProjects.get(String(e.api_collection_id))),
      ]),
    ];
    const assets: JsonObject[] = [];
    for (const [asset, item, folderId] of held) {
      const id = Number(item.id);
      if (!Number.isSafeInteger(id) || id < 1) continue;
      // An asset in no folder, or in one that no longer exists, is in the root folder.
      const chain = folderId === null || folderId === undefined ? [] : chainOf(String(folderId));
      if (start !== undefined && !chain.includes(start)) continue;
      const names = chain.map((each) => String(folders.get(each)?.name ?? ''));
      const name = typeof item.name === 'string' ? item.name : '';
      assets.push({
        id,
        name,
        type: asset,
        version: asset === 'recipe' && Number.isSafeInteger(item.version_no) ? item.version_no : 1,
        folder: names.at(-1) ?? '',
        absolute_path: names.length > 0 ? names.join('/') : 'All projects',
        root_folder: chain.length === 0,
        unreachable: false,
        zip_name: `${slug(name) || `${asset}_${id}`}.${asset}.json`,
        checked: true,
        status: 'added',
      });
    }
    return { body: { result: { assets } } };
  },

  /**
   * `download_package`: the zip file of a completed export (store-only), holding `manifest.json` with the
   * package and its export manifest; an import, or an export not completed, has no file (404).
   */
  'packages.download': async (workspace, op, { params }) => {
    const { id, value } = await workspace.itemOf(op, params);
    if (value.operation_type !== 'export' || value.status !== 'completed')
      throw new NotFound(`package ${id} has no file to download (only a completed export has one)`);
    const manifestId = value.export_manifest_id;
    const manifest: StoredItem | undefined =
      manifestId === null || manifestId === undefined
        ? undefined
        : await workspace.store.get('export_manifest', String(manifestId));
    const content = {
      package_id: value.id,
      export_manifest: manifest ? { id: manifest.value.id, name: manifest.value.name } : null,
      exported_at: workspace.values.now,
    };
    const bytes = storedZip(
      [{ name: 'manifest.json', data: Buffer.from(`${JSON.stringify(content, null, 2)}\n`) }],
      new Date(workspace.values.now),
    );
    return { file: { contentType: 'application/zip', bytes } };
  },

  /** `clear_secrets_management_cache`: the emulator keeps no secrets cache; the answer is `{success: true}`. */
  'secrets_cache.clear': async () => ({}),
};

/** A name as a file name: lower case, runs of other characters as `_` (`Orders to NetSuite` → `orders_to_netsuite`). */
function slug(name: string): string {
  return name
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '_')
    .replace(/^_+|_+$/g, '');
}

/** A zip archive whose entries are stored uncompressed (method 0), written by hand (APPNOTE 6.3). */
export function storedZip(entries: { name: string; data: Uint8Array }[], modified: Date): Uint8Array {
  const time = (modified.getUTCHours() << 11) | (modified.getUTCMinutes() << 5) | (modified.getUTCSeconds() >> 1);
  const date = ((modified.getUTCFullYear() - 1980) << 9) | ((modified.getUTCMonth() + 1) << 5) | modified.getUTCDate();
  const locals: Buffer[] = [];
  const centrals: Buffer[] = [];
  let offset = 0;
  for (const { name, data } of entries) {
    const fileName = Buffer.from(name, 'utf8');
    const crc = crc32(data);
    // Version 2.0, flag bit 11 (UTF-8 names), stored, DOS time and date, CRC-32, sizes, name length.
    const common = (header: Buffer, at: number) => {
      header.writeUInt16LE(0x0800, at);
      header.writeUInt16LE(0, at + 2);
      header.writeUInt16LE(time, at + 4);
      header.writeUInt16LE(date, at + 6);
      header.writeUInt32LE(crc, at + 8);
      header.writeUInt32LE(data.byteLength, at + 12);
      header.writeUInt32LE(data.byteLength, at + 16);
      header.writeUInt16LE(fileName.length, at + 20);
    };
    const local = Buffer.alloc(30);
    local.writeUInt32LE(0x04034b50, 0);
    local.writeUInt16LE(20, 4);
    common(local, 6);
    const central = Buffer.alloc(46);
    central.writeUInt32LE(0x02014b50, 0);
    central.writeUInt16LE(20, 4);
    central.writeUInt16LE(20, 6);
    common(central, 8);
    central.writeUInt32LE(offset, 42);
    locals.push(local, fileName, Buffer.from(data));
    centrals.push(central, fileName);
    offset += local.length + fileName.length + data.byteLength;
  }
  const directory = Buffer.concat(centrals);
  const end = Buffer.alloc(22);
  end.writeUInt32LE(0x06054b50, 0);
  end.writeUInt16LE(entries.length, 8);
  end.writeUInt16LE(entries.length, 10);
  end.writeUInt32LE(directory.length, 12);
  end.writeUInt32LE(offset, 16);
  return Buffer.concat([...locals, directory, end]);
}
