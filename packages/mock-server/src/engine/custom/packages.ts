// Recipe lifecycle management: the assets of a folder, export manifests that keep their asset list,
// packages built from them as zip files in the platform's layout (`manifest.json` and one JSON file per
// asset, `<folder path>/<zip_name>`), and imports that create or update the assets a zip holds. Zips are
// written and read with fflate; an import checks the whole zip before it changes anything.

import { InvalidRequest, NotFound } from '../../errors.js';
import { RESOURCE_TYPES, type ResourceTypeName } from '../../generated/resource-types.js';
import type { JsonObject, StoredItem } from '../../store/resource-store.js';
import type { Handler, Workspace } from '../contract.js';
import { missingReference, notFound } from '../errors.js';
import { isObject, propertiesOf, resolve } from '../schema.js';
import { complete } from '../values.js';
import type { EngineOperation, ResourceType } from '../vocabulary.js';
import { actingOn } from './projects.js';

const FOLDER = RESOURCE_TYPES.folder;
const PROJECT = RESOURCE_TYPES.project;

/** Where an asset type of the packages lives: its resource type and the field that places it. */
interface AssetKind {
  resource: ResourceTypeName;
  /** `folder`: held by a folder (`folder_id`); `project`: by the project of a folder; `collection`: by an API collection. */
  holder: 'folder' | 'project' | 'collection';
  field: string;
}

/** The asset types the emulator exports and imports, in the order an import applies them. */
const ASSET_KINDS: Record<string, AssetKind> = {
  connection: { resource: 'connection', holder: 'folder', field: 'folder_id' },
  workato_db_table: { resource: 'data_table', holder: 'folder', field: 'folder_id' },
  lookup_table: { resource: 'lookup_table', holder: 'project', field: 'project_id' },
  recipe: { resource: 'recipe', holder: 'folder', field: 'folder_id' },
  api_group: { resource: 'api_collection', holder: 'project', field: 'project_id' },
  api_endpoint: { resource: 'api_endpoint', holder: 'collection', field: 'api_collection_id' },
};
const IMPORT_ORDER = Object.keys(ASSET_KINDS);

/** Fields an asset file never carries: the connection's authorization state (secrets are never stored). */
const NOT_EXPORTED = new Set([
  'authorized_at',
  'authorization_status',
  'authorization_error',
  'connection_lost_at',
  'connection_lost_reason',
  'tags',
]);

/** Bounds of an imported zip: compressed body, entries, and bytes once decompressed (a zip bomb stops here). */
export const PACKAGE_LIMITS = { zipBytes: 16 * 1024 * 1024, entries: 1000, unzippedBytes: 32 * 1024 * 1024 };

const MANIFEST_FILE = 'manifest.json';

type Asset = JsonObject & { id: number; type: string; zip_name: string };

// ---------------------------------------------------------------------------------------------------
// The assets of a folder

/** The folders by id, and for each the chain of folder ids from the top (below the home folder) to it. */
async function folderTree(workspace: Workspace) {
  const folders = new Map((await workspace.store.list(FOLDER)).map((item) => [item.id, item.value]));
  const chains = new Map<string, string[]>();
  const chainOf = (folderId: unknown): string[] => {
    if (folderId === null || folderId === undefined) return [];
    const start = String(folderId);
    let chain = chains.get(start);
    if (!chain) {
      chain = [];
      // Top first; the home folder is the root (no name in paths); a cycle (only a seed can make one) stops the walk.
      for (let id: string | undefined = start; id !== undefined && folders.has(id) && !chain.includes(id); ) {
        if (folders.get(id)?.$home === true) break;
        chain.unshift(id);
        const parent: unknown = folders.get(id)?.parent_id;
        id = parent === null || parent === undefined ? undefined : String(parent);
      }
      chains.set(start, chain);
    }
    return chain;
  };
  const names = (chain: string[]) => chain.map((each) => String(folders.get(each)?.name ?? ''));
  return { folders, chainOf, names };
}

/** The folder holding an item of the kind: its own, its project's, or its API collection's project's. */
async function holdingFolder(workspace: Workspace, kind: AssetKind, item: JsonObject): Promise<unknown> {
  let projectId: unknown = item[kind.field];
  if (kind.holder === 'folder') return projectId;
  if (kind.holder === 'collection') {
    projectId = (await workspace.store.get('api_collection', String(item.api_collection_id)))?.value.project_id;
  }
  if (projectId === null || projectId === undefined) return undefined;
  return (await workspace.store.get(PROJECT, String(projectId)))?.value.folder_id;
}

