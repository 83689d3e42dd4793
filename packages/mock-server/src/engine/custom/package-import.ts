// Importing a package zip into a folder: the zip read and checked whole (readPackage, Importer.check)
// before anything changes, then each asset created, or updating the asset it matches. A whole
// package (with `manifest.json`) and a partial one (only the files `wk push` found changed) are
// read alike; entries that are no assets are skipped and reported.

import { InvalidRequest } from '../../errors.js';
import type { JsonObject, StoredItem } from '../../store/resource-store.js';
import type { Workspace } from '../contract.js';
import { isObject, propertiesOf, resolve } from '../schema.js';
import { complete } from '../values.js';
import type { EngineOperation, ResourceType } from '../vocabulary.js';
import { type Asset, type AssetKind, FOLDER, folderAssets, kindOf, PACKAGED_TYPES } from './package-assets.js';
import { badEntry, CHILDREN, type ImportContext, sameContent, storedFields } from './package-format.js';
import {
  addMissingProperties,
  isPropertyType,
  type PropertyType,
  propertiesAfter,
  propertyFileProblem,
  propertyId,
  propertyOwnerFor,
} from './package-properties.js';
import { actingOn } from './projects.js';
import { PROPERTY_LIMIT, type PropertyOwner } from './properties.js';

/** Bounds of an imported zip: compressed body, entries, and bytes once decompressed (a zip bomb stops here). */
export const PACKAGE_LIMITS = { zipBytes: 16 * 1024 * 1024, entries: 1000, unzippedBytes: 32 * 1024 * 1024 };

export const MANIFEST_FILE = 'manifest.json';

/** The zip library, loaded on first use: most emulators never see a package, and start-up pays for every import. */
export const fflate = () => import('fflate');

/** One asset file of an imported package, checked. */
export interface Entry {
  path: string;
  /** Folder names from the import folder down to the asset's folder. */
  folders: string[];
  type: string;
  content: JsonObject;
}

/** An entry of the zip that is no asset, left alone. */
export interface Skipped extends JsonObject {
  path: string;
  reason: string;
}

export interface PackageContent {
  entries: Entry[];
  skipped: Skipped[];
  /** The parsed `manifest.json`, when the zip has one. */
  manifest?: unknown;
}

/**
 * The asset files of a package zip, every one checked before anything is imported. Refused with a
 * 400 naming the entry: a zip fflate cannot read; more than PACKAGE_LIMITS entries, or asset files
 * decompressing past its bytes (a zip bomb is stopped before it is inflated: fflate inflates no entry
 * past its declared size); a path that is absolute or climbs out of its folder (`..`); an asset file
 * (`<name>.<type>.json` of a platform asset type) of a type the emulator does not import, that is not
 * JSON, or is not an object with a `name`; a `manifest.json` that is not JSON. Skipped, and reported:
 * nested zips, hidden files and folders, and other files that are no asset.
 */
export async function readPackage(bytes: Uint8Array, assetTypes: readonly string[]): Promise<PackageContent> {
  const { strFromU8, unzipSync } = await fflate();
  const skipped: Skipped[] = [];
  let declared = 0;
  let count = 0;
  let files: Record<string, Uint8Array>;
  try {
    files = unzipSync(bytes, {
      filter: (file) => {
        count += 1;
        if (count > PACKAGE_LIMITS.entries)
          throw badEntry(file.name, `the package holds more than ${PACKAGE_LIMITS.entries} entries`);
        checkPath(file.name);
        const notAsset = file.name === MANIFEST_FILE ? undefined : whyNotAsset(file.name, assetTypes);
        if (notAsset !== undefined) {
          if (!file.name.endsWith('/')) skipped.push({ path: file.name, reason: notAsset });
          return false;
        }
        declared += file.originalSize;
        if (declared > PACKAGE_LIMITS.unzippedBytes)
          throw badEntry(file.name, `the package decompresses to more than ${PACKAGE_LIMITS.unzippedBytes} bytes`);
        return true;
      },
    });
  } catch (error) {
    if (error instanceof InvalidRequest) throw error;
    throw badEntry('(the zip file)', `not a readable zip archive (${(error as Error).message})`);
  }
  const entries: Entry[] = [];
  let manifest: unknown;
  for (const [path, data] of Object.entries(files)) {
    let content: unknown;
    try {
      content = JSON.parse(strFromU8(data));
    } catch (error) {
      throw badEntry(path, `not JSON (${(error as Error).message})`);
    }
    if (path === MANIFEST_FILE) {
      manifest = content;
      continue;
    }
    const type = assetType(path) as string;
    if (!PACKAGED_TYPES.includes(type))
      throw badEntry(path, `the emulator cannot import ${type} assets; it imports ${PACKAGED_TYPES.join(', ')}`);
    if (!isObject(content) || typeof content.name !== 'string' || content.name === '')
      throw badEntry(path, 'not an asset: a JSON object with a `name` is expected');
    entries.push({ path, folders: path.split('/').slice(0, -1), type, content });
  }
  const order = (entry: Entry) => PACKAGED_TYPES.indexOf(entry.type);
  return { entries: entries.sort((a, b) => order(a) - order(b)), skipped, manifest };
}

