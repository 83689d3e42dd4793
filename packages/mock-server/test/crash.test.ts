// The crash test: publishers (single and batch) on one topic, the emulator killed (SIGKILL) while they
// publish, restarted on the same data dir, several rounds. Every acknowledged message must be there
// once, in order, with its payload; new ids follow the old ones; topics, clients, keys and tokens stay.
import { describe, expect, it } from 'vitest';
import { type CliProcess, listeningUrl, runCli } from './cli-process.js';
import { defined } from './defined.js';
import { tempDir } from './temp-dirs.js';

const CLIENT_ID = 'crash';
const CLIENT_SECRET = 'crash-secret';
/** Each round alternates the durability: a crash of the process loses nothing acknowledged in either. */
const ROUNDS = ['full', 'relaxed', 'full'] as const;
const SINGLE_PUBLISHERS = 4;
const BATCH_PUBLISHERS = 2;
const BATCH_SIZE = 10;
/** The emulator is killed once a round has this many acknowledged messages, its publishers still sending. */
const KILL_AFTER = 300;

interface Emulator {
  cli: CliProcess;
  url: string;
}

interface Acknowledged {
  id: string;
  label: string;
}

async function launch(dataDir: string, durability: string): Promise<Emulator> {
  const args = ['--port', '0', '--data-dir', dataDir, '--durability', durability, '--log-level', 'error'];
  const cli = runCli([...args, '--client-id', CLIENT_ID, '--client-secret', CLIENT_SECRET]);
  return { cli, url: await listeningUrl(cli) };
}

async function post(url: string, accessToken: string, body: unknown): Promise<Response> {
  const headers = { authorization: `Bearer ${accessToken}`, 'content-type': 'application/json' };
  return fetch(url, { method: 'POST', headers, body: JSON.stringify(body) });
}

async function json<T>(response: Promise<Response>): Promise<T> {
  const answer = await response;
  expect(answer.ok, `${answer.url} answered ${answer.status}`).toBe(true);
  return (await answer.json()) as T;
}

async function accessToken(url: string, clientId = CLIENT_ID, secret = CLIENT_SECRET): Promise<string> {
  const body = { grant_type: 'client_credentials', client_id: clientId, client_secret: secret };
  return (await json<{ access_token: string }>(post(`${url}/oauth2/token`, '', body))).access_token;
}

/** Every message of the topic, oldest first. */
async function readAll(url: string, token: string, topicId: number): Promise<{ message_id: string; label: string }[]> {
  const all: { message_id: string; label: string }[] = [];
  let offset: { after_message_id?: string } = {};
  for (;;) {
    type Batch = { messages: { message_id: string; payload: { order_id: string } }[]; has_more: boolean };
    const batch = await json<Batch>(post(`${url}/api/v1/topics/${topicId}/consume`, token, offset));
    all.push(...batch.messages.map((m) => ({ message_id: m.message_id, label: m.payload.order_id })));
    const last = batch.messages.at(-1);
    if (!batch.has_more || !last) return all;
    offset = { after_message_id: last.message_id };
  }
}

/**
 * Publishes with every publisher until the emulator is gone; each publisher sends its next request once
 * the last was answered. Resolves to what was acknowledged, in the order of each publisher's sends.
 */
