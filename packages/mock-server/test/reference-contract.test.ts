// The platform's public OpenAPI description (`../shared/reference/platform-api-public-spec.yaml` beside
// the repository, MIT-licensed, read and never copied) as a response contract: the generated clients
// of real tools refuse an answer that lacks a field it requires or has the wrong type. For each of
// its 38 operations the emulator is driven as such a client drives it (prerequisites created first,
// request bodies built from the description's own examples, ids it answered sent back as it typed
// them) and each answer is validated with ajv against the description's schema for that status, read
// as OpenAPI 3.0: `nullable`, a `$ref`'s siblings ignored, every `required` field present.
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { Ajv, type ErrorObject, type ValidateFunction } from 'ajv';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { referenceFile, referenceMissing } from '../../../spec/scripts/reference-location.mjs';
import { type MockServer, startMockServer } from '../src/index.js';
import { defined } from './support/defined.js';
import { token } from './support/helpers.js';

const require = createRequire(import.meta.url);
const addFormats = require('ajv-formats') as (ajv: Ajv) => Ajv;

// biome-ignore lint/suspicious/noExplicitAny: a parsed OpenAPI 3.0 document, walked generically.
type Json = any;
// Without it (a newcomer's clone has no ../shared), both suites skip, saying where to put it.
const reference: Json = referenceMissing ? { paths: {}, components: {} } : parse(readFileSync(referenceFile, 'utf8'));
const skipped = referenceMissing ? ` (skipped: ${referenceMissing})` : '';
if (referenceMissing) console.warn(`skipped: ${referenceMissing}`);
const REFERENCE_ID = 'urn:platform-api:reference';

/** An OpenAPI 3.0 schema as JSON Schema: `nullable` adds null; a `$ref` stands alone (its siblings are ignored). */
function jsonSchemaOf(node: Json): Json {
  if (Array.isArray(node)) return node.map(jsonSchemaOf);
  if (node === null || typeof node !== 'object') return node;
  if (typeof node.$ref === 'string') return { $ref: `${REFERENCE_ID}${node.$ref}` };
  const out: Json = {};
  for (const [key, value] of Object.entries(node)) {
    if (key === 'nullable' || key === 'example') continue;
    out[key] =
      key === 'properties'
        ? Object.fromEntries(Object.entries(value as object).map(([k, v]) => [k, jsonSchemaOf(v)]))
        : jsonSchemaOf(value);
  }
  if (node.nullable === true) {
    if (out.type !== undefined) out.type = [out.type, 'null'].flat();
    if (Array.isArray(out.enum) && !out.enum.includes(null)) out.enum = [...out.enum, null];
  }
  return out;
}

const ajv = new Ajv({ strict: false, allErrors: true, validateSchema: false });
addFormats(ajv);
ajv.addFormat('binary', true);
ajv.addSchema({ $id: REFERENCE_ID, components: jsonSchemaOf(reference.components) });

const METHODS = ['get', 'put', 'post', 'delete', 'patch'] as const;
interface ReferenceOperation {
  key: string;
  path: string;
  method: string;
  op: Json;
}
const referenceOperations: ReferenceOperation[] = Object.entries(reference.paths as Json).flatMap(([path, item]) =>
  METHODS.filter((method) => (item as Json)[method]).map((method) => ({
    key: `${method.toUpperCase()} ${path}`,
    path,
    method: method.toUpperCase(),
    op: (item as Json)[method],
  })),
);

const pointer = (ref: string): Json =>
  ref
    .slice(2)
    .split('/')
    .reduce((node: Json, part) => node?.[part], reference);
const deref = (node: Json): Json => (node?.$ref ? deref(pointer(node.$ref)) : node);

/**
 * The request body the description's examples give: each property's `example`, nested objects and
 * array items filled the same way; a property without one is left out.
 */
function exampleOf(schema: Json, nested = false): Json {
  const s = deref(schema);
  if (s.example !== undefined) return structuredClone(s.example);
  if (s.type === 'array' && s.items) {
    const item = exampleOf(s.items, true);
    return item === undefined ? undefined : [item];
  }
  if (!s.properties) return undefined;
  const out: Json = {};
  for (const [name, property] of Object.entries(s.properties)) {
    const value = exampleOf(property, true);
    if (value !== undefined) out[name] = value;
  }
  // A nested object whose examples leave a required field out is no value the description shows.
  const complete = !nested || (s.required ?? []).every((name: string) => name in out);
  return Object.keys(out).length > 0 && complete ? out : undefined;
}

