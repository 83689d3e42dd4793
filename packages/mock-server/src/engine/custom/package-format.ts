// The files inside a package, both ways: what an asset's file holds (export) and the fields an
// asset gets from its file (import). Recipe files are in the platform's format, as both of its CLIs
// pull and push them (`code` an object with a `uuid` on every line, `private`, `concurrency`,
// `version`, config lines naming their connection's file `{zip_name, name, folder}`); import also
// takes the Recipe API's form (`code` JSON text, `connection_name` or a connection id). Files are
// written as `wk pull` stores them, so a pull writes the bytes the tools compare.

import { createHash } from 'node:crypto';
import { InvalidRequest } from '../../errors.js';
import type { JsonObject, StoredItem } from '../../store/resource-store.js';
import type { Workspace } from '../contract.js';
import { isObject, propertiesOf, resolve } from '../schema.js';
import type { ResourceType } from '../vocabulary.js';
import type { AssetKind } from './package-assets.js';
import { configLines } from './recipes.js';
import { randomSecret } from './secrets.js';

/** Fields an asset file never carries: the connection's authorization state (secrets are never stored), tags. */
const NOT_EXPORTED = new Set([
  'authorized_at',
  'authorization_status',
  'authorization_error',
  'connection_lost_at',
  'connection_lost_reason',
  'tags',
  'created_at',
  'updated_at',
  // The place comes from the file's folder in the package, never from a stored id.
  'project_id',
]);

/** Fields derived from other assets that a file does not carry, by asset type. */
const DERIVED: Record<string, readonly string[]> = {
  agentic_skill: ['provider_id', 'running', 'genies_count', 'applications', 'trigger_description'],
};

/** What a recipe is without `private` and `concurrency` (the defaults `wk` writes for the Recipe API's form too). */
const RECIPE_DEFAULTS: JsonObject = { $private: false, $concurrency: 1 };

/** A connection's (or any asset's) file, as a recipe's config line names it: `null` or this. */
export interface FileRef extends JsonObject {
  zip_name: string;
  name: string;
  /** The file's folder path in the package; `""` at its top. */
  folder: string;
}

/** What writing an asset's file needs: the workspace, whether data goes along, and where other assets' files are. */
export interface ExportContext {
  workspace: Workspace;
  includeData: boolean;
  /** The file of the asset (type, stored id): in the package, else where an export of its folder puts it. */
  fileOf(type: string, key: string): Promise<FileRef | undefined>;
}

/** What reading an asset's file needs: the references it makes, resolved (or refused, naming the entry). */
export interface ImportContext {
  workspace: Workspace;
  /** The entry's path, for error messages. */
  path: string;
  /** The asset the file updates, if any. */
  match?: StoredItem;
  /** The id of the connection a config line (or a genie) names: a `FileRef`, a `connection_name`, an id. */
  connection(reference: unknown, where: string): Promise<number | null>;
  /** The id of the recipe named `name` (an endpoint's, a skill's, an MCP tool's). */
  recipe(name: unknown, where: string): Promise<number>;
}

/** A 400 naming the zip entry at fault; nothing has been changed when it is thrown. */
export function badEntry(path: string, why: string): InvalidRequest {
  return new InvalidRequest('INVALID_REQUEST', `The package cannot be imported: ${path}: ${why}`, {
    errors: [{ pointer: '/body', message: `${path}: ${why}` }],
  });
}

// ---------------------------------------------------------------------------------------------------
// Bytes

/**
 * The file's bytes as `wk pull` writes them (Go's `json.MarshalIndent` of the parsed file): keys
 * sorted by their UTF-8 bytes, two-space indent, `<`, `>`, `&`, U+2028 and U+2029 escaped, a final
 * newline. So a pull's file is byte for byte what `wk` stores, and exporting unchanged assets twice
 * gives the same bytes, which both CLIs compare.
 */
