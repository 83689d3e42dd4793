// The assets of recipe lifecycle packages: which resource each asset type is, what places it (a
// folder, a folder's project, an API collection), and the assets a folder holds as list_folder_assets
// and export manifests see them, each with the file name (`zip_name`) it has in a package. Properties
// are assets too, though no resources (package-properties.ts).

import { RESOURCE_TYPES, type ResourceTypeName } from '../../generated/resource-types.js';
import type { JsonObject } from '../../store/resource-store.js';
import type { Workspace } from '../contract.js';
import { notFound } from '../errors.js';
import { heldProperties, PROPERTY_TYPES } from './package-properties.js';

export const FOLDER = RESOURCE_TYPES.folder;
const PROJECT = RESOURCE_TYPES.project;

/** Where an asset type of the packages lives: its resource type and the field that places it. */
export interface AssetKind {
  type: string;
  resource: ResourceTypeName;
  /** `folder`: held by a folder (`field`); `project`: by the project of a folder; `collection`: by an API collection. */
  holder: 'folder' | 'project' | 'collection';
  field: string;
}

/**
 * The asset types the emulator exports and imports (PackagedAssetType in the spec), in the order an
 * import applies them: what others name comes first (connections before the recipes that use them,
 * recipes before the endpoints, skills and MCP servers they serve).
 */
export const ASSET_KINDS: readonly AssetKind[] = [
  { type: 'connection', resource: 'connection', holder: 'folder', field: 'folder_id' },
  { type: 'workato_db_table', resource: 'data_table', holder: 'folder', field: 'folder_id' },
  { type: 'lookup_table', resource: 'lookup_table', holder: 'project', field: 'project_id' },
  { type: 'recipe', resource: 'recipe', holder: 'folder', field: 'folder_id' },
  { type: 'api_group', resource: 'api_collection', holder: 'project', field: 'project_id' },
  { type: 'api_endpoint', resource: 'api_endpoint', holder: 'collection', field: 'api_collection_id' },
  { type: 'agentic_skill', resource: 'skill', holder: 'folder', field: 'folder_id' },
  { type: 'agentic_knowledge_base', resource: 'knowledge_base', holder: 'folder', field: 'folder_id' },
  { type: 'agentic_genie', resource: 'genie', holder: 'folder', field: 'folder_id' },
  { type: 'mcp_server', resource: 'mcp_server', holder: 'folder', field: 'folder_id' },
];

/** The order list_folder_assets answers the types in. */
const LISTING_ORDER = [
  'recipe',
  'connection',
  'workato_db_table',
  'lookup_table',
  'api_group',
  'api_endpoint',
  'agentic_skill',
  'agentic_knowledge_base',
  'agentic_genie',
  'mcp_server',
];

export function kindOf(type: unknown): AssetKind | undefined {
  return ASSET_KINDS.find((kind) => kind.type === type);
}

/** Every asset type the emulator packages, in the order an import applies them: properties, which recipes read, first. */
export const PACKAGED_TYPES: readonly string[] = [...PROPERTY_TYPES, ...ASSET_KINDS.map((kind) => kind.type)];

export type Asset = JsonObject & { id: number; type: string; zip_name: string; $key: string };