async function publishUntilKilled(emulator: Emulator, token: string, topicId: number, round: number) {
  const acknowledged: Acknowledged[][] = [];
  let count = 0;
  const acknowledge = (mine: Acknowledged[], ids: string[], labels: string[]) => {
    mine.push(...ids.map((id, i) => ({ id, label: defined(labels[i]) })));
    count += ids.length;
    if (count >= KILL_AFTER) emulator.cli.child.kill('SIGKILL');
  };
  const publisher = async (name: string, batch: boolean) => {
    const mine: Acknowledged[] = [];
    acknowledged.push(mine);
    for (let n = 0; ; n++) {
      const labels = Array.from({ length: batch ? BATCH_SIZE : 1 }, (_, i) => `r${round}-${name}-${n}-${i}`);
      try {
        if (batch) {
          const path = `${emulator.url}/api/v1/batch/topics/${topicId}/publish`;
          const payloads = labels.map((label) => ({ order_id: label }));
          type Answer = { message_ids: Record<string, { message_id: string }>; is_partial_error: boolean };
          const answer = await json<Answer>(post(path, token, { payloads }));
          expect(answer.is_partial_error).toBe(false);
          acknowledge(
            mine,
            Object.values(answer.message_ids).map((entry) => entry.message_id),
            labels,
          );
        } else {
          const path = `${emulator.url}/api/v1/topics/${topicId}/publish`;
          const answer = await json<{ message_id: string }>(post(path, token, { order_id: labels[0] }));
          acknowledge(mine, [answer.message_id], labels);
        }
      } catch (error) {
        // The emulator is gone: a request in flight is not acknowledged (it may or may not be stored).
        if (!emulator.cli.child.killed) throw error;
        return;
      }
    }
  };
  await Promise.all([
    ...Array.from({ length: SINGLE_PUBLISHERS }, (_, i) => publisher(`single${i}`, false)),
    ...Array.from({ length: BATCH_PUBLISHERS }, (_, i) => publisher(`batch${i}`, true)),
  ]);
  await emulator.cli.exited;
  return acknowledged;
}

describe('a crash (SIGKILL) under load', () => {
  it('keeps every acknowledged message once, in order, and the topic, client, key and tokens; ids go on', async () => {
    const dataDir = tempDir();
    let emulator = await launch(dataDir, 'full');
    const admin = await accessToken(emulator.url);
    const topic = await json<{ id: number }>(
      post(`${emulator.url}/api/event_streams/topics`, admin, {
        name: 'crash',
        schema: [{ name: 'order_id', type: 'string' }],
      }),
    );
    type Created = { data: { id: number; client_id: string; auth_token: string } };
    const client = (await json<Created>(post(`${emulator.url}/api/v2/api_clients`, admin, { name: 'ci' }))).data;
    const key = (
      await json<Created>(
        post(`${emulator.url}/api/v2/api_clients/${client.id}/api_keys`, admin, {
          name: 'consumer',
        }),
      )
    ).data;
    const acknowledged = new Map<string, string>();

    for (const [round, durability] of ROUNDS.entries()) {
      if (round > 0) emulator = await launch(dataDir, durability);
      const before = await readAll(emulator.url, admin, topic.id);
      const lastBefore = before.at(-1)?.message_id ?? '';
      const byPublisher = await publishUntilKilled(emulator, admin, topic.id, round);
      for (const sent of byPublisher) {
        // A publisher's messages were sent one after another: their ids increase, after every older one.
        expect(sent.map((a) => a.id)).toEqual([...sent.map((a) => a.id)].sort());
        expect(sent.every((a) => a.id > lastBefore)).toBe(true);
        for (const { id, label } of sent) acknowledged.set(label, id);
      }
      expect(byPublisher.flat().length).toBeGreaterThanOrEqual(KILL_AFTER);
    }

    emulator = await launch(dataDir, 'full');
    const stored = await readAll(emulator.url, admin, topic.id);
    const ids = stored.map((m) => m.message_id);
    expect(ids).toEqual([...new Set(ids)].sort());
    expect(new Set(stored.map((m) => m.label)).size).toBe(stored.length);
    const storedIdOf = new Map(stored.map((m) => [m.label, m.message_id]));
    const lost = [...acknowledged].filter(([label, id]) => storedIdOf.get(label) !== id);
    expect(lost).toEqual([]);
    const keyToken = await accessToken(emulator.url, key.client_id, key.auth_token);
    expect((await readAll(emulator.url, keyToken, topic.id)).length).toBe(stored.length);
    expect(emulator.cli.errors()).toBe('');
  }, 90_000);
});
