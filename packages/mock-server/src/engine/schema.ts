// Typed reads of the JSON Schema keywords the engine uses. The bundles are linted, so a keyword holds
// what JSON Schema says it holds; these accessors only narrow `unknown` to that.
import { deref, type OpenApiDocument, type Reference, type SchemaObject } from '../spec/bundles.js';
import type { JsonObject } from '../store/resource-store.js';

export type SchemaNode = SchemaObject | Reference;

export function resolve(document: OpenApiDocument, node: SchemaNode): SchemaObject {
  return deref<SchemaObject>(document, node);
}

export function typesOf(schema: SchemaObject): string[] {
  if (Array.isArray(schema.type)) return schema.type as string[];
  if (typeof schema.type === 'string') return [schema.type];
  if (schema.properties) return ['object'];
  return [];
}

export function requiredOf(schema: SchemaObject): string[] {
  return Array.isArray(schema.required) ? (schema.required as string[]) : [];
}

export function propertiesOf(schema: SchemaObject): Record<string, SchemaNode> {
  return schema.properties ?? {};
}

/** The schemas of `allOf`, `oneOf` or `anyOf`. */
export function partsOf(schema: SchemaObject, keyword: 'allOf' | 'oneOf' | 'anyOf'): SchemaNode[] {
  const parts = schema[keyword];
  return Array.isArray(parts) ? (parts as SchemaNode[]) : [];
}

export function itemsOf(schema: SchemaObject): SchemaNode | undefined {
  return isObject(schema.items) ? (schema.items as SchemaNode) : undefined;
}

export function numberOf(schema: SchemaObject, keyword: string): number | undefined {
  const value = schema[keyword];
  return typeof value === 'number' ? value : undefined;
}

export function stringOf(schema: SchemaObject, keyword: string): string | undefined {
  const value = schema[keyword];
  return typeof value === 'string' ? value : undefined;
}

export function isObject(value: unknown): value is JsonObject {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
