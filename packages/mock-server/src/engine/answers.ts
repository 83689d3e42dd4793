// The success answer of an operation, built from its documented 2xx schema: the item (or the page of
// items) goes where the schema refers to the resource's schema, counts and page numbers where the
// wrapper has them, and every other required field gets a value valid for its schema.
import { PAGE_NUMBER_FIELDS, PAGE_SIZE_FIELDS, TOTAL_FIELDS } from '@platform-api/spec/conventions';
import {
  deref,
  type OpenApiDocument,
  type Operation,
  type ResponseObject,
  type SchemaObject,
} from '../spec/bundles.js';
import type { JsonObject } from '../store/resource-store.js';
import { itemsOf, partsOf, propertiesOf, requiredOf, resolve, type SchemaNode, typesOf } from './schema.js';
import { placeholder, type ValueContext } from './values.js';
import type { ResourceType } from './vocabulary.js';

/** A path into an answer: property names, and ITEMS for the elements of an array. */
type Path = string[];
const ITEMS = '[]';

export interface AnswerShape {
  status: number;
  /** The JSON schema of the body; none for a 204 or an answer without content. */
  schema?: SchemaNode;
  /** Where the item sits (item operations), or where the array of items sits (lists). */
  item?: Path;
  list?: Path;
}

export interface AnswerData {
  item?: JsonObject;
  items?: JsonObject[];
  page?: { number: number; size: number; total: number };
}

// The wrapper's fields that show the page, named as the client's pagination table reads them.
const TOTAL_NAMES = new Set(TOTAL_FIELDS);
const PAGE_NAMES = new Set(PAGE_NUMBER_FIELDS);
const SIZE_NAMES = new Set(PAGE_SIZE_FIELDS);

export function answerShape(document: OpenApiDocument, operation: Operation, type: ResourceType): AnswerShape {
  const [status, response] = Object.entries(operation.responses).find(([code]) => code.startsWith('2')) ?? [];
  if (!status || !response) throw new Error(`operation ${operation.operationId} documents no 2xx answer`);
  const schema = deref<ResponseObject>(document, response).content?.['application/json']?.schema;
  if (!schema) return { status: Number(status) };
  const found = locate(document, schema, type.ref, [], 0);
  return { status: Number(status), schema, ...found };
}

function locate(
  document: OpenApiDocument,
  node: SchemaNode,
  ref: string,
  path: Path,
  depth: number,
): Pick<AnswerShape, 'item' | 'list'> | undefined {
  if (node.$ref === ref) return path.at(-1) === ITEMS ? { list: path.slice(0, -1) } : { item: path };
  if (depth > 4) return undefined;
  const schema = resolve(document, node);
  const items = itemsOf(schema);
  if (items) return locate(document, items, ref, [...path, ITEMS], depth + 1);
  // allOf parts and oneOf/anyOf branches (`oneOf: [Recipe, null]`) sit at the same place.
  for (const part of [...partsOf(schema, 'allOf'), ...partsOf(schema, 'oneOf'), ...partsOf(schema, 'anyOf')]) {
    const found = locate(document, part, ref, path, depth + 1);
    if (found) return found;
  }
  for (const [name, property] of Object.entries(propertiesOf(schema))) {
    const found = locate(document, property, ref, [...path, name], depth + 1);
    if (found) return found;
  }
  return undefined;
}

/** The answer's body, or undefined for an answer without one. */
export function buildAnswer(context: ValueContext, shape: AnswerShape, data: AnswerData): unknown {
  if (!shape.schema) return undefined;
  // An answer that does not hold the resource takes the item's fields of the same names (`{success, id}`).
  const projected = shape.item || shape.list ? undefined : data.item;
  return build(context, shape, data, shape.schema, [], projected);
}

function build(
  context: ValueContext,
  shape: AnswerShape,
  data: AnswerData,
  node: SchemaNode,
  path: Path,
  projected: JsonObject | undefined,
): unknown {
  if (shape.item && samePath(path, shape.item)) return data.item;
  if (shape.list && samePath(path, shape.list)) return data.items;
  const schema = resolve(context.document, node);
  const allOf = partsOf(schema, 'allOf');
  if (allOf.length > 0) {
    return Object.assign({}, ...allOf.map((part) => build(context, shape, data, part, path, projected)));
  }
  if (!schema.properties) return placeholder(context, schema);
  const result: JsonObject = {};
  const required = requiredOf(schema);
  for (const [name, property] of Object.entries(propertiesOf(schema))) {
    const value = fieldValue(context, shape, data, name, property, [...path, name], projected);
    if (value !== undefined || required.includes(name))
      result[name] = value === undefined ? placeholder(context, property) : value;
  }
  return result;
}

function fieldValue(
  context: ValueContext,
  shape: AnswerShape,
  data: AnswerData,
  name: string,
  node: SchemaNode,
  path: Path,
  projected: JsonObject | undefined,
): unknown {
  const location = shape.item ?? shape.list;
  if (location && startsWith(location, path)) return build(context, shape, data, node, path, undefined);
  if (name === 'success') return true;
  if (projected && projected[name] !== undefined) return projected[name];
  const schema = objectBranch(context, resolve(context.document, node));
  const types = typesOf(schema);
  if (data.page && (types.includes('integer') || types.includes('number'))) {
    if (TOTAL_NAMES.has(name)) return data.page.total;
    if (PAGE_NAMES.has(name)) return data.page.number;
    if (SIZE_NAMES.has(name)) return data.page.size;
  }
  // A page description nested in the wrapper (`page: {number, size}`) is filled the same way, and so
  // is a nested object of an answer that takes the item's fields (`{data: {id}}`).
  if (data.page && schema.properties && PAGE_NAMES.has(name))
    return build(context, shape, data, schema, path, undefined);
  if (projected && schema.properties) return build(context, shape, data, schema, path, projected);
  return undefined;
}

/** The object branch of a `oneOf`/`anyOf` (`page: oneOf [PageInfo, null]`), else the schema itself. */
function objectBranch(context: ValueContext, schema: SchemaObject): SchemaObject {
  const branches = [...partsOf(schema, 'oneOf'), ...partsOf(schema, 'anyOf')];
  return branches.map((branch) => resolve(context.document, branch)).find((branch) => branch.properties) ?? schema;
}

function samePath(a: Path, b: Path): boolean {
  return a.length === b.length && a.every((step, i) => step === b[i]);
}

function startsWith(path: Path, prefix: Path): boolean {
  return prefix.length <= path.length && prefix.every((step, i) => step === path[i]);
}