export function fileText(value: unknown): string {
  const escaped = JSON.stringify(sortedKeys(value), null, 2).replace(
    /[<>&\u2028\u2029]/g,
    (char) => `\\u${char.charCodeAt(0).toString(16).padStart(4, '0')}`,
  );
  return `${escaped}\n`;
}

function sortedKeys(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(sortedKeys);
  if (!isObject(value)) return value;
  const keys = Object.keys(value).sort((a, b) => Buffer.compare(Buffer.from(a), Buffer.from(b)));
  return Object.fromEntries(keys.map((key) => [key, sortedKeys(value[key])]));
}

/** Whether two JSON values are equal, whatever the order of their keys. */
export function sameContent(a: unknown, b: unknown): boolean {
  return a === b || JSON.stringify(sortedKeys(a)) === JSON.stringify(sortedKeys(b));
}

// ---------------------------------------------------------------------------------------------------
// Export

/** The fields of an item that its asset file carries: what a create may set, without ids, places and state. */
export function portable(workspace: Workspace, type: ResourceType, kind: AssetKind, value: JsonObject): JsonObject {
  const properties = propertiesOf(type.schema);
  const skipped = new Set([
    type.id.field,
    kind.field,
    type.states?.field,
    ...type.refs.map((ref) => ref.field),
    ...(DERIVED[kind.type] ?? []),
  ]);
  const fields: JsonObject = {};
  for (const [name, field] of Object.entries(value)) {
    const schema = properties[name];
    if (!schema || skipped.has(name) || NOT_EXPORTED.has(name)) continue;
    if (resolve(workspace.values.document, schema).readOnly === true) continue;
    fields[name] = field;
  }
  return fields;
}

/** The content of an asset's file (without the children `CHILDREN` adds). */
export async function assetFile(context: ExportContext, kind: AssetKind, item: StoredItem): Promise<JsonObject> {
  const { workspace } = context;
  const type = workspace.types.get(kind.resource) as ResourceType;
  const value = item.value;
  if (kind.type === 'recipe') return recipeFile(context, item);
  const content = portable(workspace, type, kind, value);
  if (kind.type === 'api_endpoint') {
    const collection = await workspace.store.get('api_collection', String(value.api_collection_id));
    content.api_collection = collection?.value.name ?? null;
    delete content.flow_id;
    content.recipe_name = await recipeName(workspace, value.flow_id);
  }
  if (kind.type === 'agentic_skill') {
    // A skill's name is its recipe's (read-only, so portable() leaves it out); the file still names it.
    content.name = value.name;
    content.recipe_name = await recipeName(workspace, value.provider_id);
  }
  if (kind.type === 'agentic_genie' && 'shared_account_id' in content)
    content.shared_account_id = await connectionFile(context, value.shared_account_id);
  return content;
}

async function recipeName(workspace: Workspace, id: unknown): Promise<unknown> {
  if (id === null || id === undefined) return null;
  return (await workspace.store.get('recipe', String(id)))?.value.name ?? null;
}

/** A recipe's file in the platform's format. */
async function recipeFile(context: ExportContext, item: StoredItem): Promise<JsonObject> {
  const { value } = item;
  const config: JsonObject[] = [];
  for (const line of configLines(value.config)) {
    const { account_id, ...rest } = line;
    config.push({
      ...rest,
      name: rest.name ?? rest.provider,
      skip_validation: rest.skip_validation ?? false,
      account_id: await connectionFile(context, account_id),
    });
  }
  return {
    name: value.name,
    description: value.description ?? '',
    version: value.version_no ?? 1,
    private: value.$private ?? RECIPE_DEFAULTS.$private,
    concurrency: value.$concurrency ?? RECIPE_DEFAULTS.$concurrency,
    code: codeObject(value.code, item.id),
    config,
  };
}

async function connectionFile(context: ExportContext, id: unknown): Promise<FileRef | null> {
  if (id === null || id === undefined) return null;
  return (await context.fileOf('connection', String(id))) ?? null;
}

function parsedJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

/**
 * A recipe's code as its file holds it: the stored JSON text parsed, each line that has no `uuid`
 * given one derived from the recipe and the line's place (so exporting twice gives the same file,
 * and the Python CLI's validator, which wants one on every line, accepts it). Text that is no JSON
 * object stays text, which import takes back as it is.
 */
export function codeObject(code: unknown, recipeKey: string): unknown {
  const parsed = typeof code === 'string' ? parsedJson(code) : undefined;
  return isObject(parsed) ? withUuids(parsed, `${recipeKey}/0`) : code;
}

function withUuids(line: JsonObject, place: string): JsonObject {
  const completed: JsonObject = { ...line };
  if (typeof completed.uuid !== 'string') completed.uuid = derivedUuid(place);
  if (Array.isArray(completed.block))
    completed.block = completed.block.map((child, index) =>
      isObject(child) ? withUuids(child, `${place}.${index}`) : child,
    );
  return completed;
}

/** A UUID (version 5 layout) from a SHA-1 of `seed`. */
function derivedUuid(seed: string): string {
  const hex = createHash('sha1').update(`recipe line ${seed}`).digest('hex');
  const variant = ((Number.parseInt(hex.charAt(16), 16) & 0x3) | 0x8).toString(16);
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-5${hex.slice(13, 16)}-${variant}${hex.slice(17, 20)}-${hex.slice(20, 32)}`;
}

// ---------------------------------------------------------------------------------------------------
// Import

/**
 * The fields an asset gets from its file: its portable fields, a recipe's code and config in the
 * stored forms (its `private` and `concurrency` as hidden fields), references resolved to ids. With
 * `context.match`, the fields equal to the asset's (a code object that is its code, config lines that
 * differ only by the defaults an export writes) are left out: what is left is what changes.
 */
export async function storedFields(context: ImportContext, kind: AssetKind, content: JsonObject): Promise<JsonObject> {
  const { workspace, match } = context;
  const type = workspace.types.get(kind.resource) as ResourceType;
  // A recipe file's `version` sets nothing: portable() keeps schema fields, and `version_no` counts the saves here.
  const fields = portable(workspace, type, kind, content);
  if (kind.type === 'recipe') Object.assign(fields, await recipeFields(context, content));
  if (kind.type === 'api_endpoint') fields.flow_id = await context.recipe(content.recipe_name, 'recipe_name');
  if (kind.type === 'agentic_skill') fields.provider_id = await context.recipe(content.recipe_name, 'recipe_name');
  if (kind.type === 'agentic_genie' && 'shared_account_id' in content)
    fields.shared_account_id = await context.connection(content.shared_account_id, 'shared_account_id');
  if (kind.type === 'connection' && !match) fields.application = connectorOf(context.path, content);
  // A new MCP server gets its token as mcp_create_server gives one: its mcp_url must answer.
  if (kind.type === 'mcp_server' && !match) fields.$token = randomSecret(workspace);
  if (!match) return fields;
  const defaults = kind.type === 'recipe' ? RECIPE_DEFAULTS : {};
  return Object.fromEntries(
    Object.entries(fields).filter(
      ([name, value]) => !sameContent(match.value[name] === undefined ? defaults[name] : match.value[name], value),
    ),
  );
}

/**
 * A new connection's connector: the file's `provider` (its `application` is read-only, so portable()
 * leaves it out, and create_connection mirrors it from `provider` likewise). None is a 400.
 */
function connectorOf(path: string, content: JsonObject): string {
  if (typeof content.provider === 'string' && content.provider !== '') return content.provider;
  throw badEntry(path, 'a connection names its connector in `provider`');
}

async function recipeFields(context: ImportContext, sent: JsonObject): Promise<JsonObject> {
  const { match, path } = context;
  const fields: JsonObject = {};
  if ('code' in sent) fields.code = codeText(sent.code, match);
  if ('config' in sent) fields.config = await configFields(context, sent.config);
  if ('private' in sent) {
    if (typeof sent.private !== 'boolean') throw badEntry(path, '`private` must be true or false');
    fields.$private = sent.private;
  }
  if ('concurrency' in sent) {
    if (!Number.isSafeInteger(sent.concurrency) || (sent.concurrency as number) < 1)
      throw badEntry(path, '`concurrency` must be an integer of at least 1');
    fields.$concurrency = sent.concurrency;
  }
  return fields;
}

/** A code object as the stored JSON text; the recipe's own text when the object is what its file holds. */
function codeText(code: unknown, match: StoredItem | undefined): unknown {
  if (!isObject(code)) return code;
  if (match && sameContent(codeObject(match.value.code, match.id), code)) return match.value.code;
  return JSON.stringify(code);
}

/**
 * Config lines with their connection's id in `account_id`: the line's `{zip_name, name, folder}`,
 * `connection_name` (the emulator's earlier form) or id resolved; a line without `name` gets its
 * `provider` (as `wk` fills it). Lines the recipe has already, but for the defaults, are its own.
 */
async function configFields(context: ImportContext, config: unknown): Promise<unknown> {
  if (typeof config === 'string' ? !Array.isArray(parsedJson(config)) : !Array.isArray(config)) return config;
  const lines: unknown[] = [];
  for (const [index, line] of configLines(config).entries()) {
    if (!isObject(line)) {
      lines.push(line);
      continue;
    }
    const { account_id, connection_name, ...rest } = line;
    const reference =
      account_id ?? (connection_name === undefined || connection_name === null ? null : { name: connection_name });
    lines.push({
      ...rest,
      name: rest.name ?? rest.provider,
      account_id: await context.connection(reference, `config[${index}].account_id`),
    });
  }
  const held = context.match ? configLines(context.match.value.config) : undefined;
  return held && sameContent(held.map(withLineDefaults), lines.map(withLineDefaults))
    ? context.match?.value.config
    : lines;
}

function withLineDefaults(line: unknown): unknown {
  if (!isObject(line)) return line;
  return { ...line, name: line.name ?? line.provider, skip_validation: line.skip_validation ?? false };
}

// ---------------------------------------------------------------------------------------------------
// Children: a lookup table's rows (with `include_data`), an MCP server's tools

/** Items of a sub-collection that travel in their parent's file, as one list field. */
export interface Children {
  field: string;
  resource: 'lookup_table_row' | 'mcp_server_tool';
  /** Whether an export writes them. */
  exported(includeData: boolean): boolean;
  toFile(workspace: Workspace, child: StoredItem): Promise<unknown>;
  /** A child's fields from its entry in the file; refused (naming `where`) when it is not one. */
  fromFile(context: ImportContext, sent: unknown, where: string): Promise<JsonObject>;
}

export const CHILDREN: Record<string, Children> = {
  lookup_table: {
    field: 'rows',
    resource: 'lookup_table_row',
    exported: (includeData) => includeData,
    toFile: async (_workspace, row) => row.value.data,
    fromFile: async (_context, data) => ({ data: isObject(data) ? data : {} }),
  },
  mcp_server: {
    field: 'tools',
    resource: 'mcp_server_tool',
    exported: () => true,
    toFile: async (workspace, tool) => ({
      name: tool.value.name,
      description: tool.value.description ?? null,
      recipe_name: await recipeName(workspace, tool.value.flow_id),
    }),
    fromFile: async (context, tool, where) => {
      if (!isObject(tool) || typeof tool.name !== 'string' || tool.name === '')
        throw badEntry(context.path, `${where} is not a tool: an object with a \`name\` is expected`);
      return {
        name: tool.name,
        description: tool.description ?? null,
        flow_id: await context.recipe(tool.recipe_name, `${where}.recipe_name`),
      };
    },
  },
};
