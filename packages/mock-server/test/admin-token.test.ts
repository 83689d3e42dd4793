// The admin token (issue 42): beyond loopback, or when given one, the fleet-level calls of the emulator
// API (workspaces made, listed, read and deleted; another tenant's state named) need it, while a
// tenant's own state stays reachable with its own token. Tested on 127.0.0.1 with a token given, the
// "beyond loopback" decision on its own, and the banner of an emulator on 0.0.0.0 reached on 127.0.0.1.
import { describe, expect, test } from 'vitest';
import { adminTokenFor, isLoopback } from '../src/tenants/admission.js';
import { runCli } from './support/cli-process.js';
import { control, emulatorErrorOf } from './support/control/emulator-api.js';
import { defined } from './support/defined.js';
import { call, createTopic, start, token } from './support/helpers.js';
import { makeWorkspace, type TenantHandle } from './support/tenants.js';

const ADMIN_TOKEN = 'fleet-admin-token-of-this-test';
const admin = { authorization: `Bearer ${ADMIN_TOKEN}` };

describe('the decision: an admin token when listening beyond loopback', () => {
  test('loopback hosts need none; any other host gets a new one; a given one is kept, or refused when malformed', () => {
    for (const host of ['127.0.0.1', '127.3.2.1', '::1', 'localhost', 'LOCALHOST']) {
      expect(isLoopback(host), host).toBe(true);
      expect(adminTokenFor(host, undefined), host).toBeUndefined();
    }
    for (const host of ['0.0.0.0', '::', '192.168.1.20', '10.0.0.7', 'emulator.example']) {
      expect(isLoopback(host), host).toBe(false);
      expect(adminTokenFor(host, undefined), host).toMatch(/^[\w-]{32}$/);
    }
    expect(adminTokenFor('0.0.0.0', undefined)).not.toBe(adminTokenFor('0.0.0.0', undefined));
    expect(adminTokenFor('127.0.0.1', ADMIN_TOKEN)).toBe(ADMIN_TOKEN);
    for (const malformed of ['', 'two words', 'ünïcode', '=leading']) {
      expect(() => adminTokenFor('127.0.0.1', malformed), malformed).toThrow(/adminToken must be a bearer token/);
    }
  });

  test('startMockServer refuses a malformed admin token', async () => {
    await expect(start({ adminToken: 'not a token' })).rejects.toThrow(/adminToken must be a bearer token/);
  });
});

