// The module against the image of this checkout (built by test/support/engine.ts), in a real container engine.
import { chmodSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { clientCredentials, createManagementClient, type ThrowingManagementClient } from '@platform-api/client';
import { Emulator } from '@platform-api/mock-server/testkit/emulator';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import {
  type EmulatorWorkspace,
  PlatformEmulatorContainer,
  type StartedPlatformEmulatorContainer,
} from '../src/index.js';

const engine = inject('containerEngine');
if ('missing' in engine) {
  console.warn(`Skipping the Testcontainers tests: ${engine.missing}`);
} else {
  process.env.DOCKER_HOST = engine.dockerHost;
  // Ryuk (testcontainers' reaper) is an image to pull; afterAll stops the container instead.
  process.env.TESTCONTAINERS_RYUK_DISABLED = 'true';
}

describe.skipIf('missing' in engine)('PlatformEmulatorContainer', () => {
  let emulator: StartedPlatformEmulatorContainer;

  beforeAll(async () => {
    emulator = await new PlatformEmulatorContainer()
      .withCredentials('tc-client', 'tc-secret')
      .withEmulatorFlags('--max-batch-size', '2')
      .start();
  });

  afterAll(async () => {
    await emulator?.stop();
  });

  /** The management client of a workspace, signed in with its own bootstrap key. */
  const managementOf = (workspace: EmulatorWorkspace): ThrowingManagementClient => {
    const { clientId, clientSecret } = workspace;
    const auth = clientCredentials({ authUrl: emulator.getUrl(), clientId, clientSecret });
    return createManagementClient({ baseUrl: emulator.getUrl(), auth, throwOnError: true });
  };

  it('serves the platform on a mapped port: a token, a topic, a publish and a consume', async () => {
    expect(emulator.getUrl()).toMatch(/^http:\/\/[^:]+:\d+$/);
    const token = await emulator.createTokenClient().POST('/oauth2/token', {
      body: { grant_type: 'client_credentials', client_id: 'tc-client', client_secret: 'tc-secret' },
      bodySerializer: (body) => new URLSearchParams(body as Record<string, string>).toString(),
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
    });
    expect(token.response.status).toBe(200);
    expect(emulator.getClientId()).toBe('tc-client');
    expect(emulator.getClientSecret()).toBe('tc-secret');

    const management = emulator.createManagementClient({ throwOnError: true });
    const { data: topic } = await management.POST('/api/event_streams/topics', {
      body: { name: 'orders', schema: [{ name: 'order_id', type: 'string' }] },
    });
    const events = emulator.createEventStreamsClient();
    const published = [
      await events.publish(topic.id, { order_id: 'ORD-1' }),
      await events.publish(topic.id, { order_id: 'ORD-2' }),
      await events.publish(topic.id, { order_id: 'ORD-3' }),
    ];
    const consumed: string[] = [];
    for await (const message of events.consume(topic.id, { stopAtEnd: true, timeoutSecs: 0 })) {
      consumed.push(message.message_id);
    }
    expect(consumed).toEqual(published);
  });

  it('gives each workspace its own state: a topic of one is not listed in the other, a reset of one leaves the other', async () => {
    const [mine, theirs] = await Promise.all([emulator.workspace({ name: 'Mine' }), emulator.workspace()]);
    try {
      const myManagement = managementOf(mine);
      const theirManagement = managementOf(theirs);
      await myManagement.POST('/api/event_streams/topics', {
        body: { name: 'mine', schema: [{ name: 'id', type: 'string' }] },
      });
      await theirManagement.POST('/api/event_streams/topics', {
        body: { name: 'theirs', schema: [{ name: 'id', type: 'string' }] },
      });
      const topicNames = async (management: ThrowingManagementClient) =>
        (await management.GET('/api/event_streams/topics', {})).data.data.map((topic) => topic.name);
      expect(await topicNames(myManagement)).toEqual(['mine']);
      expect(await topicNames(theirManagement)).toEqual(['theirs']);

      await mine.reset();
      expect(await topicNames(myManagement)).toEqual([]);
      expect(await topicNames(theirManagement)).toEqual(['theirs']);
      // Each journal holds its own workspace's requests; the container's own workspace saw none of them.
      expect(await theirs.requests({ operation: 'create_topic' })).toHaveLength(1);
      expect(await emulator.emulator().requests({ client_id: mine.clientId })).toEqual([]);
    } finally {
      await Promise.all([mine.delete(), theirs.delete()]);
    }
  });

  it('refuses the fleet-level calls without its admin token: a 401 that names the bearer scheme', async () => {
    const refused = async (init?: RequestInit) => {
      const answer = await fetch(`${emulator.getUrl()}/_emulator/workspaces`, init);
      return { status: answer.status, challenge: answer.headers.get('www-authenticate'), body: await answer.json() };
    };
    const expected = {
      status: 401,
      challenge: 'Bearer realm="platform-api-mock"',
      body: { message: expect.stringContaining('needs the admin token') },
    };
    expect(await refused()).toEqual(expected);
    expect(await refused({ headers: { authorization: 'Bearer not-the-admin-token' } })).toEqual(expected);
    const withoutToken = new Emulator({ ...emulator.emulator().connection, adminToken: undefined });
    await expect(withoutToken.workspace()).rejects.toMatchObject({ name: 'EmulatorApiError', status: 401 });
    // Naming a tenant other than the caller's own is fleet-level too: refused alike, whether it exists or not.
    const ws = await emulator.workspace();
    try {
      const scoped = await fetch(`${emulator.getUrl()}/_emulator/state?workspace=${ws.id}&environment=dev`);
      expect(scoped.status).toBe(401);
    } finally {
      await ws.delete();
    }
  });

  it('serves the web console and the docs from the image', async () => {
    for (const path of ['/_emulator/console/', '/_emulator/console/console.js', '/docs/']) {
      expect((await fetch(`${emulator.getUrl()}${path}`)).status, path).toBe(200);
    }
  });

  it('passes platform-api-mock flags to the emulator', async () => {
    const events = emulator.createEventStreamsClient();
    const management = emulator.createManagementClient({ throwOnError: true });
    const { data: topic } = await management.POST('/api/event_streams/topics', {
      body: { name: 'limited', schema: [{ name: 'n', type: 'integer' }] },
    });
    for (const n of [1, 2, 3]) await events.publish(topic.id, { n });
    // --max-batch-size 2: a consume asking for 50 gets 2 and more to come.
    const { data } = await events.POST('/api/v1/topics/{topic_id}/consume', {
      params: { path: { topic_id: topic.id } },
      body: { batch_size: 50, timeout_secs: 0 },
    });
    expect(data?.messages).toHaveLength(2);
    expect(data?.has_more).toBe(true);
  });

  it('reset() empties the state, and the container keeps serving', async () => {
    const management = emulator.createManagementClient({ throwOnError: true });
    await management.POST('/api/event_streams/topics', {
      body: { name: 'before-reset', schema: [{ name: 'id', type: 'string' }] },
    });
    await emulator.reset();
    const { data } = await management.GET('/api/event_streams/topics', {});
    expect(JSON.stringify(data)).not.toContain('before-reset');
  });

  it('emulator() verifies what was sent, and names the closest request when nothing matches', async () => {
    const fixture = emulator.emulator();
    await fixture.clearRequests();
    const management = emulator.createManagementClient({ throwOnError: true });
    const { data: topic } = await management.POST('/api/event_streams/topics', {
      body: { name: 'verified', schema: [{ name: 'order_id', type: 'string' }] },
    });
    await emulator.createEventStreamsClient().publish(topic.id, { order_id: 'A-1' });
    const sent = await fixture.expectRequest(
      { operation: 'publish_message', body: { order_id: 'A-1' }, client_id: 'tc-client' },
      { times: 1 },
    );
    expect(sent[0]?.response.status).toBe(201);
    await expect(fixture.expectRequest({ operation: 'publish_message', body: { order_id: 'NOPE' } })).rejects.toThrow(
      "body.order_id: 'A-1', want 'NOPE'",
    );
  });

  it('keeps --data-dir /data across containers: stopped by SIGTERM, the next one reads it back', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'emulator-data-'));
    // The emulator runs as uid 1000, not as the owner of this folder.
    chmodSync(dataDir, 0o777);
    const withDataDir = () =>
      new PlatformEmulatorContainer()
        .withBindMounts([{ source: dataDir, target: '/data' }])
        .withEmulatorFlags('--data-dir', '/data');
    try {
      const first = await withDataDir().start();
      const { data: topic } = await first
        .createManagementClient({ throwOnError: true })
        .POST('/api/event_streams/topics', {
          body: { name: 'kept', schema: [{ name: 'id', type: 'string' }] },
        });
      const messageId = await first.createEventStreamsClient().publish(topic.id, { id: 'A-1' });
      await first.stop();

      const second = await withDataDir().start();
      try {
        const kept: string[] = [];
        for await (const message of second
          .createEventStreamsClient()
          .consume(topic.id, { stopAtEnd: true, timeoutSecs: 0 })) {
          kept.push(message.message_id);
        }
        expect(kept).toEqual([messageId]);
      } finally {
        await second.stop();
      }
    } finally {
      rmSync(dataDir, { recursive: true, force: true });
    }
  });
});
