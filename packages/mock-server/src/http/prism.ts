// Every management operation the emulator does not implement is answered by Prism (examples and
// request validation from the bundled management spec). Prism runs in this process on an internal
// loopback port and is started on first use, so it costs nothing at start-up.
import type { IncomingMessage, ServerResponse } from 'node:http';
import { type Logger, loadPino } from '../logger.js';
import { request as httpRequest } from './node-http.js';

interface PrismServer {
  close(): Promise<void>;
  listen(port: number, address?: string): Promise<string>;
}

export class PrismBackend {
  private started: Promise<{ server: PrismServer; port: number }> | undefined;

  constructor(
    private readonly specFile: string,
    private readonly logger: Logger,
  ) {}

  /**
   * Forwards the request and streams Prism's response back. The body is streamed, or sent as `body`
   * when the caller has read it already (to check its JSON, which Prism would refuse in its own shape).
   */
  async forward(req: IncomingMessage, res: ServerResponse, body?: Buffer): Promise<void> {
    const { port } = await this.start();
    const headers = body ? { ...req.headers, 'content-length': String(body.length) } : req.headers;
    await new Promise<void>((resolve, reject) => {
      const upstream = httpRequest(
        { host: '127.0.0.1', port, method: req.method, path: req.url, headers },
        (fromPrism) => {
          res.writeHead(fromPrism.statusCode ?? 502, fromPrism.headers);
          fromPrism.pipe(res);
          fromPrism.on('end', resolve);
          fromPrism.on('error', reject);
        },
      );
      upstream.on('error', reject);
      res.on('close', () => upstream.destroy());
      if (body) upstream.end(body);
      else req.pipe(upstream);
    });
  }

  async close(): Promise<void> {
    const started = this.started;
    this.started = undefined;
    if (started) await (await started).server.close();
  }

  private start() {
    // A failed launch is retried by the next request instead of failing every later one.
    this.started ??= this.launch().catch((error: unknown) => {
      this.started = undefined;
      throw error;
    });
    return this.started;
  }

  private async launch(): Promise<{ server: PrismServer; port: number }> {
    const began = Date.now();
    const [{ getHttpOperationsFromSpec }, { createServer }] = await Promise.all([
      import('@stoplight/prism-http'),
      import('@stoplight/prism-http-server'),
    ]);
    const operations = await getHttpOperationsFromSpec(this.specFile);
    const server = createServer(operations, {
      cors: false,
      // Prism logs with its own extra levels (`success`, `start`); its lines are not ours to print.
      components: { logger: loadPino()({ level: 'silent', customLevels: { success: 11, start: 12 } }) as never },
      config: {
        isProxy: false,
        // The emulator checks every request against the spec before Prism sees it (pipeline/management.ts).
        validateRequest: false,
        validateResponse: false,
        checkSecurity: true,
        errors: false,
        upstreamProxy: undefined,
        mock: { dynamic: false },
      },
    });
    const address = await server.listen(0, '127.0.0.1');
    const port = Number(new URL(address).port);
    this.logger.debug({ port, ms: Date.now() - began }, 'Prism started for the other management operations');
    return { server, port };
  }
}
