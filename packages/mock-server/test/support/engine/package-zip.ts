// Sending a package zip to import_package, which call() cannot (it sends text bodies), downloading
// one, and the pull and push of the platform's CLIs (`wk pull`, `wk push`) as the tests drive them.
import { strToU8, unzipSync, zipSync } from 'fflate';
import { expect } from 'vitest';
import type { MockServer } from '../../../src/index.js';
import type { JsonObject } from '../../../src/store/resource-store.js';
import { type Answer, assertConforms, type Run, toAnswer, token } from '../helpers.js';

/** An emulator as the tests reach it: its URL and the bootstrap credentials. */
export type Emulator = Pick<MockServer, 'url' | 'clientId' | 'clientSecret'>;

/** POSTs a zip to import_package (call() sends text bodies only); the answer is checked against the spec. */
export async function importZip(emulator: Emulator, folderId: number, zip: Uint8Array, query = ''): Promise<Answer> {
  const admin = await token(emulator as MockServer);
  const response = await fetch(`${emulator.url}/api/packages/import/${folderId}${query}`, {
    method: 'POST',
    headers: { authorization: `Bearer ${admin}`, 'content-type': 'application/octet-stream' },
    body: Buffer.from(zip),
  });
  const answer = await toAnswer(response);
  assertConforms('import_package', answer);
  return answer;
}

/** The report of an import that must succeed (200): the package, with what it did to each asset. */
export async function importReport(
  emulator: Emulator,
  folderId: number,
  zip: Uint8Array,
  query = '',
): Promise<JsonObject & { assets: JsonObject[] }> {
  const answer = await importZip(emulator, folderId, zip, query);
  expect(answer.status, JSON.stringify(answer.body)).toBe(200);
  return answer.body as JsonObject & { assets: JsonObject[] };
}

/** The zip of a completed export, as download_package answers it. */
export async function downloadZip(emulator: Emulator, packageId: number): Promise<Uint8Array> {
  const response = await fetch(`${emulator.url}/api/packages/${packageId}/download`, {
    headers: { authorization: `Bearer ${await token(emulator as MockServer)}` },
  });
  expect(response.status).toBe(200);
  return new Uint8Array(await response.arrayBuffer());
}

/** The files of a pulled package, by path, as bytes. */
export type Files = Record<string, Uint8Array>;

export const text = (bytes: Uint8Array | undefined) => new TextDecoder().decode(bytes);
export const parsed = (bytes: Uint8Array | undefined) => JSON.parse(text(bytes)) as JsonObject;

/** The statuses `wk` stops polling a package at: success, then failure. */
const DONE = ['completed', 'succeeded', 'failed', 'error'];

/** Polls get_package as `wk` does until the package is done (the emulator's are at once: a few polls at most). */
async function settled(run: Run, id: number): Promise<JsonObject> {
  for (let poll = 0; poll < 10; poll += 1) {
    const answer = await run('get_package', { params: { id } });
    expect(answer.status).toBe(200);
    const body = answer.body as JsonObject;
    if (DONE.includes(String(body.status))) return body;
  }
  throw new Error(`package ${id} is still not done`);
}

/**
 * `wk pull` of a folder: an export manifest generated from it (`wk-export-<unix>`), its export,
 * polled until done, and the download unzipped. The package is answered too.
 */
export async function pull(
  emulator: Emulator,
  run: Run,
  folderId: number,
): Promise<{ files: Files; package: JsonObject }> {
  const manifest = await run('create_export_manifest', {
    body: { export_manifest: { name: `wk-export-${Date.now()}`, folder_id: folderId, auto_generate_assets: true } },
  });
  expect(manifest.status, JSON.stringify(manifest.body)).toBe(201);
  expect(manifest.body.result.folder_id).toBe(folderId);
  const started = await run('export_package', { params: { manifest_id: manifest.body.result.id } });
  const done = await settled(run, Number(started.body.id));
  expect(done.status).toBe('completed');
  return { files: unzipSync(await downloadZip(emulator, Number(done.id))), package: done };
}

/** `wk push`: the files given (only the changed ones, without `manifest.json`) zipped and imported, polled until done. */
export async function push(
  emulator: Emulator,
  run: Run,
  folderId: number,
  files: Record<string, Uint8Array | string>,
): Promise<JsonObject> {
  const zip = zipSync(
    Object.fromEntries(
      Object.entries(files).map(([path, data]) => [path, typeof data === 'string' ? strToU8(data) : data]),
    ),
  );
  const report = await importReport(emulator, folderId, zip, '?restart_recipes=true');
  return settled(run, Number(report.id));
}
