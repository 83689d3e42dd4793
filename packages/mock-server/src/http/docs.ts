// Serves the rendered API documentation (packages/docs/dist) under /docs/.
import { existsSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { createRequire } from 'node:module';
import { dirname, extname, join, resolve, sep } from 'node:path';
import { fileURLToPath } from 'node:url';

const MEDIA_TYPES: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.json': 'application/json',
  '.yaml': 'application/yaml',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
};

/** The docs folder: `preferred` when given, else the docs package (installed, then the workspace path). */
export function findDocsDir(preferred?: string): string | undefined {
  if (preferred !== undefined) return existsSync(join(preferred, 'index.html')) ? preferred : undefined;
  const candidates: string[] = [];
  try {
    candidates.push(join(dirname(createRequire(import.meta.url).resolve('@platform-api/docs/package.json')), 'dist'));
  } catch {
    // Not resolvable (no such package, or it does not export package.json).
  }
  candidates.push(fileURLToPath(new URL('../../../docs/dist', import.meta.url)));
  return candidates.find((dir) => existsSync(join(dir, 'index.html')));
}

export async function serveDocs(
  docsDir: string | undefined,
  pathname: string,
  res: ServerResponse,
  req: IncomingMessage,
) {
  if (req.method !== 'GET' && req.method !== 'HEAD') {
    res.setHeader('allow', 'GET, HEAD');
    return respondText(res, 405, 'Only GET and HEAD are served under /docs/');
  }
  if (!docsDir) {
    return respondText(
      res,
      404,
      'The API documentation is not built. Run `npm run build` at the repository root (or in packages/docs) and restart.',
    );
  }
  if (pathname === '/docs') {
    res.writeHead(301, { location: '/docs/' });
    return res.end();
  }
  let relative: string;
  try {
    relative = decodeURIComponent(pathname.slice('/docs/'.length)) || 'index.html';
  } catch {
    return respondText(res, 400, 'Malformed path');
  }
  const root = resolve(docsDir);
  const file = resolve(root, relative);
  if (!file.startsWith(root + sep)) return respondText(res, 404, 'Not found');
  try {
    const content = await readFile(existsSync(file) || extname(file) ? file : `${file}.html`);
    res.writeHead(200, {
      'content-type': MEDIA_TYPES[extname(file) || '.html'] ?? 'application/octet-stream',
      'content-length': content.length,
    });
    res.end(req.method === 'HEAD' ? undefined : content);
  } catch {
    respondText(res, 404, `No documentation page at ${pathname}`);
  }
}

function respondText(res: ServerResponse, status: number, text: string) {
  res.writeHead(status, { 'content-type': 'text/plain; charset=utf-8', 'content-length': Buffer.byteLength(text) });
  res.end(text);
}
