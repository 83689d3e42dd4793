// Properties carried in packages (issue 42): a folder's assets list the environment's properties
// (`account_property`) and its projects' (`project_property`), an export writes each as a
// `{name, value}` file, and an import creates the properties the target lacks and keeps the value of
// each it has, reporting which; what cannot be a property is refused whole.
import { strToU8, unzipSync, zipSync } from 'fflate';
import { describe, expect, it } from 'vitest';
import type { MockServer } from '../../src/index.js';
import type { JsonObject } from '../../src/store/resource-store.js';
import { freshSessions } from '../support/engine/fresh-session.js';
import { downloadZip, importReport, importZip, parsed } from '../support/engine/package-zip.js';
import { managementErrorOf, type Run } from '../support/helpers.js';

const open = freshSessions();

const json = (value: unknown) => strToU8(JSON.stringify(value));
const MANIFEST = { 'manifest.json': json({ export_manifest: { id: 1, name: 'Properties' }, assets: [] }) };

/** A project folder, with environment and project properties set as upsert_properties sets them. */
async function withProperties(environment: JsonObject, project: JsonObject) {
  const { server, run } = await open();
  const folder = (await run('create_folder', { body: { name: 'Orders' } })).body;
  const projectId = Number(folder.project_id);
  expect((await run('upsert_properties', { body: { properties: environment } })).status).toBe(200);
  if (Object.keys(project).length > 0) {
    const inProject = await run('upsert_properties', {
      query: { project_id: projectId },
      body: { properties: project },
    });
    expect(inProject.status).toBe(200);
  }
  return { server, run, folderId: Number(folder.id), projectId };
}

/** The environment's properties (`orders.`), or the project's (`sync.`). */
const propertiesOf = async (run: Run, projectId?: number) => {
  const query: Record<string, string | number> =
    projectId === undefined ? { prefix: 'orders.' } : { prefix: 'sync.', project_id: projectId };
  return (await run('list_properties', { query })).body;
};

