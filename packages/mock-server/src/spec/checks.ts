// The checks compiled from the specs' JSON Schemas. The build compiles those of the bundled specs
// (scripts/build-checks.mjs: ajv's standalone code, in dist/checks/), and they are loaded as they are,
// on first use. A bundle the build did not see (--spec-dir, the dev loop's saves) or a schema it did not
// compile (another batch limit) is compiled by ajv at first use, as before; ajv is loaded only then,
// its compiler being a sizeable share of a start (BENCHMARKS.md, start-up).
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { isDateTime, isEmail } from '@platform-api/spec/conventions';
import type { Ajv2020, CodeOptions, Format, Options, ValidateFunction } from 'ajv/dist/2020.js';
import { packageRoot } from '../package-root.js';
import { bundleDigest, digestOf, type OpenApiDocument, type SpecName } from './bundles.js';

const require = createRequire(import.meta.url);

const UINT32_MAX = 4294967295;

/** The OpenAPI integer formats, an RFC 5321 email, and a date-time that answers as ajv-formats' full one at an eighth of its cost. */
const OWN_FORMATS: Record<string, Format> = {
  'date-time': { type: 'string', validate: isDateTime },
  // RFC 5321's Mailbox, as JSON Schema defines `email`; ajv-formats' regex refuses `0@com`.
  email: { type: 'string', validate: isEmail },
  uint32: { type: 'number', validate: (n: number) => Number.isInteger(n) && n >= 0 && n <= UINT32_MAX },
  uint64: { type: 'number', validate: (n: number) => Number.isInteger(n) && n >= 0 },
  int32: { type: 'number', validate: (n: number) => Number.isInteger(n) },
  int64: { type: 'number', validate: (n: number) => Number.isInteger(n) },
  password: true,
};

/** Every format a check may name: ajv-formats' full ones, and the emulator's own over them. */
function allFormats(): Record<string, Format> {
  const { fullFormats } = require('ajv-formats/dist/formats.js') as { fullFormats: Record<string, Format> };
  return { ...fullFormats, ...OWN_FORMATS };
}

/** ajv's options: `coerceTypes` for path and query parameters, which arrive as text. */
function ajvOptions(coerceTypes: boolean): Options {
  // Schemas come from the linted specs, so they are not checked against the meta-schema (faster start).
  // strictNumbers: a JSON number past a double's range (1e400) parses as Infinity, which no integer or
  // number schema takes (strict: false would let it through, to be stored and answered as null).
  return { strict: false, strictNumbers: true, allErrors: true, validateSchema: false, meta: false, coerceTypes };
}

/** An ajv instance that knows the specs' components and the OpenAPI integer formats. */
export function createAjv(
  specs: { documents: Partial<Record<SpecName, OpenApiDocument>> },
  options: { coerceTypes?: boolean; code?: CodeOptions } = {},
): Ajv2020 {
  const { Ajv2020 } = require('ajv/dist/2020.js') as typeof import('ajv/dist/2020.js');
  // ajv-formats is CommonJS with a `default` property; require sidesteps the interop typing.
  const addFormats = require('ajv-formats') as (ajv: Ajv2020) => Ajv2020;
  const ajv = new Ajv2020({ ...ajvOptions(options.coerceTypes ?? false), code: options.code });
  addFormats(ajv);
  for (const [name, format] of Object.entries(OWN_FORMATS)) ajv.addFormat(name, format);
  for (const [api, document] of Object.entries(specs.documents)) {
    ajv.addSchema({ $id: schemaBase(api as SpecName), components: document.components ?? {} });
  }
  return ajv;
}

export const schemaBase = (api: SpecName) => `urn:platform-api:${api}`;

/** Rewrites the document-local `#/components/...` references so ajv resolves them in `api`'s document. */
export function anchorRefs(api: SpecName, schema: unknown): unknown {
  if (Array.isArray(schema)) return schema.map((item) => anchorRefs(api, item));
  if (schema === null || typeof schema !== 'object') return schema;
  return Object.fromEntries(
    Object.entries(schema).map(([key, value]) => [
      key,
      key === '$ref' && typeof value === 'string' && value.startsWith('#/')
        ? schemaBase(api) + value
        : anchorRefs(api, value),
    ]),
  );
}

/** What the build wrote for one spec and kind: `<spec>.<kind>.json` (this) and `<spec>.<kind>.cjs` (the code). */
export interface BuiltIndex {
  /** bundleDigest of the bundle the checks were compiled from. */
  digest: string;
  /** The export of the code's `load(formats)` holding the check of each key (SchemaChecks.key). */
  checks: Record<string, string>;
}

