// Sending a package zip to import_package, which call() cannot (it sends text bodies).
import type { MockServer } from '../../src/index.js';
import { type Answer, assertConforms, toAnswer, token } from '../helpers.js';

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
