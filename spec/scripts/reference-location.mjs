// Where the platform's public OpenAPI description is read from, for the suites that hold the spec and the
// emulator to it: `../shared/reference/` beside the repository (as CI has it), or PLATFORM_API_REFERENCE_DIR.
// A newcomer's clone has no ../shared: those suites then skip, saying where to put it.
import { existsSync } from 'node:fs';
import { resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const repositoryRoot = fileURLToPath(new URL('../../', import.meta.url));

export const referenceFile = resolve(
  process.env.PLATFORM_API_REFERENCE_DIR ?? resolve(repositoryRoot, '../shared/reference'),
  'platform-api-public-spec.yaml',
);

/** Why the description cannot be read here, saying where to put it; undefined when it can. */
export const referenceMissing = existsSync(referenceFile)
  ? undefined
  : `the platform's public description is missing: ${referenceFile}. Put the shared/ folder beside the ` +
    'repository (as CI does) or set PLATFORM_API_REFERENCE_DIR to the folder holding platform-api-public-spec.yaml';