/** `params`: coercing, for path and query parameters; `values`: request bodies and stored items. */
export type CheckKind = 'params' | 'values';

/** The build's check of a key (SchemaChecks.key), if it compiled one. */
type BuiltLookup = (key: string) => ValidateFunction | undefined;

/** The package's dist/checks/. */
const builtDir = () => join(packageRoot(), 'dist', 'checks');

/** Compiles the schemas of some specs' documents with one set of ajv options, or takes the build's code. */
export class SchemaChecks {
  private ajv: Ajv2020 | undefined;
  private readonly built = new Map<SpecName, BuiltLookup | undefined>();

  constructor(
    private readonly documents: Partial<Record<SpecName, OpenApiDocument>>,
    readonly kind: CheckKind,
  ) {}

  /** The check of `schema`, a schema of `api`'s document (anchorRefs applied). */
  compile(api: SpecName, schema: object): ValidateFunction {
    return this.builtCheck(api, schema) ?? this.compiler().compile(schema);
  }

  /** The check of the component schema `pointer` (`#/components/schemas/Topic`) of `api`'s document. */
  component(api: SpecName, pointer: string): ValidateFunction {
    const validate = this.builtCheck(api, pointer) ?? this.compiler().getSchema(schemaBase(api) + pointer);
    if (!validate) throw new Error(`No schema ${pointer} in the ${api} spec`);
    return validate as ValidateFunction;
  }

  /**
   * What names a check in the build's index: ajv's options, the bundle, and the schema (or component
   * pointer). A schema built otherwise at start than at build time (another limit, another recipe) has
   * another key, and is compiled.
   */
  key(api: SpecName, schemaOrPointer: object | string): string {
    const options = ajvOptions(this.kind === 'params');
    return digestOf(JSON.stringify([options, this.digest(api), schemaOrPointer]));
  }

  private builtCheck(api: SpecName, schemaOrPointer: object | string): ValidateFunction | undefined {
    if (!this.built.has(api)) this.built.set(api, loadBuilt(`${api}.${this.kind}`, this.digest(api)));
    return this.built.get(api)?.(this.key(api, schemaOrPointer));
  }

  private digest(api: SpecName): string | undefined {
    const document = this.documents[api];
    return document && bundleDigest(document);
  }

  private compiler(): Ajv2020 {
    this.ajv ??= createAjv({ documents: this.documents }, { coerceTypes: this.kind === 'params' });
    return this.ajv;
  }
}

/**
 * Whether the build compiled its checks from the bundle this document was read from; the build also
 * read the bundle's vocabulary then (scripts/build-checks.mjs).
 */
export function builtFrom(api: SpecName, document: OpenApiDocument): boolean {
  const digest = bundleDigest(document);
  return digest !== undefined && builtIndex(`${api}.values`)?.digest === digest;
}

/** The build's checks named `name`, when they were compiled from the bundle of this digest; their code is read on first use. */
function loadBuilt(name: string, digest: string | undefined): BuiltLookup | undefined {
  const index = builtIndex(name);
  if (!index || digest === undefined || index.digest !== digest) return undefined;
  let checks: Record<string, ValidateFunction> | undefined;
  return (key) => {
    const exported = Object.hasOwn(index.checks, key) ? index.checks[key] : undefined;
    if (exported === undefined) return undefined;
    checks ??= (require(join(builtDir(), `${name}.cjs`)) as BuiltCode).load(allFormats());
    return checks[exported];
  };
}

/** `<spec>.<kind>.cjs`: ajv's standalone code of the checks, in a function of the formats they name. */
interface BuiltCode {
  load(formats: Record<string, Format>): Record<string, ValidateFunction>;
}

const indexes = new Map<string, BuiltIndex | undefined>();

/** `<name>.json` of the build, read once. */
function builtIndex(name: string): BuiltIndex | undefined {
  if (!indexes.has(name)) indexes.set(name, readIndex(join(builtDir(), `${name}.json`)));
  return indexes.get(name);
}

function readIndex(file: string): BuiltIndex | undefined {
  try {
    return JSON.parse(readFileSync(file, 'utf8')) as BuiltIndex;
  } catch (error) {
    // Not built (a fresh clone's tests before `npm run build`): every check is compiled.
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw error;
  }
}