/** The folders by id, and for each the chain of folder ids from the top (below the home folder) to it. */
export async function folderTree(workspace: Workspace) {
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

export type FolderTree = Awaited<ReturnType<typeof folderTree>>;

/** The folder holding an item of the kind: its own, its project's, or its API collection's project's. */
export async function holdingFolder(workspace: Workspace, kind: AssetKind, item: JsonObject): Promise<unknown> {
  let projectId: unknown = item[kind.field];
  if (kind.holder === 'folder') return projectId;
  if (kind.holder === 'collection') {
    projectId = (await workspace.store.get('api_collection', String(item.api_collection_id)))?.value.project_id;
  }
  if (projectId === null || projectId === undefined) return undefined;
  return (await workspace.store.get(PROJECT, String(projectId)))?.value.folder_id;
}

/**
 * What the folder (the root without `folderId`) and its sub-folders hold, at any depth, as export
 * assets: recipes, connections, data tables, skills, knowledge bases, genies and MCP servers, and the
 * lookup tables, API collections, endpoints and properties of the projects whose folders are there;
 * then the environment's properties, all of them whatever the folder, as the platform's export of a
 * folder carries them (they belong to no folder: the top of the package). An unknown folder is a 404. Each asset's `zip_name` is its name as a file name, made unique among the assets
 * of its type in its folder (`orders.recipe.json`, then `orders_2.recipe.json`).
 */
export async function folderAssets(workspace: Workspace, folderId: unknown): Promise<Asset[]> {
  const tree = await folderTree(workspace);
  const start = folderId === undefined || folderId === null ? undefined : String(folderId);
  if (start !== undefined && !tree.folders.has(start)) throw notFound(FOLDER, start);
  const startsAtRoot = start === undefined || tree.folders.get(start)?.$home === true;
  const assets: Asset[] = [];
  const taken = new Set<string>();
  for (const type of LISTING_ORDER) {
    const kind = kindOf(type) as AssetKind;
    for (const [place, { value }] of (await workspace.store.list(kind.resource)).entries()) {
      const chain = tree.chainOf(await holdingFolder(workspace, kind, value));
      const name = typeof value.name === 'string' ? value.name : '';
      // Integer ids are the platform's; the others (UUIDs, `gin-…`) are numbered by creation order.
      const id = Number.isSafeInteger(Number(value.id)) ? Number(value.id) : place + 1;
      const zipName = uniqueZipName(taken, chain, `${slug(name) || `${type}_${id}`}`, type);
      if (!startsAtRoot && !chain.includes(start as string)) continue;
      const version = type === 'recipe' && Number.isSafeInteger(value.version_no) ? (value.version_no as number) : 1;
      assets.push(assetIn(tree, chain, { id, name, type, version, zip_name: zipName, $key: String(value.id) }));
    }
  }
  for (const property of await heldProperties(workspace)) {
    const chain = tree.chainOf(property.folderId);
    const zipName = uniqueZipName(
      taken,
      chain,
      slug(property.name) || `${property.type}_${property.id}`,
      property.type,
    );
    if (property.type === 'project_property' && !startsAtRoot && !chain.includes(start as string)) continue;
    const { id, name, type, key } = property;
    assets.push(assetIn(tree, chain, { id, name, type, version: 1, zip_name: zipName, $key: key }));
  }
  return assets;
}

/** An asset as listed, in the folder at the end of `chain` (the root when empty). */
function assetIn(
  tree: FolderTree,
  chain: string[],
  own: Pick<Asset, 'id' | 'type' | 'zip_name' | '$key'> & { name: string; version: number },
): Asset {
  const names = tree.names(chain);
  const { id, name, type, version, zip_name, $key } = own;
  return {
    id,
    name,
    type,
    version,
    folder: names.at(-1) ?? '',
    absolute_path: names.length > 0 ? names.join('/') : 'All projects',
    root_folder: chain.length === 0,
    unreachable: false,
    zip_name,
    checked: true,
    status: 'added',
    $key,
  };
}

/** `<base>.<type>.json`, or `<base>_<n>.<type>.json` when another asset of its folder has that file already. */
function uniqueZipName(taken: Set<string>, chain: string[], base: string, type: string): string {
  for (let n = 1; ; n += 1) {
    const zipName = `${n === 1 ? base : `${base}_${n}`}.${type}.json`;
    const path = [...chain, zipName].join('/');
    if (taken.has(path)) continue;
    taken.add(path);
    return zipName;
  }
}

/** A name as a file name: lower case, runs of other characters as `_` (`Orders to NetSuite` → `orders_to_netsuite`). */
function slug(name: string): string {
  return name
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '_')
    .replace(/^_+|_+$/g, '');
}