/**
 * What the folder (the root without `folderId`) and its sub-folders hold, at any depth, as export assets:
 * recipes, connections and data tables, and the lookup tables, API collections and endpoints of the
 * projects whose folders are there. An unknown folder is a 404.
 */
export async function folderAssets(workspace: Workspace, folderId: unknown): Promise<Asset[]> {
  const tree = await folderTree(workspace);
  const start = folderId === undefined || folderId === null ? undefined : String(folderId);
  if (start !== undefined && !tree.folders.has(start)) throw notFound(FOLDER, start);
  const startsAtRoot = start === undefined || tree.folders.get(start)?.$home === true;
  const assets: Asset[] = [];
  for (const type of ['recipe', 'connection', 'workato_db_table', 'lookup_table', 'api_group', 'api_endpoint']) {
    const kind = ASSET_KINDS[type] as AssetKind;
    for (const { value } of await workspace.store.list(kind.resource)) {
      // Integer ids are the platform's; data tables (UUIDs) are numbered by their place instead.
      const id = Number.isSafeInteger(Number(value.id)) ? Number(value.id) : assets.length + 1;
      const chain = tree.chainOf(await holdingFolder(workspace, kind, value));
      if (!startsAtRoot && !chain.includes(start as string)) continue;
      const names = tree.names(chain);
      const name = typeof value.name === 'string' ? value.name : '';
      assets.push({
        id,
        name,
        type,
        version: type === 'recipe' && Number.isSafeInteger(value.version_no) ? (value.version_no as number) : 1,
        folder: names.at(-1) ?? '',
        absolute_path: names.length > 0 ? names.join('/') : 'All projects',
        root_folder: chain.length === 0,
        unreachable: false,
        zip_name: `${slug(name) || `${type}_${id}`}.${type}.json`,
        checked: true,
        status: 'added',
        $key: String(value.id),
      });
    }
  }
  return assets;
}

/** A name as a file name: lower case, runs of other characters as `_` (`Orders to NetSuite` → `orders_to_netsuite`). */
function slug(name: string): string {
  return name
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '_')
    .replace(/^_+|_+$/g, '');
}

// ---------------------------------------------------------------------------------------------------
// Export manifests and exports

/**
 * The manifest's asset list as kept (`$assets`): the sent assets, each completed (`checked` true,
 * `zip_name` `asset_<index>.<type>.json`) and checked to exist, or the folder's assets when
 * `auto_generate_assets` is true. An asset of a type the emulator does not package, or one that does
 * not exist, is refused with the operation's 400.
 */
async function manifestAssets(workspace: Workspace, op: EngineOperation, input: JsonObject): Promise<JsonObject[]> {
  if (input.auto_generate_assets === true) {
    if (input.folder_id === undefined) throw missingReference(op.operation, 'folder_id', FOLDER, 'none');
    return (await folderAssets(workspace, input.folder_id)).map(({ status: _status, ...asset }) => asset);
  }
  const sent = Array.isArray(input.assets) ? (input.assets as JsonObject[]) : [];
  const kept: JsonObject[] = [];
  for (const [index, asset] of sent.entries()) {
    const kind = ASSET_KINDS[String(asset.type)];
    if (!kind)
      throw new InvalidRequest(
        'INVALID_REQUEST',
        `assets[${index}]: the emulator cannot package ${asset.type} assets`,
        {
          errors: [
            { pointer: `/export_manifest/assets/${index}/type`, message: `is not one of ${IMPORT_ORDER.join(', ')}` },
          ],
        },
      );
    const key = await assetKey(workspace, kind, asset);
    if (key === undefined) throw missingReference(op.operation, `assets[${index}].id`, kind.resource, asset.id);
    kept.push({ checked: true, zip_name: `asset_${index}.${asset.type}.json`, ...asset, $key: key });
  }
  return kept;
}

