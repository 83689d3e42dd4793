import { createServer, type IncomingHttpHeaders } from 'node:http';
import type { AddressInfo } from 'node:net';

/** A request as the test server received it. */
export interface Received {
  method: string;
  path: string;
  headers: IncomingHttpHeaders;
  body: string;
}

export interface Reply {
  /** Closes the connection without an answer, like a network failure. */
  drop?: boolean;
  status: number;
  headers?: Record<string, string>;
  json?: unknown;
}

export interface TestServer {
  url: string;
  received: Received[];
  close(): Promise<void>;
}

/**
 * A node:http server on 127.0.0.1 and a free port that records every request and answers with
 * `handle`, for the answers the emulator cannot be asked for.
 */
export async function startTestServer(handle: (request: Received) => Reply | Promise<Reply>): Promise<TestServer> {
  const received: Received[] = [];
  const server = createServer(async (req, res) => {
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const request = {
      method: req.method ?? '',
      path: req.url ?? '',
      headers: req.headers,
      body: Buffer.concat(chunks).toString(),
    };
    received.push(request);
    const reply = await handle(request);
    if (reply.drop) return void req.socket.destroy();
    const body = reply.json === undefined ? '' : JSON.stringify(reply.json);
    res.writeHead(reply.status, { 'content-type': 'application/json; charset=utf-8', ...reply.headers });
    res.end(body);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    received,
    // Closing twice is fine: a test file's afterEach may meet a server its test already closed.
    close: () =>
      new Promise((resolve, reject) => {
        if (!server.listening) return resolve();
        server.closeAllConnections();
        server.close((error) => (error ? reject(error) : resolve()));
      }),
  };
}

/** A token endpoint answer issuing `token-N` for the Nth request. */
export function tokenReply(received: Received[], expiresIn = 3600): Reply {
  const issued = received.filter((r) => r.path === '/oauth2/token').length;
  return { status: 200, json: { access_token: `token-${issued}`, token_type: 'bearer', expires_in: expiresIn } };
}

export const errorBody = (code: string, message = code) => ({ error: { message, details: { code } } });

/** The reason `promise` rejects with; fails the test when it resolves. */
export async function rejectionOf<E = unknown>(promise: Promise<unknown>): Promise<E> {
  try {
    await promise;
  } catch (error) {
    return error as E;
  }
  throw new Error('Expected a rejection, but the promise resolved');
}

/** `value`, failing the test when it is undefined (instead of a non-null assertion). */
export function defined<T>(value: T | undefined, what = 'a value'): T {
  if (value === undefined) throw new Error(`Expected ${what}, got undefined`);
  return value;
}
