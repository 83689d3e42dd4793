// Serves the built front ends from their packages' dist folders: the rendered API documentation
// (packages/docs) under /docs/ and the web console (packages/console) under /_emulator/console/.
import { existsSync, promises } from 'node:fs';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { createRequire } from 'node:module';
import { dirname, extname, join, resolve, sep } from 'node:path';

const MEDIA_TYPES: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.json': 'application/json',
  '.yaml': 'application/yaml',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
};

/** A front end the emulator serves from a folder of built files. */
export interface StaticSite {
  /** The folder, or undefined when it is not built. */
  dir: string | undefined;
  /** Where it is served, without the trailing slash: `/docs`. */
  prefix: string;
  /** Said in the 404 when the folder is not built. */
  notBuilt: string;
}

/** The folder of a front-end package's build: `preferred` when given, else the package's (installed, then the workspace path). */
function findBuiltDir(packageName: string, workspaceDir: string, preferred: string | undefined): string | undefined {
  if (preferred !== undefined) return existsSync(join(preferred, 'index.html')) ? preferred : undefined;
  const candidates: string[] = [];
  const require = createRequire(import.meta.url);
  try {
    candidates.push(join(dirname(require.resolve(`${packageName}/package.json`)), 'dist'));
  } catch {
    // Not resolvable (no such package, or it does not export package.json).
  }
  // Beside this package in the repository's packages/, found by this package's own name (the same from
  // its modules and from the bundled command line).
  const packagesDir = dirname(dirname(require.resolve('@platform-api/mock-server/package.json')));
  candidates.push(join(packagesDir, workspaceDir, 'dist'));
  return candidates.find((dir) => existsSync(join(dir, 'index.html')));
}

export function docsSite(preferred?: string): StaticSite {
  return {
    dir: findBuiltDir('@platform-api/docs', 'docs', preferred),
    prefix: '/docs',
    notBuilt:
      'The API documentation is not built. Run `npm run build` at the repository root (or in packages/docs) and restart.',
  };
}

export function consoleSite(preferred?: string): StaticSite {
  return {
    dir: findBuiltDir('@platform-api/console', 'console', preferred),
    prefix: '/_emulator/console',
    notBuilt:
      'The web console is not built. Run `npm run build` at the repository root (or `npm run build -w @platform-api/console`) and restart.',
  };
}

/** Whether the site answers this path: its prefix, or a path under it. */
export function isUnder(site: StaticSite, pathname: string): boolean {
  return pathname === site.prefix || pathname.startsWith(`${site.prefix}/`);
}

export async function serveStatic(site: StaticSite, pathname: string, res: ServerResponse, req: IncomingMessage) {
  if (req.method !== 'GET' && req.method !== 'HEAD') {
    res.setHeader('allow', 'GET, HEAD');
    return respondText(res, 405, `Only GET and HEAD are served under ${site.prefix}/`);
  }
  if (!site.dir) return respondText(res, 404, site.notBuilt);
  if (pathname === site.prefix) {
    res.writeHead(301, { location: `${site.prefix}/` });
    return res.end();
  }
  let relative: string;
  try {
    relative = decodeURIComponent(pathname.slice(site.prefix.length + 1)) || 'index.html';
  } catch {
    return respondText(res, 400, 'Malformed path');
  }
  const root = resolve(site.dir);
  const file = resolve(root, relative);
  if (!file.startsWith(root + sep)) return respondText(res, 404, 'Not found');
  try {
    // fs.promises when first read: loading node:fs/promises at start takes readline and the REPL's history too.
    const content = await promises.readFile(existsSync(file) || extname(file) ? file : `${file}.html`);
    res.writeHead(200, {
      'content-type': MEDIA_TYPES[extname(file) || '.html'] ?? 'application/octet-stream',
      'content-length': content.length,
    });
    res.end(req.method === 'HEAD' ? undefined : content);
  } catch {
    respondText(res, 404, `Nothing at ${pathname}`);
  }
}

/** The emulator's address itself: where the console and the docs are. */
export function serveHome(res: ServerResponse, req: IncomingMessage) {
  const html = `<!doctype html>
<html lang="en">
<head><meta charset="utf-8"><title>Platform API emulator</title></head>
<body>
<h1>Platform API emulator</h1>
<ul>
<li><a href="/_emulator/console/">Web console</a>: the requests, topics, resources, faults and clock</li>
<li><a href="/docs/">API documentation</a></li>
<li><a href="/_emulator/spec/emulator.json">The emulator API</a> (OpenAPI)</li>
</ul>
</body>
</html>
`;
  res.writeHead(200, { 'content-type': MEDIA_TYPES['.html'], 'content-length': Buffer.byteLength(html) });
  res.end(req.method === 'HEAD' ? undefined : html);
}

function respondText(res: ServerResponse, status: number, text: string) {
  res.writeHead(status, { 'content-type': 'text/plain; charset=utf-8', 'content-length': Buffer.byteLength(text) });
  res.end(text);
}