/** The stored id of the asset a manifest names: its id, or for a data table its place in the folder assets. */
async function assetKey(workspace: Workspace, kind: AssetKind, asset: JsonObject): Promise<string | undefined> {
  if (typeof asset.$key === 'string')
    return (await workspace.store.get(kind.resource, asset.$key)) ? asset.$key : undefined;
  if (await workspace.store.get(kind.resource, String(asset.id))) return String(asset.id);
  const listed = (await folderAssets(workspace, undefined)).find((a) => a.id === asset.id && a.type === asset.type);
  return typeof listed?.$key === 'string' ? listed.$key : undefined;
}

async function manifestFields(workspace: Workspace, op: EngineOperation, input: JsonObject): Promise<JsonObject> {
  const fields: JsonObject = {};
  if (typeof input.name === 'string') fields.name = input.name;
  // The folder first: a missing one is the request's reference error (the operation's 400), not
  // list_folder_assets' 404 when the assets are generated from it.
  if (input.folder_id !== undefined) {
    const tree = await folderTree(workspace);
    if (!tree.folders.has(String(input.folder_id)))
      throw missingReference(op.operation, 'folder_id', FOLDER, input.folder_id);
    fields.$folder_id = input.folder_id;
    fields.project_path = tree.names(tree.chainOf(input.folder_id)).join('/') || 'All projects';
  }
  if (input.assets !== undefined || input.auto_generate_assets === true)
    fields.$assets = await manifestAssets(workspace, op, input);
  for (const flag of ['include_data', 'include_tags'])
    if (typeof input[flag] === 'boolean') fields[`$${flag}`] = input[flag];
  return fields;
}

/** The fields of an item that its asset file carries: what a create may set, without ids and references. */
function portable(workspace: Workspace, type: ResourceType, value: JsonObject): JsonObject {
  const properties = propertiesOf(type.schema);
  const refs = new Set(type.refs.map((ref) => ref.field));
  const fields: JsonObject = {};
  for (const [name, field] of Object.entries(value)) {
    const schema = properties[name];
    if (!schema || name === type.id.field || refs.has(name) || NOT_EXPORTED.has(name)) continue;
    if (name === 'created_at' || name === 'updated_at' || name === type.states?.field) continue;
    if (resolve(workspace.values.document, schema).readOnly === true) continue;
    fields[name] = field;
  }
  return fields;
}

/** A recipe's config lines name their connection by name in a package (ids differ between workspaces). */
async function configByName(workspace: Workspace, config: unknown): Promise<unknown> {
  if (!Array.isArray(config)) return config;
  const lines: JsonObject[] = [];
  for (const line of config as JsonObject[]) {
    const { account_id, ...rest } = line;
    const connection =
      account_id === null || account_id === undefined
        ? undefined
        : await workspace.store.get('connection', String(account_id));
    lines.push({ ...rest, account_id: null, connection_name: connection?.value.name ?? null });
  }
  return lines;
}

/** The content of an asset's file: its portable fields, with rows, endpoints' collection and connections by name. */
async function assetFile(
  workspace: Workspace,
  asset: JsonObject,
  item: StoredItem,
  includeData: boolean,
): Promise<JsonObject> {
  const kind = ASSET_KINDS[String(asset.type)] as AssetKind;
  const type = workspace.types.get(kind.resource) as ResourceType;
  const content: JsonObject = { type: asset.type, ...portable(workspace, type, item.value) };
  if (asset.type === 'recipe') content.config = await configByName(workspace, item.value.config);
  if (asset.type === 'lookup_table' && includeData)
    content.rows = (await workspace.store.list('lookup_table_row', item.id)).map((row) => row.value.data);
  if (asset.type === 'api_endpoint') {
    const collection = await workspace.store.get('api_collection', String(item.value.api_collection_id));
    const recipe = await workspace.store.get('recipe', String(item.value.flow_id));
    content.api_collection = collection?.value.name ?? null;
    delete content.flow_id;
    content.recipe_name = recipe?.value.name ?? null;
  }
  return content;
}

/**
 * The files of a package built from the manifest now: `manifest.json` and one file per checked asset,
 * at `<path of its folder below the manifest's folder>/<zip_name>`. An asset gone since the manifest
 * was made fails the build, naming it.
 */
