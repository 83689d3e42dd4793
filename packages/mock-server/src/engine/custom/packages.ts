// Recipe lifecycle management: the assets of a folder, export manifests that keep their asset list,
// packages built from them as zip files in the platform's layout (`manifest.json` and one JSON file
// per asset, `<folder path>/<zip_name>`, in the format of package-format.ts), and imports that create
// or update the assets a zip holds (package-import.ts). Zips are written and read with fflate.

import { InvalidRequest, NotFound } from '../../errors.js';
import type { JsonObject, StoredItem } from '../../store/resource-store.js';
import type { HandlerRegistry, Workspace } from '../contract.js';
import { missingReference, notFound } from '../errors.js';
import { isObject, resolve } from '../schema.js';
import type { EngineOperation } from '../vocabulary.js';
import {
  type AssetKind,
  FOLDER,
  type FolderTree,
  folderAssets,
  folderTree,
  holdingFolder,
  kindOf,
  PACKAGED_TYPES,
} from './package-assets.js';
import { assetFile, CHILDREN, type ExportContext, type FileRef, fileText } from './package-format.js';
import { fflate, Importer, MANIFEST_FILE, readPackage } from './package-import.js';
import { type HeldProperty, heldProperties, isPropertyType, propertyFile } from './package-properties.js';
import { actingOn } from './projects.js';

export { PACKAGE_LIMITS } from './package-import.js';

// ---------------------------------------------------------------------------------------------------
// Export manifests and exports

/**
 * The manifest's asset list as kept (`$assets`): the sent assets, each completed (`checked` true,
 * `zip_name` `asset_<index>.<type>.json`) and checked to exist, or the folder's assets when
 * `auto_generate_assets` is true. An asset that does not exist is refused with the operation's 400
 * (the request schema lists the types the emulator packages).
 */
async function manifestAssets(workspace: Workspace, op: EngineOperation, input: JsonObject): Promise<JsonObject[]> {
  if (input.auto_generate_assets === true) {
    if (input.folder_id === undefined) throw missingReference(op.operation, 'folder_id', FOLDER, 'none');
    return (await folderAssets(workspace, input.folder_id)).map(({ status: _status, ...asset }) => asset);
  }
  const sent = Array.isArray(input.assets) ? (input.assets as JsonObject[]) : [];
  const kept: JsonObject[] = [];
  for (const [index, asset] of sent.entries()) {
    const key = await assetKey(workspace, asset);
    if (key === undefined) throw missingReference(op.operation, `assets[${index}].id`, String(asset.type), asset.id);
    kept.push({ checked: true, zip_name: `asset_${index}.${asset.type}.json`, ...asset, $key: key });
  }
  return kept;
}

/**
 * The key of the asset a manifest names: its stored id, or for string ids its number in the folder
 * assets; a property's owner and name (package-properties.ts).
 */
async function assetKey(workspace: Workspace, asset: JsonObject): Promise<string | undefined> {
  if (isPropertyType(asset.type)) {
    const same = (property: HeldProperty) =>
      property.type === asset.type &&
      (typeof asset.$key === 'string' ? property.key === asset.$key : property.id === asset.id);
    return (await heldProperties(workspace)).find(same)?.key;
  }
  const kind = kindOf(asset.type) as AssetKind;
  if (typeof asset.$key === 'string')
    return (await workspace.store.get(kind.resource, asset.$key)) ? asset.$key : undefined;
  if (await workspace.store.get(kind.resource, String(asset.id))) return String(asset.id);
  const listed = (await folderAssets(workspace, undefined)).find((a) => a.id === asset.id && a.type === asset.type);
  return listed?.$key;
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
    fields.folder_id = Number(input.folder_id);
    fields.project_path = tree.names(tree.chainOf(input.folder_id)).join('/') || 'All projects';
  }
  if (input.assets !== undefined || input.auto_generate_assets === true)
    fields.$assets = await manifestAssets(workspace, op, input);
  for (const flag of ['include_data', 'include_tags'])
    if (typeof input[flag] === 'boolean') fields[`$${flag}`] = input[flag];
  return fields;
}

/** An asset of a package being built: its item, its place in the zip. */
interface Placed {
  asset: JsonObject;
  kind: AssetKind;
  item: StoredItem;
  /** The folder path in the zip (`""` at its top) and the file's path. */
  folder: string;
  path: string;
}

