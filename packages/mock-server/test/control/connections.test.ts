// A connection's OAuth URL completes its authorization, on each storage: opening it (as a browser, a
// test or `$BROWSER=curl` does) makes the connection authorized as the management API shows it, and
// sends the browser on to its redirect or callback URL with the caller's `state`, or to a page saying
// it is authorized; the emulator API also ends an authorization either way for a test. What the
// Python CLI's `connections create-oauth` polls for (list_connections with include_runtime_connections,
// authorization_status `success`) is what the tests read back.
import { describe, expect, it } from 'vitest';
import type { MockServer } from '../../src/index.js';
import { unknownUrl } from '../../src/tenants/url-scope.js';
import { control, emulatorErrorOf } from '../support/control/emulator-api.js';
import { storages } from '../support/control/storages.js';
import { session } from '../support/helpers.js';

const T0 = '2030-01-01T00:00:00.000Z';
const SEED = {
  version: 1,
  resources: {
    folder: [{ id: 7, name: 'Sales', parent_id: null }],
    connection: [
      { id: 3, name: 'Salesforce', application: 'salesforce', provider: 'salesforce', folder_id: 7 },
      {
        id: 4,
        name: 'Jira',
        application: 'jira',
        provider: 'jira',
        folder_id: 7,
        authorization_status: 'failed',
        authorization_error: 'expired',
        connection_lost_at: '2029-12-31T00:00:00.000Z',
        connection_lost_reason: 'token revoked',
      },
    ],
  },
};

/** Opens the URL as a browser would, without following the redirect. */
const open = (url: string, method = 'GET') => fetch(url, { method, redirect: 'manual' });
/** What every URL the emulator did not give answers, whatever it names: nothing tells one tenant's from none. */
const UNKNOWN_URL = unknownUrl().message;