/**
 * Where a request the description's examples make breaks a rule of the platform's own reference pages
 * (`../shared/management-facts`), the field is left out of the request, for the reason given.
 */
const REQUEST_EXCEPTIONS: { key: string; field: string; reason: string }[] = [
  {
    key: 'POST /api/v2/api_clients',
    field: 'email',
    reason: "the platform's reference requires api_portal_id with email; the description's example sends email alone",
  },
];

function requestExample(key: string): Json {
  const schema = referenceOperations.find((o) => o.key === key)?.op.requestBody?.content?.['application/json']?.schema;
  const body = defined(exampleOf(defined(schema, key)), `${key}'s example`);
  for (const exception of REQUEST_EXCEPTIONS) if (exception.key === key) delete body[exception.field];
  return body;
}

/**
 * Where `../shared/api-description.md` (the contract) and the emulator's documented choices differ from
 * the description, the contract wins: each exception names the answer (operation, JSON pointer in the
 * answer, ajv keyword) and why. Nothing else may differ.
 */
const EXCEPTIONS: { key: string; at: RegExp; keyword: string; fields?: string[]; reason: string }[] = [
  ...['GET /api/recipes'].map((key) => ({
    key,
    at: /^\/items\/\d+\/(trigger_application|last_run_at|stopped_at)$/,
    keyword: 'type',
    reason:
      "null for a recipe without a trigger, never run or never stopped: the platform's own reference pages " +
      '(management-facts, [official]) give these fields as nullable, where the description types them as plain strings',
  })),
  ...['POST /api/v2/api_clients', 'GET /api/v2/api_clients'].map((key) => ({
    key,
    at: /^\/data(\/\d+)?$/,
    keyword: 'required',
    fields: ['active', 'active_since', 'auth_token'],
    reason:
      'the description requires these fields of an API client but never defines them (a mistake of its own: they are ' +
      "an API key's), so its generated models do not ask for them",
  })),
  ...['POST /api/api_collections', 'GET /api/api_collections'].map((key) => ({
    key,
    at: /^(\/\d+)?\/project_id$/,
    keyword: 'type',
    reason:
      "an integer, which the platform's own command-line tool (wk, ../shared/real-clients/wk.md) decodes and a " +
      'string would fail; the description types it as a string, and the clients generated from it read an ' +
      'integer too (their models take the project id as a string or convert it)',
  })),
  ...['POST /api/data_tables', 'GET /api/data_tables'].map((key) => ({
    key,
    at: /^\/data(\/\d+)?\/schema\/\d+\/relation$/,
    keyword: 'type',
    reason:
      "null for a column that is not a relation, as the issue and the platform's docs say; the description marks it " +
      '`nullable` beside its `$ref`, a sibling OpenAPI 3.0 ignores',
  })),
];

interface Sent {
  status: number;
  body: Json;
  contentType: string;
}

let server: MockServer;
let bearer: string;

async function send(
  method: string,
  path: string,
  options: { query?: Record<string, string>; body?: unknown; raw?: Uint8Array<ArrayBuffer> } = {},
): Promise<Sent> {
  const query = options.query ? `?${new URLSearchParams(options.query)}` : '';
  const headers: Record<string, string> = { authorization: `Bearer ${bearer}` };
  let body: string | Uint8Array<ArrayBuffer> | undefined;
  if (options.raw) {
    headers['content-type'] = 'application/octet-stream';
    body = options.raw;
  } else if (options.body !== undefined) {
    headers['content-type'] = 'application/json';
    body = JSON.stringify(options.body);
  }
  const response = await fetch(`${server.url}${path}${query}`, { method, headers, body });
  const contentType = response.headers.get('content-type') ?? '';
  const bytes = new Uint8Array(await response.arrayBuffer());
  const text = new TextDecoder().decode(bytes);
  return {
    status: response.status,
    contentType,
    body: contentType.includes('json') && text ? JSON.parse(text) : bytes,
  };
}

const validators = new Map<string, ValidateFunction>();