async function packageFiles(workspace: Workspace, manifest: StoredItem): Promise<Record<string, JsonObject>> {
  const tree = await folderTree(workspace);
  const base = manifest.value.$folder_id;
  const baseChain = base === undefined ? [] : tree.chainOf(base);
  const includeData = manifest.value.$include_data === true;
  const files: Record<string, JsonObject> = {};
  const listed: JsonObject[] = [];
  for (const asset of (manifest.value.$assets as JsonObject[] | undefined) ?? []) {
    if (asset.checked === false) continue;
    const kind = ASSET_KINDS[String(asset.type)] as AssetKind;
    const item = await workspace.store.get(kind.resource, String(asset.$key));
    if (!item) throw new Error(`${asset.type} ${asset.id} (${asset.zip_name}) no longer exists`);
    const chain = tree.chainOf(await holdingFolder(workspace, kind, item.value));
    const below = baseChain.every((id, index) => chain[index] === id) ? chain.slice(baseChain.length) : chain;
    const path = [...tree.names(below), String(asset.zip_name)].join('/');
    files[path] = await assetFile(workspace, asset, item, includeData);
    listed.push({ path, type: asset.type, name: item.value.name ?? '' });
  }
  files[MANIFEST_FILE] = {
    export_manifest: { id: manifest.value.id, name: manifest.value.name },
    exported_at: workspace.values.now,
    assets: listed,
  };
  return files;
}

// ---------------------------------------------------------------------------------------------------
// Imports

/** One asset file of an imported package, checked. */
interface Entry {
  path: string;
  /** Folder names from the import folder down to the asset's folder. */
  folders: string[];
  type: string;
  content: JsonObject;
}

/** A 400 naming the zip entry at fault; nothing has been changed when it is thrown. */
/** The zip library, loaded on first use: most emulators never see a package, and start-up pays for every import. */
const fflate = () => import('fflate');

function badEntry(path: string, why: string): InvalidRequest {
  return new InvalidRequest('INVALID_REQUEST', `The package cannot be imported: ${path}: ${why}`, {
    errors: [{ pointer: '/body', message: `${path}: ${why}` }],
  });
}

/**
 * The asset files of a package zip, every one checked before anything is imported: a zip fflate cannot
 * read, more than PACKAGE_LIMITS entries or decompressed bytes (a zip bomb is stopped before it is
 * inflated: fflate inflates no entry past its declared size), a path that is absolute or climbs out of
 * its folder (`..`), a missing `manifest.json`, a file that is not a JSON object with a `name`, or a
 * name that is not `<name>.<type>.json` with a type the emulator imports is a 400 naming the entry.
 */
export async function readPackage(bytes: Uint8Array): Promise<Entry[]> {
  const { strFromU8, unzipSync } = await fflate();
  let declared = 0;
  let count = 0;
  let files: Record<string, Uint8Array>;
  try {
    files = unzipSync(bytes, {
      filter: (file) => {
        count += 1;
        declared += file.originalSize;
        if (count > PACKAGE_LIMITS.entries)
          throw badEntry(file.name, `the package holds more than ${PACKAGE_LIMITS.entries} entries`);
        if (declared > PACKAGE_LIMITS.unzippedBytes)
          throw badEntry(file.name, `the package decompresses to more than ${PACKAGE_LIMITS.unzippedBytes} bytes`);
        return true;
      },
    });
  } catch (error) {
    if (error instanceof InvalidRequest) throw error;
    throw badEntry('(the zip file)', `not a readable zip archive (${(error as Error).message})`);
  }
  if (!files[MANIFEST_FILE]) throw badEntry(MANIFEST_FILE, 'missing: every package holds one at its top');
  const entries: Entry[] = [];
  for (const [path, data] of Object.entries(files)) {
    if (path.endsWith('/')) continue;
    const parts = path.split('/');
    if (
      path.startsWith('/') ||
      path.includes('\\') ||
      parts.some((part) => part === '..' || part === '.' || part === '')
    )
      throw badEntry(path, 'the path leaves the package folder (absolute, `..`, `.` or empty parts)');
    let content: unknown;
    try {
      content = JSON.parse(strFromU8(data));
    } catch (error) {
      throw badEntry(path, `not JSON (${(error as Error).message})`);
    }
    if (path === MANIFEST_FILE) continue;
    const type = /\.([a-z_]+)\.json$/.exec(path)?.[1];
    if (!type || !ASSET_KINDS[type])
      throw badEntry(
        path,
        `unknown asset type ${type ?? '(the name is not <name>.<type>.json)'}; the emulator imports ${IMPORT_ORDER.join(', ')}`,
      );
    if (!isObject(content) || typeof content.name !== 'string' || content.name === '')
      throw badEntry(path, 'not an asset: a JSON object with a `name` is expected');
    entries.push({ path, folders: parts.slice(0, -1), type, content });
  }
  return entries.sort((a, b) => IMPORT_ORDER.indexOf(a.type) - IMPORT_ORDER.indexOf(b.type));
}

