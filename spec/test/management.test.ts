// Holds the management bundle to the description's index: exactly its operations, each named,
// tagged by its index group, secured, with typed path parameters; deprecated where the
// description recommends migrating away; topics and v2 API keys modelled in full.
import { readFileSync } from 'node:fs';
import { describe, expect, test } from 'vitest';
import { deref, type Json, loadBundle, operationById, operations } from './support/bundles.js';

const doc = loadBundle('management');
const ops = operations(doc);

/** "METHOD path group" lines transcribed from api-description.md's index. */
const expected = readFileSync(new URL('./management-operations.txt', import.meta.url), 'utf8')
  .split('\n')
  .filter((line) => line && !line.startsWith('#'))
  .map((line) => {
    const [method, path, ...group] = line.split(' ');
    return { key: `${method} ${path}`, group: group.join(' ') };
  });

const key = (o: { method: string; path: string }) => `${o.method.toUpperCase()} ${o.path}`;

describe('the set of management operations', () => {
  test('is exactly the description index (238 operations, topics and their legacy forms included) and the 7 real clients call beyond it', () => {
    expect(expected).toHaveLength(245);
    expect(ops.map(key).sort()).toEqual(expected.map((e) => e.key).sort());
  });

  test('each operation is tagged with its index group, and every group is a described tag', () => {
    const groupOf = new Map(expected.map((e) => [e.key, e.group]));
    for (const o of ops) expect(o.op.tags, key(o)).toEqual([groupOf.get(key(o))]);
    const tags = new Map((doc.tags as Json[]).map((t) => [t.name, t.description]));
    for (const group of new Set(groupOf.values())) expect(tags.get(group), group).toBeTruthy();
  });

  test('operationIds are unique snake_case', () => {
    const ids = ops.map((o) => o.op.operationId);
    expect(new Set(ids).size).toBe(ids.length);
    for (const id of ids) expect(id).toMatch(/^[a-z][a-z0-9]*(_[a-z0-9]+)*$/);
  });

  test('each operation has a summary, bearer security and a 4xx response', () => {
    expect(doc.security).toEqual([{ BearerAuth: [] }]);
    for (const o of ops) {
      expect(o.op.summary, key(o)).toBeTruthy();
      expect(o.op.security, key(o)).toBeUndefined();
      expect(
        Object.keys(o.op.responses).some((s) => s.startsWith('4')),
        key(o),
      ).toBe(true);
    }
  });

  test('every path parameter is declared, required and typed', () => {
    for (const o of ops) {
      const names = [...o.path.matchAll(/\{([^}]+)\}/g)].map((m) => m[1]);
      const params = [...(o.pathItem.parameters ?? []), ...(o.op.parameters ?? [])]
        .map((p: Json) => deref(doc, p))
        .filter((p: Json) => p.in === 'path');
      expect(params.map((p: Json) => p.name).sort(), key(o)).toEqual([...names].sort());
      for (const p of params) {
        expect(p.required, `${key(o)} ${p.name}`).toBe(true);
        expect(['integer', 'string'], `${key(o)} ${p.name}`).toContain(p.schema.type);
      }
    }
  });

  test('older API clients, access profiles and /pubsub/topics forms are deprecated, and only they', () => {
    const deprecated = ops
      .filter((o) => o.op.deprecated)
      .map(key)
      .sort();
    expect(deprecated).toEqual(
      [
        'GET /api/api_clients',
        'POST /api/api_clients',
        'GET /api/api_access_profiles',
        'POST /api/api_access_profiles',
        'PUT /api/api_access_profiles',
        'PUT /api_access_profiles',
        'PUT /api/api_access_profiles/{id}/refresh_secret',
        ...expected.filter((e) => e.key.includes(' /pubsub/topics')).map((e) => e.key),
      ].sort(),
    );
  });

  test('the data-table record API is served from {data_tables_url}', () => {
    for (const o of ops.filter((o) => o.path.startsWith('/api/v1/tables/'))) {
      const servers = o.pathItem.servers ?? o.op.servers;
      expect(servers?.[0]?.url, key(o)).toBe('{data_tables_url}');
    }
  });
});

describe('payloads the emulator implements are modelled in full', () => {
  const schemas = doc.components.schemas as Json;

  test('Topic: id, name, description, schema, retention, timestamps', () => {
    expect(Object.keys(schemas.Topic.properties).sort()).toEqual([
      'created_at',
      'description',
      'id',
      'name',
      'retention',
      'schema',
      'updated_at',
    ]);
    expect(schemas.Topic.properties.retention.maximum).toBe(90 * 24 * 3600);
    expect(schemas.TopicCreateRequest.required.sort()).toEqual(['name', 'schema']);
    expect(schemas.TopicCreateRequest.properties.retention.default).toBe(604800);
    expect(schemas.TopicSchemaField.properties.type.enum).toEqual([
      'string',
      'integer',
      'number',
      'boolean',
      'date',
      'date_time',
      'object',
      'array',
    ]);
  });

  test('API keys: scopes, enable/disable and refresh_secret returning the new secret once', () => {
    const byId = Object.fromEntries(ops.map((o) => [o.op.operationId, o]));
    for (const id of [
      'create_api_key',
      'enable_api_key',
      'disable_api_key',
      'refresh_api_key_secret',
      'list_api_clients',
      'create_api_client',
    ]) {
      expect(byId[id], id).toBeDefined();
    }
    const refresh = operationById(doc, 'refresh_api_key_secret');
    expect(key(refresh)).toBe('PUT /api/v2/api_clients/{api_client_id}/api_keys/{api_key_id}/refresh_secret');
    const refreshed = deref(doc, refresh.op.responses['200'].content['application/json'].schema);
    expect(JSON.stringify(refreshed)).toContain('auth_token');
    // Elsewhere the secret is masked: the field is there, as the platform's clients require, never its value.
    expect(schemas.ApiKey.properties.auth_token.description).toContain('masked');
    expect(schemas.ApiKey.properties.scopes.items.enum.sort()).toEqual([
      'api_clients:manage',
      'event_streams:consume',
      'event_streams:publish',
      'topics:manage',
    ]);
  });
});
