// Renders the four bundled specs of @platform-api/spec into self-contained HTML pages with
// `redocly build-docs --inlineBundle` (the default page loads Redoc from a CDN and stays blank
// offline), and writes a landing page that links them and shows the quick start.
// Every page must work without network: see offlineAssets for what Redoc still loads remotely.
import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs, promisify } from 'node:util';
import { parse as parseYaml } from 'yaml';

const packageDir = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const require = createRequire(import.meta.url);
/** Where @redocly/cli is installed: its CLI, and the Redoc script that build-docs inlines. */
export const redoclyDir = dirname(require.resolve('@redocly/cli/package.json'));
const redoclyCli = join(redoclyDir, 'bin/cli.js');
/** Redocly's page template plus an empty inline favicon (see README). */
export const referenceTemplate = join(packageDir, 'src/reference.hbs');
const defaultSpecDir = dirname(require.resolve('@platform-api/spec/event-streams.yaml'));

/** The reference pages, in the order the landing page lists them. */
export const API_PAGES = ['event-streams', 'auth', 'management', 'emulator'] as const;

export interface SpecInfo {
  title: string;
  version: string;
  summary?: string;
}

export interface BuildOptions {
  /** Directory holding the bundled {event-streams,auth,management,emulator}.yaml; default: @platform-api/spec's dist. */
  specDir?: string;
  /** Where the HTML files go; default: this package's dist. */
  outDir?: string;
  /** The reference pages to render again (the landing page always is); default: every one. */
  apis?: readonly string[];
}

export async function buildDocs({
  specDir = defaultSpecDir,
  outDir = join(packageDir, 'dist'),
  apis = API_PAGES,
}: BuildOptions = {}) {
  const unknown = apis.filter((api) => !(API_PAGES as readonly string[]).includes(api));
  if (unknown.length > 0)
    throw new Error(`No reference page for ${unknown.join(', ')} (one of ${API_PAGES.join(', ')})`);
  const specPaths = API_PAGES.map((name) => join(specDir, `${name}.yaml`));
  const missing = specPaths.filter((path) => !existsSync(path));
  if (missing.length > 0) {
    throw new Error(
      `Bundled spec missing: ${missing.join(', ')}. Bundle it first: npm run build -w @platform-api/spec`,
    );
  }
  await mkdir(outDir, { recursive: true });
  await Promise.all(
    API_PAGES.map((name, i) =>
      apis.includes(name) ? renderReferencePage(specPaths[i] ?? '', join(outDir, `${name}.html`)) : undefined,
    ),
  );
  const infos = await Promise.all(specPaths.map(readSpecInfo));
  await writeOfflinePage(join(outDir, 'index.html'), await renderLandingPage(infos));
}

const run = promisify(execFile);

/**
 * Redoc 3's sidebar shows the Redocly logo from its CDN whatever the options say; each such URL is
 * replaced by an inline SVG. The build fails when a page still refers to a remote asset.
 */
const offlineAssets: Record<string, string> = {
  'https://cdn.redoc.ly/redoc/logo-mini-full.svg': svgDataUri(56, 'Redocly'),
  'https://cdn.redoc.ly/redoc/logo-mini.svg': svgDataUri(10, 'R'),
};

function svgDataUri(width: number, text: string) {
  const svg = `<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="14"><text x="0" y="11" font-family="sans-serif" font-size="12" font-weight="bold" fill="#0044d4">${text}</text></svg>`;
  return `data:image/svg+xml,${encodeURIComponent(svg)}`;
}

async function renderReferencePage(specPath: string, outFile: string) {
  await run(
    process.execPath,
    [redoclyCli, 'build-docs', specPath, '--inlineBundle', '--template', referenceTemplate, '--output', outFile],
    {
      cwd: packageDir,
      // Also switches off the telemetry that the rendered page would otherwise send from the browser.
      env: { ...process.env, REDOCLY_TELEMETRY: 'off', REDOCLY_SUPPRESS_UPDATE_NOTICE: 'true' },
      maxBuffer: 16 * 1024 * 1024,
    },
  );
  await writeOfflinePage(outFile, inlineOfflineAssets(await readFile(outFile, 'utf8')));
}

/** The page (or Redoc's script) with the remote assets Redoc names replaced by inline ones. */
export function inlineOfflineAssets(text: string): string {
  let offline = text;
  for (const [url, inline] of Object.entries(offlineAssets)) offline = offline.replaceAll(url, inline);
  return offline;
}

/** Writes a page, or a script it loads, that must load nothing from the network. */
export async function writeOfflinePage(file: string, html: string) {
  const remote = remoteAssetUrls(html);
  if (remote.length > 0) {
    throw new Error(
      `${file} would load ${remote.join(', ')} from the network; inline it (see offlineAssets in src/build.ts)`,
    );
  }
  await writeFile(file, html);
}

const remoteAssetPatterns = [
  // The address of a script, style sheet, font or image file, in markup or in bundled code.
  /https?:\/\/[^\s"'`()<>]+?\.(?:m?js|css|woff2?|ttf|otf|eot|svg|png|jpe?g|gif|webp|ico)(?=[\s"'`()<>?#]|$)/gi,
  // An element that loads its remote address, whatever the file name (e.g. a Google Fonts style sheet).
  /<(?:script|link|img|iframe|source)\b[^>]*?\b(?:src|href)\s*=\s*["']?(https?:\/\/[^\s"'>]+)/gi,
  // A remote CSS import or url(), e.g. a web font.
  /(?:@import\s+|url\(\s*)["']?(https?:\/\/[^\s"')]+)/gi,
];

/** Remote URLs a page would load by itself (links the reader may follow are not counted). */
export function remoteAssetUrls(html: string): string[] {
  const urls = remoteAssetPatterns.flatMap((pattern) =>
    [...html.matchAll(pattern)].map((match) => match[1] ?? match[0]),
  );
  return [...new Set(urls)];
}

async function readSpecInfo(specPath: string): Promise<SpecInfo> {
  const document = parseYaml(await readFile(specPath, 'utf8')) as { info: SpecInfo };
  return document.info;
}

/** The landing page: a link to each reference page with its API's title, version and summary, and the quick start. */
export async function renderLandingPage(infos: SpecInfo[]) {
  const template = await readFile(join(packageDir, 'src/index.html'), 'utf8');
  const items = infos.map(({ title, version, summary = '' }, i) => {
    const name = API_PAGES[i];
    return `      <li><a href="${name}.html">${escapeHtml(title)}</a> <span class="version">v${escapeHtml(version)}</span><br>${escapeHtml(summary)}</li>`;
  });
  return template.replace('<!-- api-pages -->', () => items.join('\n'));
}

export function escapeHtml(text: string) {
  return text.replace(/[&<>"']/g, (char) => `&#${char.charCodeAt(0)};`);
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const { values } = parseArgs({
    options: { 'spec-dir': { type: 'string' }, 'out-dir': { type: 'string' }, api: { type: 'string', multiple: true } },
  });
  const started = Date.now();
  const apis = values.api ?? API_PAGES;
  await buildDocs({ specDir: values['spec-dir'], outDir: values['out-dir'], apis });
  console.log(
    `docs: wrote ${[...apis, 'index'].map((name) => `${name}.html`).join(', ')} in ${Date.now() - started} ms`,
  );
}
