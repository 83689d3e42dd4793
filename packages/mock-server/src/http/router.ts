// Matches a method and path to an operation of the specs. Built from the path templates, so a route
// exists exactly when a spec declares it. A segment tree prefers literal segments over `{param}` ones,
// which keeps `/api/packages/export/{manifest_id}` apart from `/api/packages/{id}/download`.
import type { ApiName, Operation, SpecName } from '../spec/bundles.js';

interface RouteNode<Api extends SpecName> {
  literal: Map<string, RouteNode<Api>>;
  param?: RouteNode<Api>;
  /** What follows the parameter in its segment: `.json` in `{api}.json`. */
  paramSuffix: string;
  /** Per HTTP method: the operation and its parameter names in path order. */
  operations: Map<string, { operation: Operation<Api>; paramNames: string[] }>;
}

export interface RouteMatch<Api extends SpecName = ApiName> {
  operation: Operation<Api>;
  params: Readonly<Record<string, string>>;
}

/** A path of the specs without an operation for the method: the methods it has, and its API. */
export interface OtherMethods<Api extends SpecName = ApiName> {
  allowed: readonly string[];
  api: Api;
}

export type RouteResult<Api extends SpecName = ApiName> = RouteMatch<Api> | OtherMethods<Api> | undefined;

const newNode = <Api extends SpecName>(): RouteNode<Api> => ({
  literal: new Map(),
  operations: new Map(),
  paramSuffix: '',
});

/** The routes of one API or of several (the platform's three share one router; the emulator's has its own). */
export class Router<Api extends SpecName = ApiName> {
  private readonly root = newNode<Api>();

  constructor(operations: Operation<Api>[]) {
    for (const operation of operations) this.add(operation);
  }

  private add(operation: Operation<Api>): void {
    const paramNames: string[] = [];
    let node = this.root;
    for (const segment of splitPath(operation.path)) {
      const [, paramName, suffix = ''] = /^\{([^}]+)\}(.*)$/.exec(segment) ?? [];
      if (paramName !== undefined) {
        if (node.param && node.paramSuffix !== suffix) throw new Error(`Two parameter forms at ${operation.path}`);
        paramNames.push(paramName);
        node.param ??= newNode();
        node.paramSuffix = suffix;
        node = node.param;
      } else {
        let next = node.literal.get(segment);
        if (!next) {
          next = newNode();
          node.literal.set(segment, next);
        }
        node = next;
      }
    }
    if (node.operations.has(operation.method)) {
      throw new Error(`Two operations at ${operation.method} ${operation.path}`);
    }
    node.operations.set(operation.method, { operation, paramNames });
  }

  /** `pathname` is the raw (still percent-encoded) path without the query string. */
  route(method: string, pathname: string): RouteResult<Api> {
    const values: string[] = [];
    const node = find(this.root, splitPath(pathname), 0, values);
    if (!node) return undefined;
    // HEAD is GET without the body (RFC 9110 9.3.2), which node:http leaves out of a HEAD's answer.
    const entry = node.operations.get(method) ?? (method === 'HEAD' ? node.operations.get('GET') : undefined);
    if (!entry) return otherMethods(node);
    // One value per parameter segment, in path order.
    const params = Object.fromEntries(entry.paramNames.map((name, i) => [name, safeDecode(values[i] ?? '')]));
    return { operation: entry.operation, params };
  }
}

function otherMethods<Api extends SpecName>(node: RouteNode<Api>): OtherMethods<Api> | undefined {
  const operations = [...node.operations.values()].map((entry) => entry.operation);
  // The paths of one API never share a template with another's.
  const allowed = operations.map((op) => op.method);
  if (allowed.includes('GET')) allowed.splice(allowed.indexOf('GET') + 1, 0, 'HEAD');
  const api = operations[0]?.api;
  return api === undefined ? undefined : { allowed, api };
}

function find<Api extends SpecName>(
  node: RouteNode<Api>,
  segments: string[],
  index: number,
  values: string[],
): RouteNode<Api> | undefined {
  const segment = segments[index];
  if (segment === undefined) return node.operations.size > 0 ? node : undefined;
  const literal = node.literal.get(segment);
  if (literal) {
    const found = find(literal, segments, index + 1, values);
    if (found) return found;
  }
  if (node.param && segment.length > node.paramSuffix.length && segment.endsWith(node.paramSuffix)) {
    values.push(segment.slice(0, segment.length - node.paramSuffix.length));
    const found = find(node.param, segments, index + 1, values);
    if (found) return found;
    values.pop();
  }
  return undefined;
}

/** `/a/b/` and `/a/b` are the same route (the legacy `/pubsub/topics/` is often written with the slash). */
function splitPath(path: string): string[] {
  const trimmed = path.length > 1 && path.endsWith('/') ? path.slice(0, -1) : path;
  return trimmed.split('/').slice(1);
}

/** A malformed escape stays as sent; parameter validation then rejects it with a clear message. */
function safeDecode(value: string): string {
  try {
    return decodeURIComponent(value);
  } catch {
    return value;
  }
}
