import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { HeldReplies } from '../../src/http/replies.js';

describe('HeldReplies', () => {
  const servers: ReturnType<typeof createServer>[] = [];
  afterEach(() => Promise.all(servers.splice(0).map((s) => new Promise((resolve) => s.close(resolve)))));

  it('cuts only the connection of an answer node refuses; the others of the burst are written', async () => {
    const replies = new HeldReplies();
    const server = createServer((req, res) => {
      const headers = req.url === '/bad' ? { 'retry-after': '1\r\nx: injected' } : undefined;
      replies.respond(res, 'event-streams', { status: 200, json: '{"ok":true}', headers });
    });
    servers.push(server);
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    const [bad, good] = await Promise.allSettled([fetch(`${base}/bad`), fetch(`${base}/good`)]);
    expect(bad.status).toBe('rejected');
    expect(good.status === 'fulfilled' && (await good.value.json())).toEqual({ ok: true });
  });
});