/** Asserts that the answer is one the description declares for the operation, valid against its schema. */
function holdsToReference(key: string, answer: Sent): void {
  const { op } = defined(
    referenceOperations.find((o) => o.key === key),
    key,
  );
  const declared = deref(op.responses[String(answer.status)]);
  expect(
    declared,
    `${key} answered ${answer.status}, which the description does not declare: ${JSON.stringify(answer.body)}`,
  ).toBeDefined();
  const [mediaType, media] = Object.entries((declared.content ?? {}) as Record<string, Json>)[0] ?? [];
  if (!mediaType || !media.schema) return;
  expect(answer.contentType.split(';')[0]).toBe(mediaType);
  if (!mediaType.includes('json')) return;
  const validatorKey = `${key} ${answer.status}`;
  let validate = validators.get(validatorKey);
  if (!validate) {
    validate = ajv.compile(jsonSchemaOf(media.schema));
    validators.set(validatorKey, validate);
  }
  validate(answer.body);
  const excused = (error: ErrorObject) =>
    EXCEPTIONS.some(
      (e) =>
        e.key === key &&
        e.keyword === error.keyword &&
        e.at.test(error.instancePath) &&
        (!e.fields || e.fields.includes(error.params.missingProperty)),
    );
  const errors = (validate.errors ?? []).filter((error) => !excused(error));
  expect(
    errors.map((e) => `${e.instancePath} ${e.message}`),
    `${key} ${answer.status} ${JSON.stringify(answer.body)}`,
  ).toEqual([]);
}

const covered = new Set<string>();
/**
 * Sends the request of one reference operation, holds the answer to the description and expects the
 * description's success status.
 */
async function exercise(key: string, path: string, options: Parameters<typeof send>[2] = {}) {
  const [method] = key.split(' ');
  const answer = await send(defined(method, key), path, options);
  holdsToReference(key, answer);
  const expected = Number(
    Object.keys(referenceOperations.find((o) => o.key === key)?.op.responses ?? {}).find((s) => s.startsWith('2')),
  );
  expect(answer.status, `${key}: ${JSON.stringify(answer.body)}`).toBe(expected);
  covered.add(key);
  return answer.body as Json;
}

beforeAll(async () => {
  server = await startMockServer({
    seed: {
      version: 1,
      resources: {
        custom_connector: [{ id: 1, name: 'acme_crm', title: 'Acme CRM', latest_released_version: 1 }],
        api_collection: [{ id: 1, name: 'Seeded collection', project_id: 1 }],
        api_endpoint: [{ id: 1, api_collection_id: 1, name: 'Get order' }],
        folder: [{ id: 1, name: 'Contract project', parent_id: null }],
        project: [{ id: 1, name: 'Contract project', folder_id: 1 }],
        connector: [{ name: 'jira', title: 'Jira', $pick_lists: { sobject_fields: [['Record ID', 'Id']] } }],
      },
    },
  });
  bearer = await token(server);
});
afterAll(() => server?.close());

