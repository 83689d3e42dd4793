// POST /_emulator/reset is a fresh emulator: the state emptied, and the bootstrap key as it was at
// start (enabled, its secret, every right), whatever a test did to it; faults, journal and clock too.
import { describe, expect, it } from 'vitest';
import { control } from '../support/control/emulator-api.js';
import { storages } from '../support/control/storages.js';
import { call, start, token } from '../support/helpers.js';

for (const storage of storages) {
  describe.skipIf(storage.skip !== undefined)(
    `reset ${storage.name}${storage.skip ? ` (skipped: ${storage.skip})` : ''}`,
    () => {
      it('restores the bootstrap key that a test narrowed, re-keyed and disabled', async () => {
        const server = await start(await storage.options());
        const admin = await token(server);
        // A second key of the bootstrap key's client, with every right, changes the first.
        const other = await call(server, 'create_api_key', {
          token: admin,
          params: { api_client_id: 1 },
          body: { name: 'extra' },
        });
        const { client_id, auth_token } = (other.body as { data: { client_id: string; auth_token: string } }).data;
        const operator = await token(server, client_id, auth_token);
        const params = { api_client_id: 1, api_key_id: 1 };
        const change = { token: operator, params };
        const narrowed = await call(server, 'update_api_key', {
          ...change,
          body: { scopes: ['event_streams:consume'] },
        });
        expect(narrowed.status).toBe(200);
        expect((await call(server, 'refresh_api_key_secret', change)).status).toBe(200);
        expect((await call(server, 'disable_api_key', change)).status).toBe(200);
        expect((await call(server, 'list_topics', { token: admin })).status).toBe(401);

        expect((await control(server, 'reset')).status).toBe(204);
        const restored = await token(server);
        expect((await call(server, 'list_topics', { token: restored })).status).toBe(200);
        const keys = await call(server, 'list_api_keys', { token: restored, params: { api_client_id: 1 } });
        const listed = (keys.body as { data: { id: number; active: boolean; scopes: string[] }[] }).data;
        expect(listed.map(({ id, active, scopes }) => ({ id, active, scopes: [...scopes].sort() }))).toEqual([
          {
            id: 1,
            active: true,
            scopes: ['api_clients:manage', 'event_streams:consume', 'event_streams:publish', 'topics:manage'],
          },
        ]);
        expect((await call(server, 'list_topics', { token: operator })).status).toBe(401);
      });

      it('keeps the tokens of an unchanged bootstrap key, and clears faults, journal and clock', async () => {
        const server = await start(await storage.options());
        const admin = await token(server);
        await control(server, 'set_clock', { body: { now: '2030-01-01T00:00:00Z', frozen: true } });
        await control(server, 'add_fault', { body: { operation: 'list_topics', status: 500 } });
        expect((await control(server, 'reset')).status).toBe(204);
        expect((await call(server, 'list_topics', { token: admin })).status).toBe(200);
        expect((await control(server, 'get_clock')).body?.frozen).toBe(false);
        const journal = (await control(server, 'list_requests')).body;
        expect(journal?.requests.map((entry) => entry.operation)).toEqual(['list_topics']);
      });
    },
  );
}
