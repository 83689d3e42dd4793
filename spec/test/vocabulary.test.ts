// `npm run lint` knows the emulator's vocabulary (plugins/emulator-vocabulary.js): a broken x-resource,
// x-states, x-effect or x-payload-source is an error naming its file and line, where the emulator would
// otherwise refuse to start; so is an operation that is not a read and declares no effect. Runs the real
// redocly CLI on a copy of the specs with broken annotations.
import { execFile } from 'node:child_process';
import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { vocabulary } from '../plugins/emulator-vocabulary.js';

const specDir = fileURLToPath(new URL('..', import.meta.url));
const redocly = join(specDir, '..', 'node_modules', '.bin', 'redocly');

async function lint(dir: string): Promise<{ code: number; output: string }> {
  try {
    const { stdout, stderr } = await promisify(execFile)(redocly, ['lint', 'management@v1', '--format=stylish'], {
      cwd: dir,
      env: { ...process.env, REDOCLY_TELEMETRY: 'off', REDOCLY_SUPPRESS_UPDATE_NOTICE: 'true', NO_COLOR: '1' },
    });
    return { code: 0, output: stdout + stderr };
  } catch (error) {
    const failed = error as { code: number; stdout: string; stderr: string };
    return { code: failed.code, output: failed.stdout + failed.stderr };
  }
}

/** A copy of the specs the lint reads (an effect may be read back through an event-streams operation). */
function copySpecs(): string {
  const dir = mkdtempSync(join(tmpdir(), 'vocabulary-'));
  for (const part of ['redocly.yaml', 'plugins', 'management', 'shared', 'event-streams', 'auth'])
    cpSync(join(specDir, part), join(dir, part), { recursive: true });
  return dir;
}

/** Expects `message` as a platform/emulator-vocabulary error under `file` in the stylish output. */
function errorAt(output: string, file: string, message: string): void {
  expect(output, output).toMatch(
    new RegExp(`${file}:\\n(?:.*\\n)*?\\s+\\d+:\\d+\\s+error\\s+platform/emulator-vocabulary\\s+${message}`),
  );
}

function edit(dir: string, file: string, from: string, to: string): void {
  const path = join(dir, file);
  const text = readFileSync(path, 'utf8');
  if (!text.includes(from)) throw new Error(`${file} has no '${from}'`);
  writeFileSync(path, text.replace(from, to));
}

describe('lint checks the emulator vocabulary', () => {
  let dir: string;
  beforeAll(() => {
    dir = copySpecs();
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  test('the spec as committed passes', async () => {
    const { code, output } = await lint(dir);
    expect(output).not.toContain('platform/emulator-vocabulary');
    expect(code).toBe(0);
  });

  test('each broken annotation is an error at its file and line', async () => {
    edit(dir, 'management/paths/api@tags.yaml', 'op: create }', 'op: craete }');
    edit(
      dir,
      'management/paths/api@mcp@mcp_servers.yaml',
      'filters: { project_id: project_id,',
      'filters: { project_id: project,',
    );
    edit(
      dir,
      'management/components/schemas/Folder.yaml',
      '{ type: folder, on_delete: restrict }',
      '{ type: foldr, on_delete: restrict }',
    );
    edit(
      dir,
      'management/components/schemas/Folder.yaml',
      'x-resource: { type: folder,',
      'x-resource: { type: folder, refz: {},',
    );
    edit(dir, 'management/paths/api@job@resume.yaml', 'handler: jobs.resume', 'handler: jobs.resumee');
    edit(dir, 'management/paths/api@projects@{id}@project_grants.yaml', 'ref: project }', 'ref: projet }');
    edit(dir, 'management/components/schemas/McpServer.yaml', 'hook: mcp_servers.url }', 'hook: mcp_servers.urll }');
    edit(dir, 'management/components/schemas/Skill.yaml', 'take: running }', 'take: runing }');
    const { code, output } = await lint(dir);
    expect(code).not.toBe(0);
    const errors = output.split('\n').filter((line) => line.includes('platform/emulator-vocabulary'));
    const at = (file: string, message: string) =>
      expect(output, output).toMatch(
        new RegExp(`${file}:\\n(?:.*\\n)*?\\s+\\d+:\\d+\\s+error\\s+platform/emulator-vocabulary\\s+${message}`),
      );
    at('management/paths/api@tags.yaml', "unknown op 'craete'");
    at('management/paths/api@mcp@mcp_servers.yaml', "resource type 'mcp_server' has no field 'project'");
    at('management/components/schemas/Folder.yaml', "unknown resource type 'foldr'");
    at('management/components/schemas/Folder.yaml', "x-resource: unknown key 'refz'");
    at('management/paths/api@job@resume.yaml', "handler 'jobs.resumee' is not registered");
    at('management/paths/api@projects@{id}@project_grants.yaml', "unknown resource type 'projet'");
    at('management/components/schemas/McpServer.yaml', "hook 'mcp_servers.urll' is not registered");
    at('management/components/schemas/Skill.yaml', "resource type 'recipe' has no field 'runing'");
    expect(errors).toHaveLength(8);
  });
});

test('lint refuses, at its file and line, an operation that is not a read without its effect', async () => {
  const dir = copySpecs();
  try {
    // An action with neither a state move nor an x-effect: it would answer 200 and change nothing.
    edit(dir, 'management/paths/api@recipes@{recipe_id}@poll_now.yaml', '  x-effect: { none:', '  x-note: { none:');
    // A create that says it has no effect.
    edit(
      dir,
      'management/paths/api@tags.yaml',
      'x-resource: { type: tag, op: create }',
      "x-resource: { type: tag, op: create }\n  x-effect: { none: 'just because' }",
    );
    // A key the vocabulary has not, and a read back by an operation that is no read.
    edit(
      dir,
      'management/paths/api@folders.yaml',
      'x-effect: { creates: folder, read: { operation: list_folders',
      'x-effect: { creates: folder, raed: x, read: { operation: update_folder',
    );
    // A field the effect's type does not have.
    edit(dir, 'management/paths/api@recipes@{recipe_id}@connect.yaml', 'changes: [config]', 'changes: [confg]');
    const { code, output } = await lint(dir);
    expect(code).not.toBe(0);
    errorAt(
      output,
      'management/paths/api@recipes@\\{recipe_id\\}@poll_now.yaml',
      'POST poll_recipe_now declares no effect',
    );
    errorAt(output, 'management/paths/api@tags.yaml', 'x-effect: none, yet x-resource gives create_tag an effect');
    errorAt(output, 'management/paths/api@folders.yaml', "x-effect: unknown key 'raed'");
    errorAt(output, 'management/paths/api@folders.yaml', "x-effect reads back by 'update_folder', which is no read");
    errorAt(
      output,
      'management/paths/api@recipes@\\{recipe_id\\}@connect.yaml',
      "resource type 'recipe' has no field 'confg'",
    );
    expect(output.split('\n').filter((line) => line.includes('platform/emulator-vocabulary'))).toHaveLength(5);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('the vocabulary is read from vocabulary.json', () => {
  expect(vocabulary.operationKeys).toContain('handler');
  expect(vocabulary.typeKeys).toEqual(['type', 'id', 'parent', 'refs', 'order', 'versions', 'singleton', 'derived']);
  // `user_group_members.list`, `.add`, `.remove` in one row.
  expect(vocabulary.handlers).toEqual(expect.arrayContaining(['user_group_members.add', 'jobs.resume']));
  expect(vocabulary.effectKeys).toEqual(expect.arrayContaining(['none', 'creates', 'empties', 'read', 'fill']));
});
