// Projects are folders at the top level: creating, listing and deleting them through either form,
// and the reference fields a create leaves out, which take what exists instead of the spec's examples.
import { describe, expect, it } from 'vitest';
import { freshSessions } from '../support/engine/fresh-session.js';
import type { Run } from '../support/helpers.js';

const open = freshSessions();

async function fresh(): Promise<Run> {
  return (await open()).run;
}

describe('projects are top-level folders', () => {
  it('a folder created without a parent is a project that list_projects lists, and its sub-folders belong to it', async () => {
    const run = await fresh();
    const created = await run('create_folder', { body: { name: 'Order to cash' } });
    expect(created.status).toBe(200);
    const folder = created.body;
    expect(folder.is_project).toBe(true);
    expect(folder.project_id).toEqual(expect.any(Number));
    const projects = await run('list_projects');
    expect(projects.body).toEqual([
      expect.objectContaining({ id: folder.project_id, name: 'Order to cash', folder_id: folder.id }),
    ]);
    const sub = await run('create_folder', { body: { name: 'Invoices', parent_id: String(folder.id) } });
    expect(sub.body).toMatchObject({ is_project: false, project_id: folder.project_id, parent_id: folder.id });
    const me = await run('get_workspace_details');
    expect(folder.parent_id).toBe(me.body.root_folder_id);
    const listed = await run('list_folders', { query: { parent_id: folder.id } });
    expect(listed.body).toEqual([expect.objectContaining({ id: sub.body.id, project_id: folder.project_id })]);
  });

  it('an unknown parent folder is refused with 422 naming parent_id, and nothing is created', async () => {
    const run = await fresh();
    const refused = await run('create_folder', { body: { name: 'Lost', parent_id: '999' } });
    expect(refused.status).toBe(422);
    expect(JSON.stringify(refused.body)).toContain('parent_id');
    expect((await run('list_projects')).body).toEqual([]);
  });

  it('deleting a project deletes its folder and everything in it; deleting the folder deletes the project', async () => {
    const run = await fresh();
    const first = (await run('create_folder', { body: { name: 'First' } })).body;
    const sub = (await run('create_folder', { body: { name: 'Sub', parent_id: String(first.id) } })).body;
    const recipe = await run('create_recipe', {
      body: { recipe: { name: 'Sync', code: '{}', folder_id: String(sub.id) } },
    });
    expect(recipe.status, JSON.stringify(recipe.body)).toBe(200);
    const table = await run('create_lookup_table', {
      body: { lookup_table: { name: 'Codes', project_id: first.project_id, schema: [{ label: 'code' }] } },
    });
    expect(table.status, JSON.stringify(table.body)).toBe(200);
    const deleted = await run('delete_project', { params: { project_id: Number(first.project_id) } });
    expect(deleted.status).toBe(200);
    expect((await run('list_projects')).body).toEqual([]);
    expect((await run('list_folders', { query: { parent_id: first.id } })).body).toEqual([]);
    expect((await run('list_recipes')).body).toMatchObject({ items: [] });
    expect((await run('list_lookup_tables')).body).toEqual([]);

    const second = (await run('create_folder', { body: { name: 'Second' } })).body;
    expect((await run('delete_folder', { params: { folder_id: second.id } })).status).toBe(200);
    expect((await run('list_projects')).body).toEqual([]);
  });
});

describe('a project and its folder stay one', () => {
  it('renaming either renames both; a project folder cannot move; a moved folder takes its new project', async () => {
    const run = await fresh();
    const first = (await run('create_folder', { body: { name: 'First' } })).body;
    const second = (await run('create_folder', { body: { name: 'Second' } })).body;
    const sub = (await run('create_folder', { body: { name: 'Sub', parent_id: String(first.id) } })).body;
    const deeper = (await run('create_folder', { body: { name: 'Deeper', parent_id: String(sub.id) } })).body;
    const projectName = async (folderId: number) =>
      (await run('list_projects')).body.find((p) => p.folder_id === folderId)?.name;

    await run('update_folder', { params: { folder_id: first.id }, body: { name: 'Renamed' } });
    expect(await projectName(first.id)).toBe('Renamed');
    await run('update_project', { params: { project_id: Number(second.project_id) }, body: { name: 'Other' } });
    const top = (await run('list_folders')).body;
    expect(top.find((f) => f.id === second.id)?.name).toBe('Other');

    const moveProject = await run('update_folder', {
      params: { folder_id: first.id },
      body: { parent_id: String(second.id) },
    });
    expect(moveProject.status).toBe(422);
    const intoItself = await run('update_folder', {
      params: { folder_id: sub.id },
      body: { parent_id: String(deeper.id) },
    });
    expect(intoItself.status).toBe(422);

    const moved = await run('update_folder', { params: { folder_id: sub.id }, body: { parent_id: String(second.id) } });
    expect(moved.body).toMatchObject({ parent_id: second.id, project_id: second.project_id, is_project: false });
    const below = (await run('list_folders', { query: { parent_id: sub.id } })).body;
    expect(below).toEqual([expect.objectContaining({ id: deeper.id, project_id: second.project_id })]);
  });
});

describe('references a create leaves out come from state', () => {
  it('a connection, recipe and data table without folder_id land in the home folder, which exists', async () => {
    const run = await fresh();
    const connection = await run('create_connection', { body: { name: 'SF', provider: 'salesforce' } });
    expect(connection.status).toBe(200);
    const home = (await run('get_workspace_details')).body.root_folder_id;
    expect(connection.body.folder_id).toBe(home);
    // The home folder exists: a folder made in it is a project.
    const inHome = await run('create_folder', { body: { name: 'P', parent_id: String(home) } });
    expect(inHome.body).toMatchObject({ is_project: true, parent_id: home });
    expect((await run('list_folders')).body.map((f) => f.id)).toEqual([inHome.body.id]);
  });

  it('a lookup table without project_id goes to an existing project, never the example 4123; without any project it is a 400', async () => {
    const run = await fresh();
    const none = await run('create_lookup_table', {
      body: { lookup_table: { name: 'Codes', schema: [{ label: 'a' }] } },
    });
    expect(none.status).toBe(400);
    expect(JSON.stringify(none.body)).toContain('project_id');
    const project = (await run('create_folder', { body: { name: 'P' } })).body;
    const table = await run('create_lookup_table', {
      body: { lookup_table: { name: 'Codes', schema: [{ label: 'a' }] } },
    });
    expect(table.status, JSON.stringify(table.body)).toBe(200);
    expect(JSON.stringify(table.body)).toContain(`"project_id":"${project.project_id}"`);
  });
});