for (const storage of storages) {
  describe.skipIf(storage.skip !== undefined)(
    `a connection's OAuth URL ${storage.name}${storage.skip ? ` (skipped: ${storage.skip})` : ''}`,
    () => {
      async function frozenSession() {
        // The clock stands at T0 from the start: the session's token is issued then too.
        const { server, run } = await session({
          ...(await storage.options()),
          seed: SEED,
          clock: () => Date.parse(T0),
        });
        const runtimeConnection = async (urls: { callback_url?: string; redirect_url?: string }) => {
          const created = await run('create_runtime_user_connection', {
            body: { parent_id: 3, folder_id: 7, external_id: 'lucy@example.com', ...urls },
          });
          expect(created.status).toBe(200);
          return created.body.data;
        };
        const listed = async (id: number) => {
          const all = await run('list_connections', { query: { include_runtime_connections: 'true' } });
          return all.body.find((connection) => connection.id === id);
        };
        return { server, run, runtimeConnection, listed };
      }

      it('authorizes the connection when opened and redirects to its redirect URL, with state', async () => {
        const { run, runtimeConnection, listed } = await frozenSession();
        const { id, url } = await runtimeConnection({
          callback_url: 'https://app.example.com/oauth/callback',
          redirect_url: 'https://app.example.com/done?from=emulator#top',
        });
        expect(await listed(id)).toMatchObject({ authorization_status: null, authorized_at: null });
        const opened = await open(`${url}&state=${encodeURIComponent('xyz 1/2')}`);
        expect([opened.status, opened.headers.get('location')]).toEqual([
          302,
          'https://app.example.com/done?from=emulator&state=xyz%201%2F2#top',
        ]);
        expect(await listed(id)).toMatchObject({
          authorization_status: 'success',
          authorized_at: T0,
          authorization_error: null,
          updated_at: T0,
        });
        // The URL stays the same, and opening it again authorizes again (no state: none added).
        expect((await run('get_connection_oauth_url', { params: { connection_id: id } })).body.data.url).toBe(url);
        expect((await open(url)).headers.get('location')).toBe('https://app.example.com/done?from=emulator#top');
      });

      it('redirects to the callback URL without a redirect URL, and shows a page without either', async () => {
        const { run, runtimeConnection, listed } = await frozenSession();
        const withCallback = await runtimeConnection({ callback_url: 'https://app.example.com/' });
        const opened = await open(`${withCallback.url}&state=s1`);
        expect([opened.status, opened.headers.get('location')]).toEqual([302, 'https://app.example.com/?state=s1']);
        // A connection made otherwise (no URLs) is authorized by its get_connection_oauth_url too.
        const { url } = (await run('get_connection_oauth_url', { params: { connection_id: 4 } })).body.data;
        const page = await open(url);
        expect([page.status, page.headers.get('content-type')]).toEqual([200, 'text/html; charset=utf-8']);
        expect(await page.text()).toContain('The connection Jira (4) is authorized');
        expect(await listed(4)).toMatchObject({
          authorization_status: 'success',
          authorized_at: T0,
          authorization_error: null,
          connection_lost_at: null,
          connection_lost_reason: null,
        });
        expect(await listed(withCallback.id)).toMatchObject({ authorization_status: 'success' });
      });

      it('is completed by curl, as `$BROWSER=curl` opens it: a HEAD changes nothing', async () => {
        const { runtimeConnection, listed } = await frozenSession();
        const { id, url } = await runtimeConnection({});
        const head = await open(url, 'HEAD');
        expect(head.status).toBe(200);
        expect(await listed(id)).toMatchObject({ authorization_status: null });
        const curl = await fetch(url, { headers: { 'user-agent': 'curl/8.14.1', accept: '*/*' } });
        expect([curl.status, await listed(id)]).toMatchObject([200, { authorization_status: 'success' }]);
      });

      it('fails or authorizes a connection for a test through the emulator API', async () => {
        const { server, listed } = await frozenSession();
        const failed = await control(server, 'set_connection_authorization', {
          params: { connection_id: 3 },
          body: { outcome: 'failure', error: 'The user denied access' },
        });
        expect(failed.body).toEqual({
          id: 3,
          authorization_status: 'failed',
          authorized_at: null,
          authorization_error: 'The user denied access',
        });
        expect(await listed(3)).toMatchObject({ authorization_status: 'failed', updated_at: T0 });
        await control(server, 'set_clock', { body: { advance_seconds: 60 } });
        const authorized = await control(server, 'set_connection_authorization', {
          params: { connection_id: 3 },
          body: { outcome: 'success' },
        });
        const later = '2030-01-01T00:01:00.000Z';
        expect(authorized.body).toEqual({
          id: 3,
          authorization_status: 'success',
          authorized_at: later,
          authorization_error: null,
        });
        const denied = await control(server, 'set_connection_authorization', {
          params: { connection_id: 3 },
          body: { outcome: 'failure' },
        });
        expect(denied.body).toMatchObject({ authorized_at: later, authorization_error: 'Authorization was denied' });
      });

      it('refuses a URL it did not give (404) and a request its spec does not allow (400)', async () => {
        const { server, run, listed } = await frozenSession();
        const base = `${server.url}/_emulator/oauth/authorize`;
        const { url } = (await run('get_connection_oauth_url', { params: { connection_id: 3 } })).body.data;
        const given = new URL(url);
        const unknownUrls = [
          `${base}?connection_id=3`,
          url.replace('connection_id=3', 'connection_id=4'),
          url.replace(/key=[^&]+/, 'key=AAAA'),
          url.replace('workspace=1', 'workspace=2'),
          url.replace('environment=dev', 'environment=prod'),
        ];
        for (const unknown of unknownUrls) {
          const answer = await open(unknown);
          expect([answer.status, (await answer.json()).message], unknown).toEqual([404, UNKNOWN_URL]);
        }
        expect(await listed(3)).toMatchObject({ authorization_status: null });
        const notAWorkspace = given.search.replace('workspace=1', 'workspace=x');
        for (const query of ['', '?connection_id=abc', '?connection_id=0', notAWorkspace]) {
          expect((await open(`${base}${query}`)).status, query).toBe(400);
        }
        const missing = await control(server, 'set_connection_authorization', {
          params: { connection_id: 99 },
          body: { outcome: 'success' },
        });
        expect([missing.status, emulatorErrorOf(missing).message]).toEqual([404, 'Connection 99 was not found']);
        for (const body of [
          {},
          { outcome: 'maybe' },
          { outcome: 'success', error: 'no' },
          { outcome: 'failure', x: 1 },
        ]) {
          const refused = await control(server, 'set_connection_authorization', { params: { connection_id: 3 }, body });
          expect(refused.status, JSON.stringify(body)).toBe(400);
        }
      });
    },
  );
}

describe("a connection's authorization, kept", () => {
  it('across a restart with a data dir', async () => {
    const [, dataDir] = storages;
    const options = { ...(await dataDir?.options()), seed: SEED };
    const first: MockServer = (await session(options)).server;
    await control(first, 'set_connection_authorization', {
      params: { connection_id: 3 },
      body: { outcome: 'success' },
    });
    await first.close();
    const { run } = await session(options);
    const listed = await run('list_connections');
    expect(listed.body.find((connection) => connection.id === 3)).toMatchObject({ authorization_status: 'success' });
  });
});