describe('properties in packages', () => {
  it('an import creates the properties the target lacks and keeps the values of those it has', async () => {
    const { server, run, folderId, projectId } = await withProperties(
      { 'orders.endpoint': 'https://example.com', 'orders.mailbox': 'ops@example.com' },
      { 'sync.batch': '50' },
    );
    const zip = zipSync({
      ...MANIFEST,
      'orders_endpoint.account_property.json': json({ name: 'orders.endpoint', value: 'https://dev.example.com' }),
      'orders_retries.account_property.json': json({ name: 'orders.retries', value: '3' }),
      'Orders/sync_batch.project_property.json': json({ name: 'sync.batch', value: '10' }),
      'Orders/sync_region.project_property.json': json({ name: 'sync.region', value: 'eu' }),
    });
    const { assets } = await importReport(server as MockServer, folderId, zip);
    expect(assets.map((asset) => [asset.type, asset.name, asset.id, asset.result])).toEqual([
      ['account_property', 'orders.endpoint', 1, 'unchanged'],
      ['account_property', 'orders.retries', 3, 'created'],
      ['project_property', 'sync.batch', 1, 'unchanged'],
      ['project_property', 'sync.region', 2, 'created'],
    ]);
    expect(await propertiesOf(run)).toEqual({
      'orders.endpoint': 'https://example.com',
      'orders.mailbox': 'ops@example.com',
      'orders.retries': '3',
    });
    expect(await propertiesOf(run, projectId)).toEqual({ 'sync.batch': '50', 'sync.region': 'eu' });
    // The same package again: everything is the target's now, nothing changes.
    const again = await importReport(server as MockServer, folderId, zip);
    expect(again.assets.map((asset) => asset.result)).toEqual(['unchanged', 'unchanged', 'unchanged', 'unchanged']);
  });

  it("a folder's assets list them; an export writes them as {name, value} files, by id from a manifest", async () => {
    const { server, run, folderId } = await withProperties(
      { 'orders.endpoint': 'https://example.com', 'orders.mailbox': 'ops@example.com' },
      { 'sync.batch': '50' },
    );
    const other = (await run('create_folder', { body: { name: 'Elsewhere' } })).body;
    const listed = async (folder: number) => {
      const answer = await run('list_folder_assets', { query: { folder_id: folder } });
      return answer.body.result.assets
        .filter((asset) => asset.type.endsWith('_property'))
        .map(({ id, name, type, zip_name, folder: holder }) => [type, id, name, zip_name, holder]);
    };
    const environment = [
      ['account_property', 1, 'orders.endpoint', 'orders_endpoint.account_property.json', ''],
      ['account_property', 2, 'orders.mailbox', 'orders_mailbox.account_property.json', ''],
    ];
    expect(await listed(folderId)).toEqual([
      ...environment,
      ['project_property', 1, 'sync.batch', 'sync_batch.project_property.json', 'Orders'],
    ]);
    // Another project's folder: the environment's properties, none of this project's.
    expect(await listed(Number(other.id))).toEqual(environment);

    const assets = [
      { id: 2, type: 'account_property' },
      { id: 1, type: 'project_property' },
    ];
    const manifest = await run('create_export_manifest', {
      body: { export_manifest: { name: 'Props', folder_id: folderId, assets } },
    });
    expect(manifest.status, JSON.stringify(manifest.body)).toBe(201);
    const exported = await run('export_package', { params: { manifest_id: manifest.body.result.id } });
    expect(exported.body.status).toBe('completed');
    const files = unzipSync(await downloadZip(server as MockServer, Number(exported.body.id)));
    expect(Object.keys(files).sort()).toEqual([
      'asset_0.account_property.json',
      'asset_1.project_property.json',
      'manifest.json',
    ]);
    expect(parsed(files['asset_0.account_property.json'])).toEqual({
      name: 'orders.mailbox',
      value: 'ops@example.com',
    });
    expect(parsed(files['asset_1.project_property.json'])).toEqual({ name: 'sync.batch', value: '50' });
    expect(parsed(files['manifest.json']).assets).toEqual([
      { path: 'asset_0.account_property.json', type: 'account_property', name: 'orders.mailbox' },
      { path: 'asset_1.project_property.json', type: 'project_property', name: 'sync.batch' },
    ]);
    const unknown = await run('create_export_manifest', {
      body: { export_manifest: { name: 'Props', assets: [{ id: 3, type: 'account_property' }] } },
    });
    expect([unknown.status, managementErrorOf(unknown).message]).toEqual([
      400,
      expect.stringContaining('assets[0].id'),
    ]);
  });

  it('refuses whole a file that is no property, and a project property outside a project', async () => {
    const { server, run, folderId } = await withProperties({ 'orders.endpoint': 'https://example.com' }, {});
    const home = (await run('get_workspace_details')).body.root_folder_id;
    const cases: [number, string, JsonObject, string][] = [
      [folderId, 'n.account_property.json', { name: 'orders.limit', value: 10 }, '`value`, a string'],
      [folderId, 'n.account_property.json', { name: 'x'.repeat(101), value: '1' }, 'at most 100 characters'],
      [folderId, 'n.account_property.json', { name: 'orders.note', value: 'x'.repeat(1025) }, 'at most 1024'],
      [home, 'n.project_property.json', { name: 'sync.batch', value: '1' }, 'belongs to a project'],
    ];
    for (const [target, path, content, why] of cases) {
      const zip = zipSync({
        ...MANIFEST,
        'new.account_property.json': json({ name: 'orders.new', value: 'kept out' }),
        [path]: json(content),
      });
      const answer = await importZip(server as MockServer, target, zip);
      expect(answer.status, why).toBe(400);
      expect(managementErrorOf(answer).message).toContain(`${path}: `);
      expect(managementErrorOf(answer).message).toContain(why);
    }
    expect(await propertiesOf(run)).toEqual({ 'orders.endpoint': 'https://example.com' });
  });
});
