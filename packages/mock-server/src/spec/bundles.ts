// Loads the bundled OpenAPI documents of @platform-api/spec and lists their operations.
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';

export type ApiName = 'event-streams' | 'auth' | 'management';
export const API_NAMES: readonly ApiName[] = ['event-streams', 'auth', 'management'];

// Only what the emulator reads of an OpenAPI document.
export type JsonObject = Record<string, any>;

export interface Operation {
  api: ApiName;
  operationId: string;
  method: string;
  /** The path template, e.g. `/api/v1/topics/{topic_id}/publish`. */
  path: string;
  parameters: JsonObject[];
  requestBody?: JsonObject;
  responses: JsonObject;
  /** False when the operation declares `security: []`-style anonymous access only. */
  needsBearer: boolean;
}

export interface Specs {
  documents: Record<ApiName, JsonObject>;
  operations: Operation[];
}

const require = createRequire(import.meta.url);
const HTTP_METHODS = ['get', 'put', 'post', 'delete', 'patch'] as const;

export function specFilePath(api: ApiName): string {
  return require.resolve(`@platform-api/spec/${api}.json`);
}

export function loadSpecs(): Specs {
  const documents = Object.fromEntries(
    API_NAMES.map((api) => [api, JSON.parse(readFileSync(specFilePath(api), 'utf8')) as JsonObject]),
  ) as Record<ApiName, JsonObject>;
  return { documents, operations: API_NAMES.flatMap((api) => listOperations(api, documents[api])) };
}

/** Follows `#/...` references inside one document. */
export function deref(document: JsonObject, node: JsonObject): JsonObject {
  let current = node;
  while (current && typeof current.$ref === 'string' && current.$ref.startsWith('#/')) {
    current = current.$ref
      .slice(2)
      .split('/')
      .reduce((obj: JsonObject, key: string) => obj?.[key.replace(/~1/g, '/').replace(/~0/g, '~')], document);
  }
  return current;
}

function listOperations(api: ApiName, document: JsonObject): Operation[] {
  return Object.entries(document.paths as Record<string, JsonObject>).flatMap(([path, rawItem]) => {
    const item = deref(document, rawItem);
    // A path item left as an unresolved file reference has no operations to serve.
    if (!item || typeof item.$ref === 'string') return [];
    const shared: JsonObject[] = (item.parameters ?? []).map((p: JsonObject) => deref(document, p));
    return HTTP_METHODS.filter((method) => item[method]?.operationId).map((method): Operation => {
      const op = item[method] as JsonObject;
      const own: JsonObject[] = (op.parameters ?? []).map((p: JsonObject) => deref(document, p));
      const security: JsonObject[] = op.security ?? document.security ?? [];
      return {
        api,
        operationId: op.operationId,
        method: method.toUpperCase(),
        path,
        parameters: mergeParameters(shared, own),
        requestBody: op.requestBody ? deref(document, op.requestBody) : undefined,
        responses: op.responses ?? {},
        needsBearer: security.some((requirement) => 'BearerAuth' in requirement),
      };
    });
  });
}

/** Operation-level parameters override path-level ones with the same name and location. */
function mergeParameters(shared: JsonObject[], own: JsonObject[]): JsonObject[] {
  const key = (p: JsonObject) => `${p.in}:${p.name}`;
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
  return specs.documents['event-streams'].info['x-platform-limits'] as PlatformLimits;
}

export function documentedErrorCodes(specs: Specs): string[] {
  return Object.keys(specs.documents['event-streams'].info['x-error-codes'] ?? {});
}