/** Refuses a path that is absolute or leaves the package's folder. */
function checkPath(path: string): void {
  const parts = path.replace(/\/$/, '').split('/');
  if (path.startsWith('/') || path.includes('\\') || parts.some((part) => part === '..' || part === '.' || part === ''))
    throw badEntry(path, 'the path leaves the package folder (absolute, `..`, `.` or empty parts)');
}

/** The type of an asset file's name: `<name>.<type>.json`. */
function assetType(path: string): string | undefined {
  return /\.([a-z_]+)\.json$/.exec(path.split('/').at(-1) ?? '')?.[1];
}

/** Why an entry is no asset (undefined when it is one): a folder, a nested zip, a hidden file, another file. */
function whyNotAsset(path: string, assetTypes: readonly string[]): string | undefined {
  if (path.endsWith('/')) return 'a folder';
  if (path.split('/').some((part) => part.startsWith('.') || part === '__MACOSX')) return 'a hidden file or folder';
  if (/\.zip$/i.test(path)) return 'a zip file inside the package, not an asset';
  const type = assetType(path);
  if (type === undefined || !assetTypes.includes(type))
    return 'not an asset file: its name is not <name>.<type>.json of a platform asset type';
  return undefined;
}

/**
 * Refuses a file whose connection the target has under that name for another connector: the
 * recipes the package brings would run against the wrong application.
 */
function checkConnector(entry: Entry, match: StoredItem): void {
  // A seeded connection may give only one of the two.
  const held = [match.value.application, match.value.provider].find((name) => typeof name === 'string' && name !== '');
  if (held !== undefined && entry.content.provider !== held)
    throw badEntry(
      entry.path,
      `the connection ${JSON.stringify(match.value.name)} here (${match.id}) is a ${JSON.stringify(held)} connection, the package's a ${JSON.stringify(entry.content.provider)} one`,
    );
}

/** What the import did to one asset. */
type ImportResult = 'created' | 'updated' | 'unchanged';

/**
 * Asset types the target keeps as they are once it has one the file matches: a connection is the
 * target's own (its connector's settings, its authorization, which no package carries), so a package
 * promoted from dev to prod uses prod's connection of that name and never changes it. Chosen: the
 * platform's record does not say what an import does to an existing connection; a new one is made
 * disconnected, as the platform's are (a file holds no credentials).
 */
const KEPT_BY_TARGET = new Set(['connection']);

/** A placeholder id for a reference to an asset the package will create, while the package is checked. */
const PLANNED_ID = 1;

export class Importer {
  readonly report: JsonObject[] = [];
  readonly recipeStatus: JsonObject[] = [];
  private readonly folderIds = new Map<string, number>();
  /** The workspace's assets before the import, with their file names: what a pulled file was. */
  private before: Asset[] = [];
  /** Stored ids (by type) of the assets this import matched or made: none is matched twice. */
  private readonly touched = new Set<string>();
  /** The entries being imported, while they are checked. */
  private planned: Entry[] | undefined;

  constructor(
    private readonly workspace: Workspace,
    private readonly op: EngineOperation,
    private readonly target: StoredItem,
    private readonly restart: boolean,
  ) {}