/** What the import did to one asset. */
type ImportResult = 'created' | 'updated' | 'unchanged';

class Importer {
  readonly report: JsonObject[] = [];
  readonly recipeStatus: JsonObject[] = [];
  private readonly folderIds = new Map<string, number>();

  constructor(
    private readonly workspace: Workspace,
    private readonly op: EngineOperation,
    private readonly target: StoredItem,
    private readonly restart: boolean,
  ) {}

  /** Refuses (400, naming the entry) before any change: a recipe the package updates is running and `restart_recipes` is not true; a project asset without a project to go to. */
  async check(entries: Entry[]): Promise<void> {
    for (const entry of entries) {
      const kind = ASSET_KINDS[entry.type] as AssetKind;
      if (kind.holder !== 'folder' && (this.target.value.project_id ?? null) === null)
        throw badEntry(entry.path, `a ${entry.type} belongs to a project: import into a project or one of its folders`);
      const type = this.workspace.types.get(kind.resource) as ResourceType;
      const fields = portable(this.workspace, type, entry.content);
      const problems = this.workspace.itemProblems(type.name, complete(this.workspace.values, type.schema, fields));
      if (problems) throw badEntry(entry.path, `not a valid ${entry.type}: ${problems}`);
      if (entry.type === 'api_endpoint' && (await this.recipeNamed(entry, entries)) === undefined)
        throw badEntry(
          entry.path,
          `its recipe ${JSON.stringify(entry.content.recipe_name)} is not in the package or the workspace`,
        );
      if (entry.type !== 'recipe' || this.restart) continue;
      const folderId = await this.existingFolder(entry.folders);
      const match = folderId === undefined ? undefined : await this.match(kind, entry, folderId);
      if (match?.value.running === true)
        throw badEntry(entry.path, `recipe ${match.id} is running: send restart_recipes=true to update it`);
    }
  }

  async apply(entries: Entry[]): Promise<void> {
    for (const entry of entries) {
      const kind = ASSET_KINDS[entry.type] as AssetKind;
      const holder = await this.holderOf(kind, entry);
      const match = await this.match(kind, entry, holder);
      const fields = await this.fieldsOf(kind, entry, holder);
      const op = actingOn(this.workspace, this.op, kind.resource);
      let item: JsonObject;
      let result: ImportResult;
      if (!match) {
        item = await this.workspace.create(op, fields, undefined);
        result = 'created';
      } else {
        const changed = Object.entries(fields).some(
          ([name, value]) => JSON.stringify(match.value[name]) !== JSON.stringify(value),
        );
        item = changed ? await this.workspace.update(op, match, fields) : match.value;
        result = changed ? 'updated' : 'unchanged';
      }
      if (entry.type === 'lookup_table' && Array.isArray(entry.content.rows))
        result = await this.replaceRows(String(item.id), entry.content.rows, result);
      this.report.push({ zip_name: entry.path, type: entry.type, name: entry.content.name, id: item.id, result });
      if (entry.type === 'recipe') {
        const restarted = item.running === true && result !== 'unchanged';
        this.recipeStatus.push({
          id: item.id,
          import_result: restarted ? 'restarted' : 'no_update_or_update_without_restart',
        });
      }
    }
  }

  /** The id of the folder, project or collection the asset goes to (folders are made as needed). */
  private async holderOf(kind: AssetKind, entry: Entry): Promise<string> {
    if (kind.holder === 'folder') return String(await this.folder(entry.folders));
    if (kind.holder === 'project') return String(this.target.value.project_id);
    const collections = await this.workspace.store.list('api_collection');
    const named = collections.find(
      (c) =>
        c.value.name === entry.content.api_collection &&
        String(c.value.project_id) === String(this.target.value.project_id),
    );
    if (!named)
      throw badEntry(
        entry.path,
        `its API collection ${JSON.stringify(entry.content.api_collection)} is not in the package or the project`,
      );
    return named.id;
  }

