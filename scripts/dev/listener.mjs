// The live loop's own listener, at the address the author asked for: the loop's status (`/_dev/status`)
// and the docs pages' reload script (`/_dev/reload.js`), and every other request forwarded to the
// emulator. While the emulator restarts the requests wait here, and meet it once it serves the new spec.
import { readFile } from 'node:fs/promises';
import { createServer, request } from 'node:http';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const RELOAD_SCRIPT = join(dirname(fileURLToPath(import.meta.url)), 'reload.js');

/**
 * Listens on `host`:`port`; `status()` is what `/_dev/status` answers, `emulatorUrl()` where requests go.
 * Resolves with the server and `hold()`, which holds the forwarded requests until the function it returns is called.
 */
export async function loopListener({ host, port, status, emulatorUrl }) {
  const reloadScript = await readFile(RELOAD_SCRIPT);
  let ready = Promise.resolve();
  const server = createServer(async (req, res) => {
    if (req.url === '/_dev/status') {
      res.writeHead(200, { 'content-type': 'application/json', 'cache-control': 'no-store' });
      return res.end(JSON.stringify(status()));
    }
    if (req.url === '/_dev/reload.js') {
      res.writeHead(200, { 'content-type': 'text/javascript; charset=utf-8', 'cache-control': 'no-store' });
      return res.end(reloadScript);
    }
    await ready;
    forward(req, res, new URL(emulatorUrl()));
  });
  await new Promise((listening, failed) => {
    server.once('error', failed);
    server.listen(port, host, listening);
  });
  return {
    server,
    hold() {
      let release;
      ready = new Promise((resolve) => {
        release = resolve;
      });
      return release;
    },
    close: () =>
      new Promise((closed) => {
        server.close(() => closed());
        server.closeAllConnections();
      }),
  };
}

function forward(req, res, target) {
  const forwarded = request(
    { host: target.hostname, port: target.port, method: req.method, path: req.url, headers: req.headers },
    (answer) => {
      res.writeHead(answer.statusCode ?? 502, answer.headers);
      answer.pipe(res);
    },
  );
  forwarded.on('error', () => {
    if (!res.headersSent) res.writeHead(502, { 'content-type': 'application/json' });
    res.end(JSON.stringify({ error: 'the emulator restarted while answering; send the request again' }));
  });
  req.pipe(forwarded);
}
