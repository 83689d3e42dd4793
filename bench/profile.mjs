// Profiles a server under load: node --cpu-prof on the emulator child while wrk publishes (single or
// batch; `redis`: single, with the emulator on a redis-server of its own), or on the bare node:http
// server, for a few seconds, then prints the functions with the most self time.
// Usage: node bench/profile.mjs [publish|batch|redis|bare] [seconds] [file to keep the .cpuprofile in]
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { batchPublishPath, batchText, PAYLOAD_TEXT, publishPath } from './lib/payload.mjs';
import { startChild, stopChild } from './lib/processes.mjs';
import { startRedisServer } from './lib/redis.mjs';
import { wrkPost } from './lib/wrk.mjs';

const [kind = 'publish', seconds = '8', keepProfile] = process.argv.slice(2);
const dir = mkdtempSync(join(tmpdir(), 'platform-api-profile-'));
const bodyFile = join(dir, 'body.json');
writeFileSync(bodyFile, kind === 'batch' ? batchText(100) : PAYLOAD_TEXT);
const server = fileURLToPath(new URL(kind === 'bare' ? 'servers/bare.mjs' : 'servers/emulator.mjs', import.meta.url));
const redis = kind === 'redis' ? await startRedisServer(join(dir, 'redis')) : undefined;
const onRedis = redis ? ['--redis-url', redis.url] : [];
const { child, info } = await startChild(process.execPath, ['--cpu-prof', `--cpu-prof-dir=${dir}`, server, ...onRedis]);
try {
  const path = kind === 'batch' ? batchPublishPath(info.topicId) : publishPath(info.topicId);
  console.log(await wrkPost({ url: info.url, token: info.token, path, bodyFile, seconds: Number(seconds) }));
} finally {
  await stopChild(child);
  if (redis) await stopChild(redis.child);
}
const profileFile = readdirSync(dir).find((name) => name.endsWith('.cpuprofile'));
const profile = JSON.parse(readFileSync(join(dir, profileFile), 'utf8'));
printTopFrames(profile);
if (keepProfile) writeFileSync(keepProfile, JSON.stringify(profile));
rmSync(dir, { recursive: true, force: true });

function printTopFrames({ nodes, samples, timeDeltas }) {
  const byId = new Map(nodes.map((node) => [node.id, node]));
  const self = new Map();
  samples.forEach((id, i) => {
    const { functionName, url, lineNumber } = byId.get(id).callFrame;
    const key = `${functionName || '(anonymous)'} ${url.replace(/^.*\/(node_modules|packages)\//, '$1/')}:${lineNumber + 1}`;
    self.set(key, (self.get(key) ?? 0) + (timeDeltas[i] ?? 0));
  });
  const total = [...self.values()].reduce((a, b) => a + b, 0);
  for (const [key, time] of [...self].sort((a, b) => b[1] - a[1]).slice(0, 30)) {
    console.log(`${((time / total) * 100).toFixed(1).padStart(5)}%  ${key}`);
  }
}