describe('an emulator given an admin token', () => {
  test('making, listing, reading and deleting workspaces need it: 401 in the EmulatorError shape without', async () => {
    const server = await start({ adminToken: ADMIN_TOKEN });
    expect(server.adminToken).toBe(ADMIN_TOKEN);
    const [dev] = (await makeWorkspace(server, 'Team A')) as [TenantHandle];
    const id = { id: dev.workspaceId };
    for (const headers of [
      {} as Record<string, string>,
      { authorization: 'Bearer wrong-token' },
      { authorization: `Bearer ${dev.accessToken}` },
    ]) {
      for (const answer of [
        await control(server, 'list_workspaces', { headers }),
        await control(server, 'create_workspace', { headers, body: { name: 'Intruder' } }),
        await control(server, 'get_workspace', { headers, params: id }),
        await control(server, 'delete_workspace', { headers, params: id }),
      ]) {
        expect(answer.status).toBe(401);
        expect(answer.headers.get('www-authenticate')).toBe('Bearer realm="platform-api-mock"');
        expect(emulatorErrorOf(answer).message).toContain('Authorization: Bearer <admin token>');
      }
    }
    const listed = await control(server, 'list_workspaces', { headers: admin });
    expect(listed.body?.workspaces.map((workspace) => workspace.name)).toEqual(['Local workspace', 'Team A']);
    expect((await control(server, 'get_workspace', { headers: admin, params: id })).status).toBe(200);
    expect((await control(server, 'delete_workspace', { headers: admin, params: id })).status).toBe(204);
  });

  test("a tenant reaches its own state with its token; another's needs the admin token, whether it exists or not", async () => {
    const server = await start({ adminToken: ADMIN_TOKEN });
    const [a, b] = (await Promise.all([makeWorkspace(server, 'Team A'), makeWorkspace(server, 'Team B')])).map(
      ([dev]) => defined(dev),
    ) as [TenantHandle, TenantHandle];
    await createTopic(server, a.accessToken);
    const ownToken = { authorization: `Bearer ${a.accessToken}` };
    // Its own: by its token alone, or naming itself.
    expect((await control(server, 'inspect_topics', { headers: ownToken })).body?.topics).toHaveLength(1);
    expect((await control(server, 'inspect_topics', { headers: ownToken, query: a.query })).status).toBe(200);
    expect((await control(server, 'reset', { headers: ownToken, query: { environment: 'dev' } })).status).toBe(204);
    // Another's: B's, the default workspace's, one that does not exist, an environment A lacks.
    const others = [b.query, { workspace: 99 }, { workspace: a.workspaceId, environment: 'prod' }];
    for (const query of [...others, { workspace: 1 }]) {
      expect((await control(server, 'list_requests', { headers: ownToken, query })).status, JSON.stringify(query)).toBe(
        401,
      );
    }
    // Without a token the caller's own is workspace 1: any other needs the admin token.
    for (const query of others) expect((await control(server, 'list_requests', { query })).status).toBe(401);
    expect((await control(server, 'list_requests', { headers: admin, query: b.query })).status).toBe(200);
    expect((await control(server, 'list_requests', { headers: admin, query: { workspace: 99 } })).status).toBe(404);
  });

  test('workspace 1, the emulator as started, is reached without credentials as before; no journal holds the token', async () => {
    const server = await start({ adminToken: ADMIN_TOKEN });
    await makeWorkspace(server, 'Team A');
    expect((await call(server, 'list_topics', { token: await token(server) })).status).toBe(200);
    expect((await control(server, 'reset')).status).toBe(204);
    expect((await control(server, 'list_faults', { query: { workspace: 1 } })).status).toBe(200);
    // The admin token sent to the platform's API by mistake: refused, and journaled masked.
    expect((await call(server, 'list_topics', { headers: admin })).status).toBe(401);
    const journal = await control(server, 'list_requests', { headers: admin, query: { workspace: 1 } });
    expect(journal.body?.total).toBe(1);
    expect(JSON.stringify(journal.body)).not.toContain(ADMIN_TOKEN);
  });

  test('on loopback without an admin token nothing needs one', async () => {
    const server = await start();
    expect(server.adminToken).toBeUndefined();
    const [dev] = (await makeWorkspace(server, 'Team A')) as [TenantHandle];
    expect((await control(server, 'list_requests', { query: dev.query })).status).toBe(200);
  });
});

describe('the banner', () => {
  test('on 0.0.0.0 without --admin-token, prints a new admin token, which the workspaces need', async () => {
    const cli = runCli(['--host', '0.0.0.0', '--port', '0', '--log-level', 'info']);
    await expect.poll(() => cli.output(), { timeout: 50_000 }).toContain('Try it:');
    const output = cli.output();
    const port = defined(/listening on http:\/\/0\.0\.0\.0:(\d+)/.exec(output)?.[1], 'port in the banner');
    const adminToken = defined(/^ {2}Admin token +(\S+):/m.exec(output)?.[1], 'admin token in the banner');
    // The token is printed once, in the banner: the log lines never carry it.
    expect(output.split(adminToken)).toHaveLength(2);
    // Reached on loopback only: the test sends nothing beyond this machine.
    const url = `http://127.0.0.1:${port}/_emulator/workspaces`;
    expect((await fetch(url)).status).toBe(401);
    expect((await fetch(url, { headers: { authorization: `Bearer ${adminToken}` } })).status).toBe(200);
    cli.child.kill('SIGTERM');
    await cli.exited;
  }, 60_000);

  test('given --admin-token (or its variable), says one is required without printing it', async () => {
    const cli = runCli(['--port', '0', '--log-level', 'silent'], {
      env: { PLATFORM_API_MOCK_ADMIN_TOKEN: ADMIN_TOKEN },
    });
    await expect.poll(() => cli.output(), { timeout: 50_000 }).toContain('Try it:');
    expect(cli.output()).toContain('  Admin token     the one given (--admin-token): Authorization: Bearer');
    expect(cli.output()).not.toContain(ADMIN_TOKEN);
    cli.child.kill('SIGTERM');
    await cli.exited;
  }, 60_000);
});
