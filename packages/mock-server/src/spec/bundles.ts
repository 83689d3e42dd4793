// Loads the bundled OpenAPI documents of @platform-api/spec and lists their operations: the platform's
// three APIs, and the emulator's own (/_emulator/*), which the pipeline serves alike.
import { hash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';

export type ApiName = 'event-streams' | 'auth' | 'management';
export const API_NAMES: readonly ApiName[] = ['event-streams', 'auth', 'management'];
/** The platform's APIs and the emulator's own. */
export type SpecName = ApiName | 'emulator';
export const SPEC_NAMES: readonly SpecName[] = [...API_NAMES, 'emulator'];

/** `{ "$ref": "#/..." }`: a reference to another place of the same document. */
export interface Reference {
  $ref: string;
}

/** A JSON Schema (2020-12) of the specs, as ajv compiles it. */
export interface SchemaObject {
  properties?: Record<string, SchemaObject | Reference>;
  [keyword: string]: unknown;
}

// Below, only what the emulator reads of an OpenAPI document.

export interface ParameterObject {
  name: string;
  in: 'path' | 'query' | 'header' | 'cookie';
  required?: boolean;
  schema?: SchemaObject;
  example?: unknown;
  style?: string;
  explode?: boolean;
}

export interface MediaTypeObject {
  schema?: SchemaObject;
  examples?: Record<string, { value?: unknown } | Reference>;
}

export interface RequestBodyObject {
  required?: boolean;
  content?: Record<string, MediaTypeObject>;
}

export interface ResponseObject {
  content?: Record<string, MediaTypeObject>;
}

type SecurityRequirement = Record<string, string[]>;

interface OperationObject {
  operationId?: string;
  parameters?: (ParameterObject | Reference)[];
  requestBody?: RequestBodyObject | Reference;
  responses?: Record<string, ResponseObject | Reference>;
  security?: SecurityRequirement[];
}

const HTTP_METHODS = ['get', 'put', 'post', 'delete', 'patch'] as const;

type PathItemObject = { [Method in (typeof HTTP_METHODS)[number]]?: OperationObject } & {
  parameters?: (ParameterObject | Reference)[];
  /** Left when the bundle could not resolve a file reference. */
  $ref?: string;
};

export interface OpenApiDocument {
  info: {
    /** The event-streams spec's limits. */
    'x-platform-limits'?: PlatformLimits;
    /** The event-streams spec's `details.code` values, each with its meaning. */
    'x-error-codes'?: Record<string, string>;
  };
  paths: Record<string, PathItemObject | Reference>;
  components?: Record<string, unknown>;
  security?: SecurityRequirement[];
}

export interface Operation<Api extends SpecName = ApiName> {
  api: Api;
  operationId: string;
  method: string;
  /** The path template, e.g. `/api/v1/topics/{topic_id}/publish`. */
  path: string;
  parameters: ParameterObject[];
  requestBody?: RequestBodyObject;
  responses: Record<string, ResponseObject | Reference>;
  /** False when the operation declares `security: []`-style anonymous access only. */
  needsBearer: boolean;
  /** The emulator API's fleet-level calls: the admin token in every requirement (whether it is required, tenants/admission.ts says). */
  needsAdminToken: boolean;
}

export interface Specs {
  documents: Record<ApiName, OpenApiDocument>;
  operations: Operation[];
}

const require = createRequire(import.meta.url);
/** The installed bundles' paths, resolved once: every start asks for each twice. */
const installed = new Map<SpecName, string>();

/** The bundle of `api`: `<specDir>/<api>.json` when a directory is given, else @platform-api/spec's. */
export function specFilePath(api: SpecName, specDir?: string): string {
  if (specDir !== undefined) return join(specDir, `${api}.json`);
  let path = installed.get(api);
  if (path === undefined) {
    path = require.resolve(`@platform-api/spec/${api}.json`);
    installed.set(api, path);
  }
  return path;
}

/**
 * What each document read from a bundle file was parsed from, by the document (a copy made otherwise
 * has nothing): its text until its digest is first asked for, then the digest.
 */
const sources = new WeakMap<OpenApiDocument, { text?: string; digest?: string }>();

/**
 * The digest of the text the document was parsed from (undefined for a document not read by this
 * module): the build's checks (spec/checks.ts) serve only the bundle they were compiled from. Made
 * when first asked for: a bundle no check is taken for is not hashed.
 */
export function bundleDigest(document: OpenApiDocument): string | undefined {
  const source = sources.get(document);
  if (source?.text !== undefined) {
    source.digest = digestOf(source.text);
    source.text = undefined;
  }
  return source?.digest;
}

/** Digests of bundle texts, as bundleDigest gives them. */
export function digestOf(text: string): string {
  return hash('sha1', text);
}

function readBundle(api: SpecName, specDir: string | undefined): OpenApiDocument {
  const text = readFileSync(specFilePath(api, specDir), 'utf8');
  const document = JSON.parse(text) as OpenApiDocument;
  sources.set(document, { text });
  return document;
}

export function loadSpecs(specDir?: string): Specs {
  const documents = Object.fromEntries(API_NAMES.map((api) => [api, readBundle(api, specDir)])) as Record<
    ApiName,
    OpenApiDocument
  >;
  return { documents, operations: API_NAMES.flatMap((api) => listOperations(api, documents[api])) };
}

/** The emulator's own API: its document and operations. */
export function loadEmulatorSpec(specDir?: string): {
  document: OpenApiDocument;
  operations: Operation<'emulator'>[];
} {
  const document = readBundle('emulator', specDir);
  return { document, operations: listOperations('emulator', document) };
}

/**
 * Follows `#/...` references inside one document. The bundles are linted, so what a reference points
 * at is what its place in the document expects.
 */
export function deref<T extends object>(document: OpenApiDocument, node: T | Reference): T {
  let current: unknown = node;
  while (isLocalReference(current)) {
    current = current.$ref
      .slice(2)
      .split('/')
      .reduce<unknown>((parent, key) => childOf(parent, key.replace(/~1/g, '/').replace(/~0/g, '~')), document);
  }
  return current as T;
}

function isLocalReference(node: unknown): node is Reference {
  return typeof node === 'object' && node !== null && '$ref' in node && String(node.$ref).startsWith('#/');
}

function childOf(parent: unknown, key: string): unknown {
  return typeof parent === 'object' && parent !== null ? (parent as Record<string, unknown>)[key] : undefined;
}

function listOperations<Api extends SpecName>(api: Api, document: OpenApiDocument): Operation<Api>[] {
  return Object.entries(document.paths).flatMap(([path, rawItem]) => {
    const item = deref(document, rawItem);
    // A path item left as an unresolved file reference has no operations to serve.
    if (!item || typeof item.$ref === 'string') return [];
    const shared = (item.parameters ?? []).map((p) => deref(document, p));
    return HTTP_METHODS.flatMap((method): Operation<Api>[] => {
      const op = item[method];
      if (!op?.operationId) return [];
      const own = (op.parameters ?? []).map((p) => deref(document, p));
      const security = op.security ?? document.security ?? [];
      return [
        {
          api,
          operationId: op.operationId,
          method: method.toUpperCase(),
          path,
          parameters: mergeParameters(shared, own),
          requestBody: op.requestBody ? deref(document, op.requestBody) : undefined,
          responses: op.responses ?? {},
          needsBearer: security.some((requirement) => 'BearerAuth' in requirement),
          needsAdminToken: security.length > 0 && security.every((requirement) => 'AdminToken' in requirement),
        },
      ];
    });
  });
}

/** Operation-level parameters override path-level ones with the same name and location. */
function mergeParameters(shared: ParameterObject[], own: ParameterObject[]): ParameterObject[] {
  const key = (p: ParameterObject) => `${p.in}:${p.name}`;
  const ownKeys = new Set(own.map(key));
  return [...shared.filter((p) => !ownKeys.has(key(p))), ...own];
}

export interface PlatformLimits {
  consumeBatchSizeDefault: number;
  consumeBatchSizeMax: number;
  consumeTimeoutSecsMax: number;
  maxMessageBytes: number;
  maxBatchMessages: number;
}

export function platformLimits(specs: Specs): PlatformLimits {
  const limits = specs.documents['event-streams'].info['x-platform-limits'];
  if (!limits) throw new Error('The event-streams spec declares no info.x-platform-limits');
  return limits;
}

export function documentedErrorCodes(specs: Specs): string[] {
  return Object.keys(specs.documents['event-streams'].info['x-error-codes'] ?? {});
}
