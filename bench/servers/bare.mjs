// The baseline: a bare node:http server answering every request with the emulator's publish 201 body.
// It reads the request body (as any JSON API must) and does nothing else.
import { createServer } from 'node:http';
import { reportReady } from './ready.mjs';

const BODY = '{"message_id":"00000000001"}';
const server = createServer((req, res) => {
  req.resume();
  req.on('end', () => {
    res.writeHead(201, {
      'content-type': 'application/json; charset=utf-8',
      'content-length': Buffer.byteLength(BODY),
    });
    res.end(BODY);
  });
});
server.listen(0, '127.0.0.1', () => reportReady({ url: `http://127.0.0.1:${server.address().port}` }));
process.on('SIGTERM', () => server.close(() => process.exit(0)) && server.closeAllConnections());