  /**
   * Refuses (400, naming the entry) before any change: a file whose fields do not fit its type or
   * whose references (connections, recipes, API collections) are neither in the package nor in the
   * workspace; a project asset without a project to go to; a recipe the package changes that is
   * running, unless `restart_recipes` is true.
   */
  async check(entries: Entry[]): Promise<void> {
    this.before = await folderAssets(this.workspace, undefined);
    this.planned = entries;
    try {
      await this.checkProperties(entries.filter((entry) => isPropertyType(entry.type)));
      for (const entry of entries) if (!isPropertyType(entry.type)) await this.checkEntry(entry);
    } finally {
      this.planned = undefined;
    }
  }

  /**
   * Refuses a property file whose name or value is no property's, a project property imported
   * outside a project, and the files that would take an owner past PROPERTY_LIMIT properties.
   */
  private async checkProperties(entries: Entry[]): Promise<void> {
    for (const { owner, files } of await this.propertyOwners(entries)) {
      for (const entry of files) {
        const problem = propertyFileProblem(this.workspace, entry.content);
        if (problem) throw badEntry(entry.path, `not a valid ${entry.type}: ${problem}`);
      }
      const count = propertiesAfter(
        owner,
        files.map((entry) => entry.content),
      );
      const [last] = files.slice(-1) as [Entry];
      if (count > PROPERTY_LIMIT)
        throw badEntry(
          last.path,
          `at most ${PROPERTY_LIMIT} properties are allowed here; the import would make ${count}`,
        );
    }
  }

  /** The property files by where they go (the environment, the import folder's project). */
  private async propertyOwners(entries: Entry[]): Promise<{ owner: PropertyOwner; files: Entry[] }[]> {
    const owners = new Map<string, { owner: PropertyOwner; files: Entry[] }>();
    for (const entry of entries) {
      const owner = await propertyOwnerFor(this.workspace, entry.type as PropertyType, this.target);
      if (!owner)
        throw badEntry(entry.path, `a ${entry.type} belongs to a project: import into a project or one of its folders`);
      const key = `${owner.type}:${owner.item.id}`;
      const known = owners.get(key) ?? { owner, files: [] };
      known.files.push(entry);
      owners.set(key, known);
    }
    return [...owners.values()];
  }

  /** The target's properties: each a file names that it lacks is made (`created`), each it has kept (`unchanged`). */
  private async applyProperties(entries: Entry[]): Promise<void> {
    for (const { owner, files } of await this.propertyOwners(entries)) {
      const results = await addMissingProperties(
        this.workspace,
        owner,
        files.map((entry) => entry.content),
      );
      for (const [index, entry] of files.entries()) {
        const { name } = entry.content;
        const id = await propertyId(this.workspace, owner, String(name));
        this.report.push({ zip_name: entry.path, type: entry.type, name, id, result: results[index] });
      }
    }
  }

  private async checkEntry(entry: Entry): Promise<void> {
    const kind = kindOf(entry.type) as AssetKind;
    if (kind.holder !== 'folder' && (this.target.value.project_id ?? null) === null)
      throw badEntry(entry.path, `a ${entry.type} belongs to a project: import into a project or one of its folders`);
    const type = this.workspace.types.get(kind.resource) as ResourceType;
    const holder = await this.existingHolder(kind, entry);
    const fields = await storedFields(this.context(entry, undefined), kind, entry.content);
    const children = CHILDREN[entry.type];
    if (children && entry.content[children.field] !== undefined)
      await this.childFields(entry, children.field, undefined);
    const problems = this.workspace.itemProblems(type.name, complete(this.workspace.values, type.schema, fields));
    if (problems) throw badEntry(entry.path, `not a valid ${entry.type}: ${problems}`);
    const match = holder === undefined ? undefined : await this.match(kind, entry, holder);
    if (entry.type === 'connection' && match) checkConnector(entry, match);
    if (entry.type !== 'recipe' || this.restart) return;
    if (match?.value.running !== true) return;
    // A running recipe the file leaves as it is is not touched, so it needs no restart.
    const changes = await storedFields(this.context(entry, match), kind, entry.content);
    if (Object.keys(changes).length > 0)
      throw badEntry(entry.path, `recipe ${match.id} is running: send restart_recipes=true to update it`);
  }

