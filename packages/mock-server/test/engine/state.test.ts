// The state document: the README's seed, export and load round trips, reset, refusals that change
// nothing, the HTTP endpoints and the CLI's --seed.
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { call, start, token } from '../helpers.js';

const README = readFileSync(fileURLToPath(new URL('../../README.md', import.meta.url)), 'utf8');
const README_SEED = /```yaml\n# seed\.yaml\n([\s\S]*?)```/.exec(README)?.[1] ?? '';

async function seeded() {
  const server = await start({ seed: parse(README_SEED) });
  const admin = await token(server);
  return { server, admin };
}

describe('the state document', () => {
  it("loads the README's seed: items completed, parents linked, counters kept", async () => {
    const { server, admin } = await seeded();
    const recipe = await call(server, 'get_recipe', { token: admin, params: { id: 1 } });
    expect(recipe.body).toMatchObject({ id: 1, name: 'Orders', folder_id: 10, running: true });
    const lookup = await call(server, 'find_lookup_table_row', {
      token: admin,
      params: { lookup_table_id: 1 },
      query: { 'by[code]': 'DE' },
    });
    expect(lookup.body.data).toEqual({ code: 'DE', country: 'Germany' });
    const created = await call(server, 'create_recipe', {
      token: admin,
      body: { recipe: { name: 'New', code: '{}' } },
    });
    expect(created.body.id).toBe(101);
    expect((await call(server, 'stop_recipe', { token: admin, params: { id: 1 } })).status).toBe(200);
  });

  it('exports what load reads back, and reset empties it', async () => {
    const { server, admin } = await seeded();
    await call(server, 'delete_recipe', { token: admin, params: { id: 1 } });
    const saved = await server.state.export();
    expect(saved).toMatchObject({ format: 'platform-api-emulator-state', version: 1, counters: { recipe: 100 } });
    expect(saved).toMatchObject({ resources: { lookup_table_row: [{ $parent: '1', id: 1 }] } });
    await server.state.reset();
    expect((await call(server, 'list_folders', { token: admin })).body).toEqual([]);
    expect(await server.state.export()).toEqual({
      format: 'platform-api-emulator-state',
      version: 1,
      resources: {},
      counters: {},
    });
    await server.state.load(saved);
    expect(await server.state.export()).toEqual(saved);
    expect(
      (await call(server, 'create_recipe', { token: admin, body: { recipe: { name: 'N', code: '{}' } } })).body.id,
    ).toBe(101);
  });

  it('refuses a document with a message naming the entry, and keeps the state as it was', async () => {
    const { server } = await seeded();
    const before = await server.state.export();
    for (const [document, message] of [
      [{ version: 2 }, 'version must be 1'],
      [{ version: 1, topics: [] }, 'Unknown keys topics'],
      [{ version: 1, resources: { spaceship: [] } }, 'resources.spaceship: no such resource type'],
      [{ version: 1, resources: { recipe: [{ name: 5 }] } }, 'resources.recipe[0]: /name must be string'],
      [{ version: 1, resources: { lookup_table_row: [{ data: {} }] } }, 'resources.lookup_table_row[0]: $parent'],
      [
        { version: 1, resources: { lookup_table_row: [{ $parent: 9, data: {} }] } },
        'resources.lookup_table_row[0]: $parent names no lookup_table of the document',
      ],
      [{ version: 1, counters: { recipe: -1 } }, 'counters.recipe must be a non-negative integer'],
    ] as const) {
      await expect(server.state.load(document)).rejects.toThrow(message);
    }
    expect(await server.state.export()).toEqual(before);
  });

  it('over HTTP: GET exports JSON or YAML, PUT replaces, POST /_emulator/reset empties; 400 for a bad document', async () => {
    const { server, admin } = await seeded();
    const yaml = await fetch(`${server.url}/_emulator/state?format=yaml`);
    expect(yaml.headers.get('content-type')).toBe('application/yaml');
    const exported = await yaml.text();
    expect(parse(exported)).toEqual(await server.state.export());
    expect((await fetch(`${server.url}/_emulator/reset`, { method: 'POST' })).status).toBe(204);
    expect((await call(server, 'list_recipes', { token: admin })).body.items).toEqual([]);
    expect((await fetch(`${server.url}/_emulator/state`, { method: 'PUT', body: exported })).status).toBe(204);
    expect((await call(server, 'get_recipe', { token: admin, params: { id: 1 } })).status).toBe(200);
    const json = await (await fetch(`${server.url}/_emulator/state`)).json();
    expect(json.resources.recipe[0].name).toBe('Orders');
    const refused = await fetch(`${server.url}/_emulator/state`, { method: 'PUT', body: '{"version":1,"resources":[' });
    expect([refused.status, (await refused.json()).message]).toEqual([
      400,
      expect.stringMatching(/^The state document is neither JSON nor YAML/),
    ]);
    expect((await fetch(`${server.url}/_emulator/reset`)).status).toBe(405);
  });

  it('--seed FILE starts the CLI with the state, and a bad seed stops it with the entry named', async () => {
    const folder = mkdtempSync(join(tmpdir(), 'seed-'));
    const good = join(folder, 'seed.yaml');
    const bad = join(folder, 'bad.json');
    writeFileSync(good, README_SEED);
    writeFileSync(bad, '{"version":1,"resources":{"recipe":[{"name":5}]}}');
    const cli = (args: string[]) => {
      const child = spawn(process.execPath, [
        '--import',
        'tsx',
        fileURLToPath(new URL('../../src/cli.ts', import.meta.url)),
        ...args,
      ]);
      let output = '';
      child.stdout.on('data', (chunk) => {
        output += chunk;
      });
      child.stderr.on('data', (chunk) => {
        output += chunk;
      });
      const exited = new Promise<number | null>((resolve) => child.on('exit', resolve));
      return { child, output: () => output, exited };
    };
    const refused = cli(['--port', '0', '--seed', bad]);
    expect(await refused.exited).toBe(1);
    expect(refused.output()).toContain('resources.recipe[0]: /name must be string');
    const running = cli(['--port', '0', '--seed', good]);
    try {
      await expect.poll(() => running.output(), { timeout: 15_000 }).toContain('Try it:');
      const url = /listening on (http:\/\/\S+)/.exec(running.output())?.[1];
      const state = await (await fetch(`${url}/_emulator/state`)).json();
      expect(state.resources.folder[0]).toMatchObject({ id: 10, name: 'Sales' });
    } finally {
      running.child.kill('SIGTERM');
      await running.exited;
    }
  }, 30_000);
});