describe.skipIf(referenceMissing !== undefined)(
  `the platform's public description as a response contract${skipped}`,
  () => {
    // The order matters: later operations use what earlier ones created.
    const made: Record<string, Json> = {};

    it('GET /api/users/me', async () => {
      made.me = await exercise('GET /api/users/me', '/api/users/me');
    });

    it('POST /api/folders, its example sent, then with the new folder as parent_id, as a string and as a number', async () => {
      made.folder = await exercise('POST /api/folders', '/api/folders', { body: requestExample('POST /api/folders') });
      made.child = await exercise('POST /api/folders', '/api/folders', {
        body: { name: 'child', parent_id: String(made.folder.id) },
      });
      await exercise('POST /api/folders', '/api/folders', { body: { name: 'other child', parent_id: made.folder.id } });
    });

    it('GET /api/folders', async () => {
      const listed = await exercise('GET /api/folders', '/api/folders', {
        query: { parent_id: String(made.folder.id), page: '1', per_page: '100' },
      });
      expect(listed.map((f: Json) => f.name).sort()).toEqual(['child', 'other child']);
    });

    it('GET /api/projects', async () => {
      const projects = await exercise('GET /api/projects', '/api/projects', { query: { page: '1', per_page: '100' } });
      made.projectRecord = projects.find((p: Json) => p.name === 'Contract project');
      expect(made.projectRecord, JSON.stringify(projects)).toBeDefined();
    });

    it('POST /api/properties and GET /api/properties', async () => {
      const project_id = String(made.projectRecord.id);
      await exercise('POST /api/properties', '/api/properties', {
        query: { project_id },
        body: requestExample('POST /api/properties'),
      });
      const listed = await exercise('GET /api/properties', '/api/properties', {
        query: { prefix: 'admin', project_id },
      });
      expect(listed).toMatchObject({ admin_email: 'lucy.carrigan@example.com' });
    });

    it('POST /api/connections, its example sent, and in a folder given as a string', async () => {
      made.connection = await exercise('POST /api/connections', '/api/connections', {
        body: { ...requestExample('POST /api/connections'), shell_connection: true },
      });
      expect(made.connection.application).toBe('jira');
      made.oauthParent = await exercise('POST /api/connections', '/api/connections', {
        body: { name: 'Drive', provider: 'google_drive', folder_id: String(made.folder.id) },
      });
    });

    it('PUT /api/connections/{connection_id}, its example sent', async () => {
      const updated = await exercise('PUT /api/connections/{connection_id}', `/api/connections/${made.connection.id}`, {
        body: { ...requestExample('PUT /api/connections/{connection_id}'), folder_id: made.folder.id },
      });
      expect(updated).toMatchObject({ id: made.connection.id, application: 'jira', folder_id: made.folder.id });
    });

    it('POST /api/connections/runtime_user_connections and GET .../get_oauth_url', async () => {
      const created = await exercise(
        'POST /api/connections/runtime_user_connections',
        '/api/connections/runtime_user_connections',
        {
          body: {
            ...requestExample('POST /api/connections/runtime_user_connections'),
            parent_id: made.oauthParent.id,
            folder_id: made.folder.id,
          },
        },
      );
      const url = await exercise(
        'GET /api/connections/runtime_user_connections/{connection_id}/get_oauth_url',
        `/api/connections/runtime_user_connections/${created.data.id}/get_oauth_url`,
      );
      expect(url.data.url).toBe(created.data.url);
      const listed = await exercise('GET /api/connections', '/api/connections', {
        query: { parent_id: String(made.oauthParent.id), include_runtime_connections: 'true' },
      });
      expect(listed.map((c: Json) => c.id)).toEqual([created.data.id]);
      const withoutRuntime = await exercise('GET /api/connections', '/api/connections', {
        query: { parent_id: String(made.oauthParent.id) },
      });
      expect(withoutRuntime).toEqual([]);
    });

    it('POST /api/connections/{connection_id}/pick_list, its example sent', async () => {
      const picked = await exercise(
        'POST /api/connections/{connection_id}/pick_list',
        `/api/connections/${made.connection.id}/pick_list`,
        {
          body: requestExample('POST /api/connections/{connection_id}/pick_list'),
        },
      );
      expect(picked.data.length).toBeGreaterThan(0);
    });

    it('GET /api/connections', async () => {
      const listed = await exercise('GET /api/connections', '/api/connections', {
        query: { folder_id: String(made.folder.id) },
      });
      expect(listed.map((c: Json) => c.id)).toContain(made.connection.id);
    });

    it('GET /api/recipes, PUT start, stop and connect', async () => {
      const created = await send('POST', '/api/recipes', {
        body: { recipe: { name: 'Contract recipe', folder_id: String(made.folder.id), code: '{}' } },
      });
      expect(created.status, JSON.stringify(created.body)).toBe(200);
      made.recipe = created.body;
      await exercise('PUT /api/recipes/{recipe_id}/connect', `/api/recipes/${made.recipe.id}/connect`, {
        body: {
          ...requestExample('PUT /api/recipes/{recipe_id}/connect'),
          adapter_name: 'jira',
          connection_id: made.connection.id,
        },
      });
      await exercise('PUT /api/recipes/{recipe_id}/start', `/api/recipes/${made.recipe.id}/start`);
      // The platform's own tool sends running=false by default, meaning "no filter": the running recipe is listed.
      const all = await exercise('GET /api/recipes', '/api/recipes', {
        query: { running: 'false', page: '1', per_page: '100' },
      });
      expect(all.items.map((r: Json) => r.id)).toContain(made.recipe.id);
      const running = await exercise('GET /api/recipes', '/api/recipes', { query: { running: 'true' } });
      expect(running.items.map((r: Json) => r.id)).toEqual([made.recipe.id]);
      await exercise('PUT /api/recipes/{recipe_id}/stop', `/api/recipes/${made.recipe.id}/stop`);
    });

    it('GET /api/export_manifests/folder_assets, POST /api/export_manifests, then export, get and download a package', async () => {
      const assets = await exercise('GET /api/export_manifests/folder_assets', '/api/export_manifests/folder_assets', {
        query: { folder_id: String(made.folder.id), include_test_cases: 'false', include_data: 'false' },
      });
      expect(assets.result.assets.length).toBeGreaterThan(0);
      const body = requestExample('POST /api/export_manifests');
      body.export_manifest.assets = [
        { id: made.recipe.id, type: 'recipe', absolute_path: 'All projects/Salesforce folder' },
      ];
      body.export_manifest.folder_id = made.folder.id;
      const manifest = await exercise('POST /api/export_manifests', '/api/export_manifests', { body });
      const exported = await exercise('POST /api/packages/export/{id}', `/api/packages/export/${manifest.result.id}`);
      const read = await exercise('GET /api/packages/{package_id}', `/api/packages/${exported.id}`);
      expect(read.status).toBe('completed');
      const zip = await exercise('GET /api/packages/{package_id}/download', `/api/packages/${exported.id}/download`);
      made.zip = zip;
    });

    it('POST /api/packages/import/{id}', async () => {
      await exercise('POST /api/packages/import/{id}', `/api/packages/import/${made.folder.id}`, {
        query: { restart_recipes: 'false', include_tags: 'false' },
        raw: made.zip,
      });
    });

    it('GET /api/integrations/all', async () => {
      await exercise('GET /api/integrations/all', '/api/integrations/all', { query: { page: '1', per_page: '1' } });
    });

    it('GET /api/custom_connectors and GET /api/custom_connectors/{id}/code', async () => {
      const listed = await exercise('GET /api/custom_connectors', '/api/custom_connectors');
      const code = await exercise(
        'GET /api/custom_connectors/{id}/code',
        `/api/custom_connectors/${listed.result[0].id}/code`,
      );
      expect(code.data.code).toContain('Acme CRM');
    });

    it('POST /api/data_tables, its example sent, and GET /api/data_tables', async () => {
      const body = requestExample('POST /api/data_tables');
      body.folder_id = made.folder.id;
      body.schema = [{ type: 'string', name: 'application_id', optional: true }];
      const created = await exercise('POST /api/data_tables', '/api/data_tables', { body });
      expect(created.data.schema[0].relation).toBeNull();
      await exercise('GET /api/data_tables', '/api/data_tables', { query: { page: '1', per_page: '100' } });
    });

    it('POST /api/api_collections, GET /api/api_collections, GET /api/api_endpoints, enable and disable', async () => {
      const collection = await exercise('POST /api/api_collections', '/api/api_collections', {
        body: {
          ...requestExample('POST /api/api_collections'),
          project_id: made.projectRecord.id,
          proxy_connection_id: made.connection.id,
        },
      });
      made.collection = collection;
      await exercise('GET /api/api_collections', '/api/api_collections', { query: { page: '1', per_page: '100' } });
      // Endpoints come from a collection's OpenAPI document: the seeded collection has one.
      const endpoints = await exercise('GET /api/api_endpoints', '/api/api_endpoints', {
        query: { api_collection_id: '1' },
      });
      const endpoint = defined(endpoints[0], 'the seeded endpoint');
      await exercise('PUT /api/api_endpoints/{api_endpoint_id}/enable', `/api/api_endpoints/${endpoint.id}/enable`);
      await exercise('PUT /api/api_endpoints/{api_endpoint_id}/disable', `/api/api_endpoints/${endpoint.id}/disable`);
    });

    it('POST /api/v2/api_clients, its example sent, GET, then its keys: create, list, refresh_secret', async () => {
      const body = requestExample('POST /api/v2/api_clients');
      body.api_collection_ids = [made.collection.id];
      body.project_id = made.projectRecord.id;
      const client = await exercise('POST /api/v2/api_clients', '/api/v2/api_clients', { body });
      await exercise('GET /api/v2/api_clients', '/api/v2/api_clients', { query: { page: '1', per_page: '100' } });
      const keys = `/api/v2/api_clients/${client.data.id}/api_keys`;
      const key = await exercise('POST /api/v2/api_clients/{api_client_id}/api_keys', keys, {
        body: requestExample('POST /api/v2/api_clients/{api_client_id}/api_keys'),
      });
      await exercise('GET /api/v2/api_clients/{api_client_id}/api_keys', keys);
      await exercise(
        'PUT /api/v2/api_clients/{api_client_id}/api_keys/{api_key_id}/refresh_secret',
        `${keys}/${key.data.id}/refresh_secret`,
      );
    });

    it('DELETE /api/projects/{project_id}', async () => {
      await exercise('DELETE /api/projects/{project_id}', `/api/projects/${made.projectRecord.id}`);
      const left = await exercise('GET /api/projects', '/api/projects');
      expect(left.map((project: { id: number }) => project.id)).not.toContain(made.projectRecord.id);
    });
  },
);

describe.skipIf(referenceMissing !== undefined)(`coverage${skipped}`, () => {
  it('every operation of the description was exercised', () => {
    expect(referenceOperations).toHaveLength(38);
    expect(referenceOperations.map((o) => o.key).filter((k) => !covered.has(k))).toEqual([]);
  });
});