  async apply(entries: Entry[]): Promise<void> {
    await this.applyProperties(entries.filter((entry) => isPropertyType(entry.type)));
    for (const entry of entries) {
      if (isPropertyType(entry.type)) continue;
      const kind = kindOf(entry.type) as AssetKind;
      const holder = await this.holderOf(kind, entry);
      const match = await this.match(kind, entry, holder);
      const kept = match !== undefined && KEPT_BY_TARGET.has(kind.type);
      const fields = kept ? {} : await storedFields(this.context(entry, match), kind, entry.content);
      const op = actingOn(this.workspace, this.op, kind.resource);
      let item: JsonObject;
      let result: ImportResult = 'unchanged';
      if (!match) {
        item = await this.workspace.create(op, { ...fields, [kind.field]: this.holderValue(kind, holder) }, undefined);
        result = 'created';
      } else {
        item = match.value;
        if (Object.keys(fields).length > 0) {
          item = await this.workspace.update(op, match, fields);
          result = 'updated';
        }
      }
      this.touched.add(`${kind.type}:${item.id}`);
      if (await this.replaceChildren(entry, String(item.id))) result = result === 'created' ? result : 'updated';
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

  /** The holder's id as the kind's field stores it (a string or an integer). */
  private holderValue(kind: AssetKind, holder: string): string | number {
    const type = this.workspace.types.get(kind.resource) as ResourceType;
    const schema = resolve(this.workspace.values.document, propertiesOf(type.schema)[kind.field] ?? {});
    return schema.type === 'string' ? holder : Number(holder);
  }

  /** How the entry's references resolve: to the assets imported before it, else to the workspace's. */
  private context(entry: Entry, match: StoredItem | undefined): ImportContext {
    return {
      workspace: this.workspace,
      path: entry.path,
      match,
      connection: (reference, where) => this.connectionOf(entry, reference, where),
      recipe: (name, where) => this.recipeNamed(entry, name, where),
    };
  }

  /**
   * The connection a config line names: `{zip_name, name, folder}` is the connection of that file in
   * the package, else the one of that name in that folder below the import folder, else one of that
   * name anywhere; `connection_name` (`{name}`) the package's connection of that name, else the one in
   * the recipe's folder, else anywhere; an id the connection with that id. None is a 400.
   */
  private async connectionOf(entry: Entry, reference: unknown, where: string): Promise<number | null> {
    if (reference === null || reference === undefined) return null;
    if (typeof reference === 'number') {
      if (await this.workspace.store.get('connection', String(reference))) return reference;
      throw badEntry(entry.path, `${where}: connection ${reference} does not exist`);
    }
    if (!isObject(reference) || typeof reference.name !== 'string')
      throw badEntry(entry.path, `${where}: a connection is named by {zip_name, name, folder} or null`);
    const { name } = reference;
    const file =
      typeof reference.zip_name === 'string'
        ? [reference.folder, reference.zip_name].filter((part) => typeof part === 'string' && part !== '').join('/')
        : undefined;
    const inPackage = (other: { zip_name?: unknown; type?: unknown; name?: unknown; path?: string }) =>
      other.type === 'connection' &&
      (file === undefined ? other.name === name : (other.zip_name ?? other.path) === file);
    const imported = this.report.find(inPackage);
    if (imported) return Number(imported.id);
    if (this.planned?.some((other) => inPackage({ ...other, name: other.content.name }))) return PLANNED_ID;
    const folderNames =
      file === undefined
        ? entry.folders
        : String(reference.folder ?? '')
            .split('/')
            .filter((part) => part !== '');
    const folderId = await this.existingFolder(folderNames);
    const connections = await this.workspace.store.list('connection');
    const found =
      connections.find(
        (c) => c.value.name === name && folderId !== undefined && Number(c.value.folder_id) === folderId,
      ) ?? connections.find((c) => c.value.name === name);
    if (found) return Number(found.id);
    throw badEntry(
      entry.path,
      `${where}: its connection ${JSON.stringify(name)} is neither in the package nor in the workspace`,
    );
  }

  /** The recipe named `name`: the one the package imported, else one of that name in the workspace. */
  private async recipeNamed(entry: Entry, name: unknown, where: string): Promise<number> {
    const imported = this.report.find((asset) => asset.type === 'recipe' && asset.name === name);
    if (imported) return Number(imported.id);
    if (this.planned?.some((other) => other.type === 'recipe' && other.content.name === name)) return PLANNED_ID;
    const found = (await this.workspace.store.list('recipe')).find((recipe) => recipe.value.name === name);
    if (found) return Number(found.id);
    throw badEntry(entry.path, `${where}: its recipe ${JSON.stringify(name)} is not in the package or the workspace`);
  }

  /** The id of the folder, project or collection the asset goes to (folders are made as needed). */
  private async holderOf(kind: AssetKind, entry: Entry): Promise<string> {
    if (kind.holder === 'folder') return String(await this.folder(entry.folders));
    return (await this.existingHolder(kind, entry)) as string;
  }

  /**
   * The holder as it is now: the folder below the import folder (undefined while it does not exist),
   * the import folder's project, or the API collection of that name in it (its absence, when no
   * `api_group` of the package makes it, is a 400).
   */
  private async existingHolder(kind: AssetKind, entry: Entry): Promise<string | undefined> {
    if (kind.holder === 'folder') {
      const folderId = await this.existingFolder(entry.folders);
      return folderId === undefined ? undefined : String(folderId);
    }
    const projectId = String(this.target.value.project_id);
    if (kind.holder === 'project') return projectId;
    const name = entry.content.api_collection;
    const collection = (await this.workspace.store.list('api_collection')).find(
      (c) => c.value.name === name && String(c.value.project_id) === projectId,
    );
    if (collection) return collection.id;
    if (this.planned?.some((other) => other.type === 'api_group' && other.content.name === name)) return undefined;
    throw badEntry(entry.path, `its API collection ${JSON.stringify(name)} is not in the package or the project`);
  }

  /**
   * The asset a file updates, as the platform matches them: in the same place (folder, project, API
   * collection), the asset of the file's type with the file's `name` (of two, the one whose file it
   * is); else the one whose file this is (the `zip_name` an export gave it before the import, so a
   * file whose `name` was edited renames its asset). Each asset is matched once per import.
   */
  private async match(kind: AssetKind, entry: Entry, holder: string): Promise<StoredItem | undefined> {
    const here = (await this.workspace.store.list(kind.resource)).filter(
      (item) => String(item.value[kind.field]) === holder && !this.touched.has(`${kind.type}:${item.id}`),
    );
    const fileName = entry.path.split('/').at(-1);
    const isFile = (item: StoredItem) =>
      this.before.some((asset) => asset.type === kind.type && asset.zip_name === fileName && asset.$key === item.id);
    const pulled = here.find(isFile);
    const named = here.filter((item) => item.value.name === entry.content.name);
    // Of two assets of one name, the file's own.
    if (pulled && named.includes(pulled)) return pulled;
    return named[0] ?? pulled;
  }

  /** The fields of the file's children (rows, tools), each checked. */
  private async childFields(entry: Entry, field: string, match: StoredItem | undefined): Promise<JsonObject[]> {
    const children = CHILDREN[entry.type] as (typeof CHILDREN)[string];
    const sent = entry.content[field];
    if (!Array.isArray(sent)) throw badEntry(entry.path, `\`${field}\` must be a list`);
    const context = this.context(entry, match);
    const fields: JsonObject[] = [];
    for (const [index, child] of sent.entries())
      fields.push(await children.fromFile(context, child, `${field}[${index}]`));
    return fields;
  }

  /** The item's children become the file's, in its order; false when they are already. */
  private async replaceChildren(entry: Entry, itemId: string): Promise<boolean> {
    const children = CHILDREN[entry.type];
    if (!children || entry.content[children.field] === undefined) return false;
    const kind = kindOf(entry.type) as AssetKind;
    const parent = (await this.workspace.store.get(kind.resource, itemId)) as StoredItem;
    const held = await this.workspace.store.list(children.resource, itemId);
    const current = await Promise.all(held.map((child) => children.toFile(this.workspace, child)));
    if (sameContent(current, entry.content[children.field])) return false;
    const fields = await this.childFields(entry, children.field, parent);
    const op = actingOn(this.workspace, this.op, children.resource);
    for (const child of held) await this.workspace.delete(op, child);
    for (const each of fields) await this.workspace.create(op, each, parent);
    return true;
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
