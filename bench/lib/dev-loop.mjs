// The spec author's live loop (npm run dev) on a temporary copy of the specs: from a save to the
// emulator answering with the new spec, and to the docs page showing it, median of a few edits.
import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startDevLoop } from '../../scripts/dev/loop.mjs';

const EDITS = 5;
const median = (values) => [...values].sort((a, b) => a - b)[(values.length - 1) >> 1];

async function until(check) {
  while (!check()) await new Promise((resolve) => setTimeout(resolve, 20));
}

export async function devLoopTimes({ root }) {
  const dir = mkdtempSync(join(tmpdir(), 'bench-dev-'));
  const specDir = join(dir, 'spec');
  cpSync(join(root, 'spec'), specDir, {
    recursive: true,
    filter: (source) => !/[/\\](node_modules|dist|released|test|\.turbo)$/.test(source),
  });
  const loop = await startDevLoop({ specDir, emulatorArgs: ['--port', '0', '--log-level', 'silent'], log: () => {} });
  try {
    await loop.docsRendered;
    const file = join(specDir, 'management/paths/api@folders.yaml');
    const original = readFileSync(file, 'utf8');
    for (let i = 1; i <= EDITS; i++) {
      const version = loop.status.specVersion;
      writeFileSync(file, original.replace('summary: List folders', `summary: List folders (edit ${i})`));
      await until(() => loop.status.specVersion > version && loop.status.docsOf > version);
    }
    const reloads = loop.status.reloads.slice(-EDITS);
    return {
      edits: EDITS,
      emulatorMs: median(reloads.map((reload) => reload.emulatorMs)),
      docsMs: median(reloads.map((reload) => reload.docsMs)),
    };
  } finally {
    await loop.close();
    rmSync(dir, { recursive: true, force: true });
  }
}
