// Hand-written handlers for operations whose platform behaviour is a run rather than a stored item:
// resuming and repeating jobs, recipe health scans, and clearing the secrets-manager cache (the assets
// of a folder and packages are in packages.ts). Each works on the engine's state (EXTENSIONS.md).

import { NotFound } from '../../errors.js';
import type { JsonObject } from '../../store/resource-store.js';
import type { HandlerRegistry } from '../contract.js';

export const runsHandlers = {
  /**
   * `resume_job`: the job whose hidden `$resume_token` is the body's `token` completes (the emulator runs
   * no steps): `resume_job` moves it from pending to succeeded (Job's x-states) and uses its token up.
   */
  'jobs.resume': async (workspace, op, { body }) => {
    const { token, data } = body;
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
    for (const jobId of body.job_ids) {
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
      results.push({ job_id: jobId, status: 'enqueued', error: null });
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

  /** `clear_secrets_management_cache`: the emulator keeps no secrets cache; the answer is `{success: true}`. */
  'secrets_cache.clear': async () => ({}),
} satisfies Partial<HandlerRegistry>;