  /** The recipe serving an endpoint (`recipe_name`): the one the package imported, else one of that name; with `entries`, whether there will be one. */
  private async recipeNamed(entry: Entry, entries?: Entry[]): Promise<string | undefined> {
    const name = entry.content.recipe_name;
    const imported = this.report.find((asset) => asset.type === 'recipe' && asset.name === name);
    if (imported) return String(imported.id);
    if (entries?.some((other) => other.type === 'recipe' && other.content.name === name)) return 'in the package';
    return (await this.workspace.store.list('recipe')).find((recipe) => recipe.value.name === name)?.id;
  }

  /** The asset the platform would update: same type and name in the same folder (project, API collection). */
  private async match(kind: AssetKind, entry: Entry, holder: string | number): Promise<StoredItem | undefined> {
    return (await this.workspace.store.list(kind.resource)).find(
      (item) => item.value.name === entry.content.name && String(item.value[kind.field]) === String(holder),
    );
  }

  private async fieldsOf(kind: AssetKind, entry: Entry, holder: string): Promise<JsonObject> {
    const type = this.workspace.types.get(kind.resource) as ResourceType;
    const fields = portable(this.workspace, type, entry.content);
    const holderSchema = resolve(this.workspace.values.document, propertiesOf(type.schema)[kind.field] ?? {});
    fields[kind.field] = holderSchema.type === 'string' ? holder : Number(holder);
    if (entry.type === 'recipe' && Array.isArray(entry.content.config)) {
      const lines: JsonObject[] = [];
      for (const line of entry.content.config as JsonObject[]) {
        const { connection_name, ...rest } = line;
        const connection =
          (await this.workspace.store.list('connection')).find(
            (c) => c.value.name === connection_name && String(c.value.folder_id) === holder,
          ) ?? (await this.workspace.store.list('connection')).find((c) => c.value.name === connection_name);
        lines.push({ ...rest, account_id: connection ? Number(connection.id) : null });
      }
      fields.config = lines;
    }
    if (entry.type === 'api_endpoint') fields.flow_id = Number(await this.recipeNamed(entry));
    return fields;
  }

  /** A lookup table's rows become the package's, in its order; unchanged when they already are. */
  private async replaceRows(tableId: string, rows: unknown[], result: ImportResult): Promise<ImportResult> {
    const table = await this.workspace.store.get('lookup_table', tableId);
    if (!table) return result;
    const held = await this.workspace.store.list('lookup_table_row', tableId);
    if (JSON.stringify(held.map((row) => row.value.data)) === JSON.stringify(rows)) return result;
    const op = actingOn(this.workspace, this.op, 'lookup_table_row');
    for (const row of held) await this.workspace.delete(op, row);
    for (const data of rows) await this.workspace.create(op, { data: isObject(data) ? data : {} }, table);
    return result === 'created' ? result : 'updated';
  }

  /** The folder at `names` below the import folder, made (with the parent's project) where missing. */
  private async folder(names: string[]): Promise<number> {
    let id = Number(this.target.id);
    let projectId = this.target.value.project_id ?? null;
    for (const [depth, name] of names.entries()) {
      const key = names.slice(0, depth + 1).join('/');
      const known = this.folderIds.get(key) ?? (await this.childFolder(id, name))?.id;
      if (known !== undefined) {
        id = Number(known);
      } else {
        const made = await this.workspace.create(
          actingOn(this.workspace, this.op, FOLDER),
          { name, parent_id: id, is_project: false, project_id: projectId },
          undefined,
        );
        id = Number(made.id);
      }
      projectId = (await this.workspace.store.get(FOLDER, String(id)))?.value.project_id ?? projectId;
      this.folderIds.set(key, id);
    }
    return id;
  }

  /** The folder at `names` if it exists already (before the import makes any). */
  private async existingFolder(names: string[]): Promise<number | undefined> {
    let id = Number(this.target.id);
    for (const name of names) {
      const child = await this.childFolder(id, name);
      if (!child) return undefined;
      id = Number(child.id);
    }
    return id;
  }

  private async childFolder(parentId: number, name: string): Promise<StoredItem | undefined> {
    return (await this.workspace.store.list(FOLDER)).find(
      (folder) => folder.value.name === name && Number(folder.value.parent_id) === parentId,
    );
  }
}

// ---------------------------------------------------------------------------------------------------

