// Loads the bundled documents (spec/dist), which `npm run build` writes from the hand-written YAML.
import { readFileSync } from 'node:fs';

/** A node of a parsed bundle, walked by the tests as freely as JSON.parse types it. */
export type Json = ReturnType<typeof JSON.parse>;

export function loadBundle(name: 'event-streams' | 'auth' | 'management' | 'emulator'): Json {
  return JSON.parse(readFileSync(new URL(`../../dist/${name}.json`, import.meta.url), 'utf8'));
}

/** Follows local `#/components/...` refs, as tools reading the bundle do. */
export function deref(doc: Json, node: Json): Json {
  let current = node;
  while (current && typeof current.$ref === 'string') {
    current = current.$ref
      .slice(2)
      .split('/')
      .reduce((obj: Json, key: string) => obj[key.replace(/~1/g, '/').replace(/~0/g, '~')], doc);
  }
  return current;
}

/** The operation with this id; a test cannot go on without it. */
export function operationById(doc: Json, operationId: string) {
  const found = operations(doc).find((o) => o.op.operationId === operationId);
  if (!found) throw new Error(`no operation ${operationId}`);
  return found;
}

const HTTP_METHODS = ['get', 'put', 'post', 'delete', 'patch', 'head', 'options', 'trace'] as const;

export function operations(doc: Json): Array<{ method: string; path: string; op: Json; pathItem: Json }> {
  return Object.entries(doc.paths as Json).flatMap(([path, pathItem]) =>
    HTTP_METHODS.filter((m) => pathItem[m]).map((method) => ({ method, path, op: pathItem[method], pathItem })),
  );
}
