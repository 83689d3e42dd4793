// Prism mocks each bundled spec from code: one operation of each API answers with its example,
// and Prism's request validation refuses what the spec forbids.

import { fileURLToPath } from 'node:url';
import { createLogger } from '@stoplight/prism-core';
import { getHttpOperationsFromSpec } from '@stoplight/prism-http';
import { createServer } from '@stoplight/prism-http-server';
import { afterAll, describe, expect, test } from 'vitest';

type Mock = { url: string; close: () => Promise<void> };
const started: Mock[] = [];

async function mock(api: 'event-streams' | 'auth' | 'management'): Promise<Mock> {
  const operations = await getHttpOperationsFromSpec(fileURLToPath(new URL(`../dist/${api}.yaml`, import.meta.url)));
  const server = createServer(operations, {
    cors: false,
    components: { logger: createLogger('prism', { level: 'silent' }) },
    config: {
      isProxy: false,
      validateRequest: true,
      validateResponse: true,
      checkSecurity: true,
      errors: false,
      mock: { dynamic: false },
    },
  });
  const url = await server.listen(0, '127.0.0.1');
  const handle = { url, close: () => server.close() };
  started.push(handle);
  return handle;
}

afterAll(() => Promise.all(started.map((s) => s.close())));

const bearer = { authorization: 'Bearer test-token', 'content-type': 'application/json; charset=utf-8' };

describe('Prism mocks of the bundled specs', () => {
  test('event streams: publish answers 201 with the example message_id', async () => {
    const { url } = await mock('event-streams');
    const res = await fetch(`${url}/api/v1/topics/1042/publish`, {
      method: 'POST',
      headers: bearer,
      body: JSON.stringify({ order_id: 'ORD-1' }),
    });
    expect(res.status).toBe(201);
    expect(await res.json()).toEqual({ message_id: '01JDB6Q5V4X7R2K9M3N8P0T6WZ' });

    const invalid = await fetch(`${url}/api/v1/topics/1042/consume`, {
      method: 'POST',
      headers: bearer,
      body: JSON.stringify({ timeout_secs: 61 }),
    });
    expect(invalid.status).toBe(400);
    const unauthenticated = await fetch(`${url}/api/v1/topics/1042/consume`, { method: 'POST', body: '{}' });
    expect(unauthenticated.status).toBe(401);
  });

  test('token endpoint: a JSON client-credentials request gets a bearer token', async () => {
    const { url } = await mock('auth');
    const res = await fetch(`${url}/oauth2/token`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ grant_type: 'client_credentials', client_id: 'id', client_secret: 'secret' }),
    });
    expect(res.status).toBe(200);
    expect(await res.json()).toMatchObject({ token_type: 'bearer', expires_in: 3600 });
  });

  test('management: get a topic answers the example topic', async () => {
    const { url } = await mock('management');
    const res = await fetch(`${url}/api/event_streams/topics/1042`, { headers: bearer });
    expect(res.status).toBe(200);
    expect(await res.json()).toMatchObject({ id: 1042, name: 'orders' });
  });
});