export const packagesHandlers: Record<string, Handler> = {
  'folders.assets': async (workspace, _op, { params }) => {
    const assets = await folderAssets(workspace, params.folder_id);
    return { body: { result: { assets: assets.map(({ $key: _key, ...asset }) => asset) } } };
  },

  /** `create_export_manifest`: the manifest, keeping its assets (hidden `$assets`) and folder for the exports. */
  'export_manifests.create': async (workspace, op, { body }) => {
    const input = ((body as JsonObject).export_manifest ?? {}) as JsonObject;
    const fields = await manifestFields(workspace, op, input);
    return { item: await workspace.create(op, { $assets: [], ...fields }, undefined) };
  },

  /** `update_export_manifest`: the fields sent replace the kept ones (a sent `assets` list the whole list). */
  'export_manifests.update': async (workspace, op, { params, body }) => {
    const manifest = await workspace.itemOf(op, params);
    const input = ((body as JsonObject).export_manifest ?? {}) as JsonObject;
    return { item: await workspace.update(op, manifest, await manifestFields(workspace, op, input)) };
  },

  /**
   * `export_package`: builds the package now (the answer is already `completed`, or `failed` naming the
   * asset that is gone), keeping its files (hidden `$files`) for download_package; an unknown manifest is
   * a 404, an archived one a 400.
   */
  'packages.export': async (workspace, op, { params, host }) => {
    const manifestOp = actingOn(workspace, op, 'export_manifest');
    const manifest = await workspace.store.get('export_manifest', String(params.manifest_id));
    if (!manifest) throw notFound('export manifest', params.manifest_id);
    if (manifest.value.status !== 'working')
      throw new InvalidRequest('INVALID_REQUEST', `export manifest ${manifest.id} is ${manifest.value.status}`);
    let files: Record<string, JsonObject> | undefined;
    let error: string | null = null;
    try {
      files = await packageFiles(workspace, manifest);
    } catch (failure) {
      error = (failure as Error).message;
    }
    const created = await workspace.create(
      op,
      {
        operation_type: 'export',
        status: files ? 'completed' : 'failed',
        // The platform's description types `error` as a string: absent unless the package failed.
        ...(error === null ? {} : { error }),
        export_manifest_id: Number(manifest.id),
        download_url: null,
        $files: files ?? null,
      },
      undefined,
    );
    const stored = (await workspace.store.get(op.type.name, String(created.id))) as StoredItem;
    const download_url = files ? `http://${host ?? '127.0.0.1'}/api/packages/${created.id}/download` : null;
    await workspace.update(manifestOp, manifest, { last_exported_at: workspace.values.now });
    return { item: await workspace.update(op, stored, { download_url }) };
  },

  /** `download_package`: the zip of a completed export (deflated, entries in the order built); anything else has no file (404). */
  'packages.download': async (workspace, op, { params }) => {
    const { id, value } = await workspace.itemOf(op, params);
    if (value.operation_type !== 'export' || value.status !== 'completed' || !isObject(value.$files))
      throw new NotFound(`package ${id} has no file to download (only a completed export has one)`);
    const { strToU8, zipSync } = await fflate();
    const modified = new Date(workspace.values.now);
    const entries = Object.fromEntries(
      Object.entries(value.$files).map(([path, content]) => [path, strToU8(`${JSON.stringify(content, null, 2)}\n`)]),
    );
    return { file: { contentType: 'application/zip', bytes: zipSync(entries, { level: 6, mtime: modified }) } };
  },

  /**
   * `import_package`: the zip's assets are created in the folder (sub-folders as in the zip), or update
   * the asset of the same type and name there, and the package answers `completed` with what happened to
   * each (`assets`, `recipe_status`). The zip is checked whole first (readPackage, Importer.check): a
   * refused package changes nothing. An unknown folder is a 404.
   */
  'packages.import': async (workspace, op, { params, bytes }) => {
    const folderId = String(params.folder_id);
    const target = await workspace.store.get(FOLDER, folderId);
    if (!target) throw notFound(FOLDER, folderId);
    const entries = await readPackage(bytes ?? new Uint8Array());
    const importer = new Importer(workspace, op, target, params.restart_recipes === true);
    await importer.check(entries);
    await importer.apply(entries);
    const item = await workspace.create(
      op,
      {
        operation_type: 'import',
        status: 'completed',
        recipe_status: importer.recipeStatus,
        assets: importer.report,
      },
      undefined,
    );
    return { item };
  },
};
