// The emulator as the bench measures it, in a process of its own: the built package (dist), silent
// logging, a bearer token from its token endpoint and a topic with a schema, so publishes go through
// auth, spec validation, the topic schema check and storage.
// Options: --prefill N stores N messages of about 200 bytes through the store (the programmatic way
// the README documents) and writes the after_message_id offsets of each batch of --batch messages to
// --offsets-file. The ready line carries the token, the topic id and the memory use after the prefill.
// --data-dir DIR (and --durability) keeps the state in a data dir instead; a data dir that already
// holds the bench's topic is reopened with it. --redis-url URL (and --redis-prefix) keeps it in Redis,
// where a second emulator on the same URL and prefix finds the first one's topic and serves it too.
// --journal-size N sets the request journal's size (0: off; default on, 10,000 entries).
import { writeFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { MemoryStore, startMockServer } from '../../packages/mock-server/dist/index.js';
import { payload, TOPIC_SCHEMA } from '../lib/payload.mjs';
import { reportReady } from './ready.mjs';

const { values } = parseArgs({
  options: {
    prefill: { type: 'string', default: '0' },
    batch: { type: 'string', default: '50' },
    'offsets-file': { type: 'string' },
    'data-dir': { type: 'string' },
    durability: { type: 'string', default: 'full' },
    'redis-url': { type: 'string' },
    'redis-prefix': { type: 'string', default: 'bench:' },
    'journal-size': { type: 'string' },
  },
});

const persistent = values['data-dir'] !== undefined || values['redis-url'] !== undefined;
if (persistent && Number(values.prefill) > 0)
  throw new Error('--prefill fills a memory store, not a data dir or Redis');
const store = new MemoryStore();
// Every emulator on one Redis gets the same bootstrap credentials: a later one keeps the first one's secret.
const credentials = { clientId: 'bench', clientSecret: 'bench-secret' };
const journal = values['journal-size'] === undefined ? {} : { journalSize: Number(values['journal-size']) };
const server = await startMockServer({
  ...(values['redis-url']
    ? { redisUrl: values['redis-url'], redisPrefix: values['redis-prefix'], ...credentials, logLevel: 'silent' }
    : values['data-dir']
      ? { dataDir: values['data-dir'], durability: values.durability, logLevel: 'silent' }
      : { store, logLevel: 'silent' }),
  ...journal,
});
const token = await accessToken(server);
const topicId = (await existingTopic(server, token)) ?? (await createTopic(server, token));
const memoryBefore = process.memoryUsage().rss;
const prefill = Number(values.prefill);
const offsets = storeMessages(topicId, prefill, Number(values.batch));
if (values['offsets-file']) writeFileSync(values['offsets-file'], offsets.join('\n'));
const memory = process.memoryUsage();

reportReady({
  url: server.url,
  token,
  topicId,
  prefilled: prefill,
  rssBeforePrefill: memoryBefore,
  memory: { rss: memory.rss, heapUsed: memory.heapUsed, external: memory.external, arrayBuffers: memory.arrayBuffers },
});

process.on('SIGTERM', () => server.close().then(() => process.exit(0)));

async function accessToken({ url, clientId, clientSecret }) {
  const answer = await post(`${url}/oauth2/token`, undefined, {
    grant_type: 'client_credentials',
    client_id: clientId,
    client_secret: clientSecret,
  });
  return answer.access_token;
}

async function existingTopic({ url }, bearer) {
  const answer = await fetch(`${url}/api/event_streams/topics`, { headers: { authorization: `Bearer ${bearer}` } });
  const { data } = await answer.json();
  return data.find((topic) => topic.name === 'bench')?.id;
}

async function createTopic({ url }, bearer) {
  const topic = await post(`${url}/api/event_streams/topics`, bearer, { name: 'bench', schema: TOPIC_SCHEMA });
  return topic.id;
}

async function post(url, bearer, body) {
  const headers = { 'content-type': 'application/json', ...(bearer ? { authorization: `Bearer ${bearer}` } : {}) };
  const answer = await fetch(url, { method: 'POST', headers, body: JSON.stringify(body) });
  if (!answer.ok) throw new Error(`${url} answered ${answer.status}: ${await answer.text()}`);
  return answer.json();
}

/** Appends `count` messages; returns the id that ends each full batch but the last (the next batch's offset). */
function storeMessages(topic, count, batchSize) {
  const offsets = [];
  for (let i = 1; i <= count; i++) {
    const id = store.append(topic, JSON.stringify(payload(i)));
    if (i % batchSize === 0 && i < count) offsets.push(id);
  }
  return offsets;
}
