// Sends a request exactly as planned (its bytes, its headers, any method and path) and reads the answer,
// failing when none comes: no request the property suites send waits for anything.
import { request } from 'node:http';
import type { MockServer } from '../../../src/index.js';
import type { Answer } from '../helpers.js';

/** An answer slower than this is a hang. */
export const ANSWER_TIMEOUT_MS = 10_000;

export interface Sendable {
  method: string;
  url: string;
  headers: Record<string, string>;
  bytes: Uint8Array | undefined;
}

export function send(server: MockServer, { method, url, headers, bytes }: Sendable): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const outgoing = request(
      {
        host: '127.0.0.1',
        port: server.port,
        method,
        path: url,
        headers: { ...headers, 'content-length': bytes?.length ?? 0 },
      },
      (response) => {
        const chunks: Buffer[] = [];
        response.on('data', (chunk: Buffer) => chunks.push(chunk));
        response.on('end', () => {
          const text = Buffer.concat(chunks).toString('utf8');
          const json = /json/.test(response.headers['content-type'] ?? '');
          const answerHeaders = new Headers();
          for (const [name, value] of Object.entries(response.headers)) answerHeaders.set(name, String(value));
          resolve({
            status: response.statusCode ?? 0,
            headers: answerHeaders,
            body: text && json ? JSON.parse(text) : text || undefined,
          });
        });
      },
    );
    outgoing.setTimeout(ANSWER_TIMEOUT_MS, () =>
      outgoing.destroy(new Error(`${method} ${url}: no answer within ${ANSWER_TIMEOUT_MS} ms`)),
    );
    outgoing.on('error', reject);
    outgoing.end(bytes);
  });
}
