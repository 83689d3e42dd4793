// Writes dist/types/<api>.d.ts from the bundles in dist/ (run by `npm run build` after redocly bundle):
// the TypeScript types of each API, generated once here and imported by the client and the emulator as
// `@platform-api/spec/types/<api>`.
//
// Through openapi-typescript's Node API, not its command line: the command line finds this folder's
// redocly.yaml, whose `apis` make it ignore the file it is given ("Only using Redocly config"). The
// output is what `openapi-typescript dist/<api>.yaml --default-non-nullable false` writes.
import { mkdirSync, writeFileSync } from 'node:fs';
import openapiTS, { astToString, COMMENT_HEADER } from 'openapi-typescript';

const APIS = ['event-streams', 'auth', 'management', 'emulator'];
const dist = new URL('../dist/', import.meta.url);
const out = new URL('types/', dist);

mkdirSync(out, { recursive: true });
await Promise.all(
  APIS.map(async (api) => {
    const ast = await openapiTS(new URL(`${api}.yaml`, dist), { defaultNonNullable: false, silent: true });
    writeFileSync(new URL(`${api}.d.ts`, out), `${COMMENT_HEADER}${astToString(ast)}`);
  }),
);