/**
 * The files of a package built from the manifest now: `manifest.json` and one file per checked asset,
 * at `<path of its folder below the manifest's folder>/<zip_name>`. An asset gone since the manifest
 * was made, or two assets at one path, fail the build, naming them.
 */
async function packageFiles(workspace: Workspace, manifest: StoredItem): Promise<Record<string, unknown>> {
  const tree = await folderTree(workspace);
  // Manifests stored before `folder_id` was answered kept it hidden, as `$folder_id`.
  const base = manifest.value.folder_id ?? manifest.value.$folder_id;
  const baseChain = base === undefined || base === null ? [] : tree.chainOf(base);
  const placed: Placed[] = [];
  const properties: { path: string; property: HeldProperty }[] = [];
  const listed: JsonObject[] = [];
  const place = (asset: JsonObject, folderId: unknown) => {
    const folder = relativeFolder(tree, baseChain, folderId);
    const path = [folder, String(asset.zip_name)].filter((part) => part !== '').join('/');
    if (listed.some((other) => other.path === path)) throw new Error(`two assets are at ${path} in the package`);
    return { folder, path };
  };
  const gone = (asset: JsonObject) => new Error(`${asset.type} ${asset.id} (${asset.zip_name}) no longer exists`);
  let held: HeldProperty[] | undefined;
  for (const asset of (manifest.value.$assets as JsonObject[] | undefined) ?? []) {
    if (asset.checked === false) continue;
    if (isPropertyType(asset.type)) {
      held ??= await heldProperties(workspace);
      const property = held.find(({ key }) => key === asset.$key);
      if (!property) throw gone(asset);
      const { path } = place(asset, property.folderId);
      properties.push({ path, property });
      listed.push({ path, type: asset.type, name: property.name });
      continue;
    }
    const kind = kindOf(asset.type) as AssetKind;
    const item = await workspace.store.get(kind.resource, String(asset.$key));
    if (!item) throw gone(asset);
    const { folder, path } = place(asset, await holdingFolder(workspace, kind, item.value));
    placed.push({ asset, kind, item, folder, path });
    listed.push({ path, type: asset.type, name: item.value.name ?? '' });
  }
  const context = exportContext(workspace, tree, baseChain, placed, manifest.value.$include_data === true);
  const files: Record<string, unknown> = {};
  for (const { path, property } of properties) files[path] = propertyFile(property);
  for (const { kind, item, path } of placed) files[path] = await fileWithChildren(context, kind, item);
  files[MANIFEST_FILE] = {
    export_manifest: { id: manifest.value.id, name: manifest.value.name },
    exported_at: workspace.values.now,
    assets: listed,
  };
  return files;
}

/** The names of the folders from the manifest's folder down to `folderId` (from the top when it is not below it). */
function relativeFolder(tree: FolderTree, baseChain: string[], folderId: unknown): string {
  const chain = tree.chainOf(folderId);
  const below = baseChain.every((id, index) => chain[index] === id) ? chain.slice(baseChain.length) : chain;
  return tree.names(below).join('/');
}

/** Where the package's files name other assets' files: in the package, else where an export of their folder puts them. */
function exportContext(
  workspace: Workspace,
  tree: FolderTree,
  baseChain: string[],
  placed: Placed[],
  includeData: boolean,
): ExportContext {
  let everything: Promise<Awaited<ReturnType<typeof folderAssets>>> | undefined;
  return {
    workspace,
    includeData,
    fileOf: async (type, key): Promise<FileRef | undefined> => {
      const inPackage = placed.find(({ kind, item }) => kind.type === type && item.id === key);
      if (inPackage)
        return {
          zip_name: String(inPackage.asset.zip_name),
          name: String(inPackage.item.value.name),
          folder: inPackage.folder,
        };
      everything ??= folderAssets(workspace, undefined);
      const listed = (await everything).find((asset) => asset.type === type && asset.$key === key);
      if (!listed) return undefined;
      const kind = kindOf(type) as AssetKind;
      const item = (await workspace.store.get(kind.resource, key)) as StoredItem;
      const folder = relativeFolder(tree, baseChain, await holdingFolder(workspace, kind, item.value));
      return { zip_name: listed.zip_name, name: listed.name as string, folder };
    },
  };
}

