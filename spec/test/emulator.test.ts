// Holds the emulator's own API (/_emulator/*) to the description in issue 26 and the emulator's README:
// the exact operation set, the journal entry's fields, verification and clock bodies, one error shape.
import { describe, expect, test } from 'vitest';
import { deref, type Json, loadBundle, operationById, operations } from './support/bundles.js';

const doc = loadBundle('emulator');
const schemaOf = (operationId: string, status: string, media = 'application/json') =>
  deref(doc, deref(doc, operationById(doc, operationId).op.responses[status]).content[media].schema);
const bodyOf = (operationId: string) =>
  deref(doc, deref(doc, operationById(doc, operationId).op.requestBody).content['application/json'].schema);

describe('the emulator API', () => {
  test('describes every /_emulator endpoint, and no other', () => {
    expect(operations(doc).map((o) => `${o.method} ${o.path} ${o.op.operationId}`)).toEqual([
      'get /_emulator/faults list_faults',
      'post /_emulator/faults add_fault',
      'delete /_emulator/faults clear_faults',
      'get /_emulator/state export_state',
      'put /_emulator/state replace_state',
      'post /_emulator/reset reset',
      'get /_emulator/requests list_requests',
      'delete /_emulator/requests clear_requests',
      'post /_emulator/requests/verify verify_requests',
      'get /_emulator/requests/stream stream_requests',
      'get /_emulator/requests/{id} get_request',
      'get /_emulator/coverage get_coverage',
      'delete /_emulator/coverage clear_coverage',
      'get /_emulator/clock get_clock',
      'put /_emulator/clock set_clock',
      'delete /_emulator/clock reset_clock',
      'get /_emulator/spec/{api}.json get_spec',
      'get /_emulator/topics inspect_topics',
      'get /_emulator/topics/{topic_id}/messages inspect_messages',
      'post /_emulator/topics/{topic_id}/messages add_message',
      'get /_emulator/topics/{topic_id}/messages/stream stream_messages',
      'get /_emulator/resources list_resource_types',
      'get /_emulator/resources/{type} list_resources',
      'post /_emulator/resources/{type} create_resource',
      'delete /_emulator/resources/{type}/{id} delete_resource',
      'get /_emulator/oauth/authorize authorize_connection',
      'post /_emulator/connections/{connection_id}/authorize set_connection_authorization',
      'post /_emulator/mcp/{handle}/{token} mcp_message',
      'get /_emulator/workspaces list_workspaces',
      'post /_emulator/workspaces create_workspace',
      'get /_emulator/workspaces/{id} get_workspace',
      'delete /_emulator/workspaces/{id} delete_workspace',
    ]);
  });

  /** The URLs the emulator gives out to be opened without credentials: each names its tenant itself. */
  const givenOut = /^\/_emulator\/(oauth|mcp)\b/;
  const parameterNames = (path: string, op?: Json): string[] =>
    [...(doc.paths[path].parameters ?? []), ...(op?.parameters ?? [])].map(
      (parameter: Json) => deref(doc, parameter).name,
    );

  test("a call of one tenant's state names it by workspace and environment, and so does a URL given out", () => {
    const fleetOrUnscoped = /^\/_emulator\/(workspaces|spec)\b/;
    for (const { path, op } of operations(doc)) {
      const names = parameterNames(path, op);
      if (fleetOrUnscoped.test(path)) expect(names, path).not.toContain('workspace');
      else expect(names, path).toEqual(expect.arrayContaining(['workspace', 'environment']));
    }
  });

  test('the fleet-level calls declare the admin token, a tenant-scoped call it optional, each a 401', () => {
    expect(doc.components.securitySchemes.AdminToken).toMatchObject({ type: 'http', scheme: 'bearer' });
    for (const { path, op } of operations(doc)) {
      const scoped = !givenOut.test(path) && parameterNames(path).includes('workspace');
      const fleet = path.startsWith('/_emulator/workspaces');
      const expected = fleet ? [{ AdminToken: [] }] : scoped ? [{}, { AdminToken: [] }] : undefined;
      expect(op.security, op.operationId).toEqual(expected);
      if (expected) expect(Object.keys(op.responses), op.operationId).toContain('401');
    }
  });

  test('no credentials at its root, and every refusal is an EmulatorError with a message', () => {
    expect(doc.security).toEqual([]);
    for (const { op } of operations(doc)) {
      for (const [status, response] of Object.entries(op.responses as Json)) {
        if (!status.startsWith('4') || status === '409') continue;
        const schema = deref(doc, deref(doc, response).content['application/json'].schema);
        expect(schema.required, `${op.operationId} ${status}`).toEqual(['message']);
      }
    }
  });

  test('a journal entry has the fields the issue lists, credentials masked', () => {
    const entry = deref(doc, schemaOf('get_request', '200'));
    expect(entry.required.sort()).toEqual(
      [
        'api',
        'client_id',
        'duration_ms',
        'id',
        'method',
        'operation',
        'path',
        'query',
        'request',
        'response',
        'time',
      ].sort(),
    );
    expect(entry.properties.api.enum).toEqual(['event-streams', 'auth', 'management', null]);
    expect(entry.properties.operation.type).toEqual(['string', 'null']);
    const list = schemaOf('list_requests', '200');
    expect(list.required).toEqual(['requests', 'total']);
    const limit = operationById(doc, 'list_requests').op.parameters.find((p: Json) => p.name === 'limit');
    expect(limit.schema).toMatchObject({ minimum: 1, maximum: 1000, default: 100 });
  });

  test('verification: match, count and wait_ms up to 30 s; 409 with at most three near misses', () => {
    const verification = bodyOf('verify_requests');
    expect(Object.keys(verification.properties).sort()).toEqual(['count', 'match', 'wait_ms']);
    expect(verification.properties.wait_ms).toMatchObject({ minimum: 0, maximum: 30000 });
    const match = deref(doc, verification.properties.match);
    expect(Object.keys(match.properties).sort()).toEqual(
      ['body', 'client_id', 'method', 'operation', 'path', 'query', 'status'].sort(),
    );
    const failure = schemaOf('verify_requests', '409');
    expect(failure.required).toEqual(['matched', 'requests', 'near_misses']);
    expect(failure.properties.near_misses.maxItems).toBe(3);
    expect(failure.properties.near_misses.items.required).toEqual(['request', 'differences']);
  });

  test('the clock: now and frozen; a change sets, advances (never back) or freezes', () => {
    expect(schemaOf('get_clock', '200').required).toEqual(['now', 'frozen']);
    const change = bodyOf('set_clock');
    expect(change.properties.advance_seconds.minimum).toBe(0);
    expect(change.properties.now.format).toBe('date-time');
    expect(change.additionalProperties).toBe(false);
  });

  test('the live feed is Server-Sent Events, and the served specs are the four APIs', () => {
    const stream = operationById(doc, 'stream_requests').op;
    expect(Object.keys(stream.responses['200'].content)).toEqual(['text/event-stream']);
    const api = operationById(doc, 'get_spec').op.parameters[0];
    expect(api.schema.enum).toEqual(['event-streams', 'auth', 'management', 'emulator']);
  });
});
