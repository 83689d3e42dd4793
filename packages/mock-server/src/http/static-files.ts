// Serves the built front ends: the rendered API documentation (packages/docs) under /docs/ and the web
// console (packages/console) under /_emulator/console/, from the copies the published package ships
// in web/, else from their packages' dist folders.
import { existsSync, promises } from 'node:fs';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { dirname, extname, join, resolve, sep } from 'node:path';
import { packageRoot } from '../package-root.js';

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
  /** The folder, or undefined when there is none to serve. */
  dir: string | undefined;
  /** Where it is served, without the trailing slash: `/docs`. */
  prefix: string;
  /** Said in the 404 (and the banner) when there is no folder: what is absent and how to add it. */
  notBuilt: string;
}

/** A front end of the emulator: its workspace package, the folder the published package ships it in, its option. */
interface FrontEnd {
  what: string;
  /** The workspace folder under packages/ whose dist/ is the build. */
  workspace: string;
  prefix: string;
  /** The flag and the startMockServer option that name another folder. */
  flag: string;
  option: string;
}

/** Where the front end's build is, and, when it is nowhere, why. */
function frontEndSite(frontEnd: FrontEnd, preferred: string | undefined, root: string): StaticSite {
  const { prefix } = frontEnd;
  if (preferred !== undefined) {
    const dir = existsSync(join(preferred, 'index.html')) ? preferred : undefined;
    const notBuilt = `${frontEnd.what} is not served: ${resolve(preferred)} (${frontEnd.flag}, ${frontEnd.option}) holds no index.html. Give the folder of a build and restart.`;
    return { dir, prefix, notBuilt };
  }
  // The published package ships the build in web/ (scripts/bundle-web.mjs, at pack time); in the
  // repository it is the workspace package's dist/, and in the container image the package beside
  // this one (node_modules/@platform-api/console/dist), at the same relative path. The workspace's
  // build comes first: in the repository web/ exists while npm packs, half copied and then removed
  // (CI at 5eb5a02 served a docs page 404 from it while the registry suite packed).
  const shipped = join(root, 'web', frontEnd.workspace);
  const workspace = join(dirname(root), frontEnd.workspace);
  const dir = [join(workspace, 'dist'), shipped].find((candidate) => existsSync(join(candidate, 'index.html')));
  const inRepository = existsSync(join(workspace, 'package.json'));
  const notBuilt = inRepository
    ? `${frontEnd.what} is not built: run \`npm run build\` at the repository root and restart.`
    : `${frontEnd.what} is not in this installation: ${shipped} is missing from @platform-api/mock-server's package. Reinstall it (npm install @platform-api/mock-server), or start with ${frontEnd.flag} DIR (a folder holding a build).`;
  return { dir, prefix, notBuilt };
}

/** The docs' site: `preferred` when given, else found from the folder of this package (`root`). */
export function docsSite(preferred?: string, root = packageRoot()): StaticSite {
  const docs = { what: 'The API documentation', workspace: 'docs', prefix: '/docs' };
  return frontEndSite({ ...docs, flag: '--docs-dir', option: 'docsDir' }, preferred, root);
}

export function consoleSite(preferred?: string, root = packageRoot()): StaticSite {
  const console = { what: 'The web console', workspace: 'console', prefix: '/_emulator/console' };
  return frontEndSite({ ...console, flag: '--console-dir', option: 'consoleDir' }, preferred, root);
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

/**
 * The emulator's icon: browsers ask for /favicon.ico on every page (the console and `/` link it), and
 * an unanswered one would be a 404 and a row in the request journal.
 */
const ICON = Buffer.from(
  '<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 16 16"><rect width="16" height="16" rx="3" fill="#1f4e79"/><path d="M4 11V5h3.5a2 2 0 0 1 0 4H4" fill="none" stroke="#fff" stroke-width="1.6"/></svg>',
);

/** Answers `/` (a page linking the console and the docs) and `/favicon.ico`; false for another path. */
export function serveRoot(pathname: string, res: ServerResponse, req: IncomingMessage): boolean {
  if (pathname === '/') serveHome(res, req);
  else if (pathname === '/favicon.ico') {
    res.writeHead(200, {
      'content-type': MEDIA_TYPES['.svg'],
      'content-length': ICON.length,
      'cache-control': 'max-age=86400',
    });
    res.end(req.method === 'HEAD' ? undefined : ICON);
  } else return false;
  return true;
}

/** The emulator's address itself: where the console and the docs are. */
function serveHome(res: ServerResponse, req: IncomingMessage) {
  const html = `<!doctype html>
<html lang="en">
<head><meta charset="utf-8"><title>Platform API emulator</title><link rel="icon" href="/favicon.ico" type="image/svg+xml"></head>
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
