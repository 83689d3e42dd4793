// Where this package's files are (dist/checks/, web/), found by the package's own name: the same from
// src/ (the tests), from dist/ and from the bundled command line (dist/cli.js), where a path relative
// to the importing module would name another folder.
import { createRequire } from 'node:module';
import { dirname } from 'node:path';

/** The folder holding this package's package.json. */
export function packageRoot(): string {
  return dirname(createRequire(import.meta.url).resolve('@platform-api/mock-server/package.json'));
}
