// The Server-Sent Events answers of the emulator API (the journal's feed, a topic's messages).
import type { IncomingMessage, ServerResponse } from 'node:http';

/** A comment line this often keeps an idle stream open through proxies and client timeouts. */
const KEEP_ALIVE_MS = 15_000;

/** Writes the stream's head and keeps it alive; the signal aborts when the client goes. */
export function openEventStream(req: IncomingMessage, res: ServerResponse): AbortSignal {
  res.writeHead(200, {
    'content-type': 'text/event-stream; charset=utf-8',
    'cache-control': 'no-store',
    connection: 'keep-alive',
  });
  // The headers now, so a client knows it is listening before the first event.
  res.write(': listening\n\n');
  const gone = new AbortController();
  const keepAlive = setInterval(() => res.write(': keep-alive\n\n'), KEEP_ALIVE_MS);
  const stop = () => {
    clearInterval(keepAlive);
    gone.abort();
  };
  req.once('close', stop);
  res.once('close', stop);
  return gone.signal;
}
