#!/usr/bin/env node
// Compares the management spec with the platform's public description (`../shared/reference/` beside
// the repository, or PLATFORM_API_REFERENCE_DIR; MIT-licensed, read and never copied): for every
// operation both describe, each query parameter and each field of the JSON request and 2xx response
// bodies (nested fields as dotted paths, array items as `[]`), by name and JSON type. A request field
// or query parameter agrees when ours accepts the reference's type (an id as `integer | string`).
// Usage: node spec/scripts/reference-agreement.mjs [--json] [--verbose]
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { bundle, loadConfig } from '@redocly/openapi-core';
import { parse } from 'yaml';
import { referenceFile, referenceMissing } from './reference-location.mjs';

const specDir = fileURLToPath(new URL('..', import.meta.url));

/** JSON types of a schema, with integer counted as number and null left out. */
function jsonTypes(schema) {
  const types = [schema.type ?? []].flat().filter((t) => t !== 'null');
  return [...new Set(types.map((t) => (t === 'integer' ? 'number' : t)))].sort().join('|');
}

/** Merges allOf members and picks the first non-null member of oneOf/anyOf, after resolving refs. */
function resolve(doc, schema, depth = 0) {
  if (!schema || depth > 20) return {};
  if (schema.$ref) return resolve(doc, pointer(doc, schema.$ref), depth + 1);
  if (schema.allOf) {
    const merged = { ...schema, allOf: undefined, properties: { ...(schema.properties ?? {}) } };
    for (const part of schema.allOf) {
      const r = resolve(doc, part, depth + 1);
      merged.type ??= r.type;
      Object.assign(merged.properties, r.properties ?? {});
      merged.items ??= r.items;
    }
    return merged;
  }
  const variants = schema.oneOf ?? schema.anyOf;
  if (variants && !schema.type && !schema.properties) {
    const chosen = variants.map((v) => resolve(doc, v, depth + 1)).find((v) => jsonTypes(v) !== '');
    return chosen ?? {};
  }
  return schema;
}

function pointer(doc, ref) {
  if (!ref.startsWith('#/')) throw new Error(`unresolved external ref ${ref}`);
  return ref
    .slice(2)
    .split('/')
    .reduce((node, key) => node?.[key.replace(/~1/g, '/').replace(/~0/g, '~')], doc);
}

/** Flattens a schema into `path -> JSON type` lines. */
function fields(doc, schema, prefix, out, depth = 0) {
  const s = resolve(doc, schema);
  if (depth > 6) return out;
  if (s.properties) {
    for (const [name, sub] of Object.entries(s.properties)) {
      const path = prefix ? `${prefix}.${name}` : name;
      out.set(path, jsonTypes(resolve(doc, sub)));
      fields(doc, sub, path, out, depth + 1);
    }
  }
  if (s.items) {
    const path = `${prefix}[]`;
    if (prefix || jsonTypes(s) === 'array') fields(doc, s.items, path, out, depth + 1);
  }
  return out;
}

function operationFields(doc, pathItem, op) {
  const out = new Map();
  for (const p of [...(pathItem.parameters ?? []), ...(op.parameters ?? [])]) {
    const param = resolve(doc, p);
    if (param.in === 'query') out.set(`query ${param.name}`, jsonTypes(resolve(doc, param.schema ?? {})));
  }
  const body = resolve(doc, op.requestBody)?.content?.['application/json']?.schema;
  if (body) for (const [k, v] of fields(doc, body, '', new Map())) out.set(`request ${k}`, v);
  const ok = Object.entries(op.responses ?? {}).find(([status]) => status.startsWith('2'));
  const response = ok && resolve(doc, ok[1])?.content?.['application/json']?.schema;
  if (response) for (const [k, v] of fields(doc, response, '', new Map())) out.set(`response ${k}`, v);
  return out;
}

const METHODS = ['get', 'put', 'post', 'delete', 'patch'];
const shape = (path) => path.replace(/\{[^}]+\}/g, '{}');

function operationsOf(doc) {
  const ops = new Map();
  for (const [path, item] of Object.entries(doc.paths)) {
    for (const method of METHODS) {
      if (item[method]) ops.set(`${method.toUpperCase()} ${shape(path)}`, { path, item, op: item[method] });
    }
  }
  return ops;
}

export async function loadOurs() {
  const config = await loadConfig({ configPath: `${specDir}/redocly.yaml` });
  const { bundle: result } = await bundle({ ref: `${specDir}/management/openapi.yaml`, config, dereference: false });
  return result.parsed;
}

export { referenceFile, referenceMissing };

export function loadReference() {
  if (referenceMissing) throw new Error(referenceMissing);
  return parse(readFileSync(referenceFile, 'utf8'));
}

/** Every reference field with whether ours agrees: { operations, fields: [{op, field, theirs, ours, agrees}] }. */
export function compare(ours, reference) {
  const ourOps = operationsOf(ours);
  const result = { missingOperations: [], fields: [] };
  for (const [key, theirs] of operationsOf(reference)) {
    const mine = ourOps.get(key);
    if (!mine) {
      result.missingOperations.push(key);
      continue;
    }
    const ourFields = operationFields(ours, mine.item, mine.op);
    for (const [field, type] of operationFields(reference, theirs.item, theirs.op)) {
      const ourType = ourFields.get(field);
      result.fields.push({
        op: key,
        field,
        theirs: type,
        ours: ourType ?? null,
        agrees:
          ourType !== undefined &&
          (ourType === type ||
            type === '' ||
            ourType === '' ||
            (!field.startsWith('response ') && ourType.split('|').includes(type))),
      });
    }
  }
  return result;
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const result = compare(await loadOurs(), loadReference());
  const agreed = result.fields.filter((f) => f.agrees).length;
  if (process.argv.includes('--json')) {
    console.log(JSON.stringify(result, null, 2));
  } else {
    for (const f of result.fields.filter((f) => !f.agrees || process.argv.includes('--verbose'))) {
      console.log(
        `${f.agrees ? 'ok  ' : 'DIFF'} ${f.op}  ${f.field}: reference ${f.theirs || 'any'}, ours ${f.ours ?? 'missing'}`,
      );
    }
    for (const op of result.missingOperations) console.log(`MISSING OPERATION ${op}`);
    const pct = ((100 * agreed) / result.fields.length).toFixed(1);
    console.log(
      `\n${agreed} of ${result.fields.length} reference fields agree (${pct}%); ${result.missingOperations.length} reference operations not in ours`,
    );
  }
}