/** An asset's file with its children (a lookup table's rows with `include_data`, an MCP server's tools). */
async function fileWithChildren(context: ExportContext, kind: AssetKind, item: StoredItem): Promise<JsonObject> {
  const content = await assetFile(context, kind, item);
  const children = CHILDREN[kind.type];
  if (children?.exported(context.includeData)) {
    const held = await context.workspace.store.list(children.resource, item.id);
    content[children.field] = await Promise.all(held.map((child) => children.toFile(context.workspace, child)));
  }
  return content;
}

/** The platform's asset types (ExportAssetType): an import skips files named after no such type. */
function platformAssetTypes(workspace: Workspace): readonly string[] {
  const schema = resolve(workspace.values.document, { $ref: '#/components/schemas/ExportAssetType' });
  return Array.isArray(schema.enum) ? schema.enum.map(String) : PACKAGED_TYPES;
}

/** An import's name: the manifest's in its `manifest.json`, else the import folder's. */
function importName(manifest: unknown, folder: StoredItem): string {
  const named = isObject(manifest) && isObject(manifest.export_manifest) ? manifest.export_manifest.name : undefined;
  return typeof named === 'string' && named !== '' ? named : String(folder.value.name ?? '');
}

// ---------------------------------------------------------------------------------------------------

export const packagesHandlers = {
  'folders.assets': async (workspace, _op, { params }) => {
    const assets = await folderAssets(workspace, params.folder_id);
    return { body: { result: { assets: assets.map(({ $key: _key, ...asset }) => asset) } } };
  },

  /** `create_export_manifest`: the manifest, keeping its assets (hidden `$assets`) and folder for the exports. */
  'export_manifests.create': async (workspace, op, { body }) => {
    const input = body.export_manifest ?? {};
    const fields = await manifestFields(workspace, op, input);
    return { item: await workspace.create(op, { $assets: [], folder_id: null, ...fields }, undefined) };
  },

  /** `update_export_manifest`: the fields sent replace the kept ones (a sent `assets` list the whole list). */
  'export_manifests.update': async (workspace, op, { params, body }) => {
    const manifest = await workspace.itemOf(op, params);
    const input = body.export_manifest ?? {};
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
    let files: Record<string, unknown> | undefined;
    let error: string | null = null;
    try {
      files = await packageFiles(workspace, manifest);
    } catch (failure) {
      error = (failure as Error).message;
    }
    const created = await workspace.create(
      op,
      {
        name: manifest.value.name,
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

  /**
   * `download_package`: the zip of a completed export (deflated, entries in the order built, each file
   * as `wk pull` stores it); anything else has no file (404).
   */
  'packages.download': async (workspace, op, { params }) => {
    const { id, value } = await workspace.itemOf(op, params);
    if (value.operation_type !== 'export' || value.status !== 'completed' || !isObject(value.$files))
      throw new NotFound(`package ${id} has no file to download (only a completed export has one)`);
    const { strToU8, zipSync } = await fflate();
    const modified = new Date(workspace.values.now);
    const entries = Object.fromEntries(
      Object.entries(value.$files).map(([path, content]) => [path, strToU8(fileText(content))]),
    );
    return { file: { contentType: 'application/zip', bytes: zipSync(entries, { level: 6, mtime: modified }) } };
  },

  /**
   * `import_package`: the zip's assets are created in the folder (sub-folders as in the zip), or update
   * the asset they match there, and the package answers `completed` with what happened to each
   * (`assets`, `recipe_status`) and the entries left alone (`skipped`). The zip may be a whole package
   * or only some of its files, with or without `manifest.json`; it is checked whole first
   * (readPackage, Importer.check): a refused package changes nothing. An unknown folder is a 404.
   */
  'packages.import': async (workspace, op, { params, bytes }) => {
    const folderId = String(params.folder_id);
    const target = await workspace.store.get(FOLDER, folderId);
    if (!target) throw notFound(FOLDER, folderId);
    const { entries, skipped, manifest } = await readPackage(bytes ?? new Uint8Array(), platformAssetTypes(workspace));
    const importer = new Importer(workspace, op, target, params.restart_recipes === true);
    await importer.check(entries);
    await importer.apply(entries);
    const item = await workspace.create(
      op,
      {
        name: importName(manifest, target),
        operation_type: 'import',
        status: 'completed',
        recipe_status: importer.recipeStatus,
        assets: importer.report,
        skipped,
      },
      undefined,
    );
    return { item };
  },
} satisfies Partial<HandlerRegistry>;
