// The management resources over the emulator API: the resource engine's types with their create
// forms, their items, and creates and deletes run through the types' own management operations (so
// the spec's checks, references and cascades hold), without a token and without a journal entry.
import type { components } from '@platform-api/spec/types/emulator';
import type { ResourceEngine } from '../engine/engine.js';
import { propertiesOf, requiredOf, resolve, typesOf } from '../engine/schema.js';
import type { EngineOperation, ResourceType } from '../engine/vocabulary.js';
import { InvalidRequest, NotFound, Refused, Unprocessable } from '../errors.js';
import { jsonReply } from '../http/replies.js';
import { type EmulatorEndpoints, endpoint, NO_BODY } from '../pipeline/endpoint.js';
import type { OpenApiDocument } from '../spec/bundles.js';
import type { RequestValidators } from '../spec/validators.js';
import type { StoredItem } from '../store/resource-store.js';
import { NO_CONTENT } from './replies.js';

type FormField = components['schemas']['FormField'];

interface Family {
  type: ResourceType;
  create?: { op: EngineOperation; fields: FormField[] };
  /** The delete operation, and its path parameter naming the item. */
  delete?: { op: EngineOperation; param: string };
}

const FORM_TYPES = new Set(['string', 'integer', 'number', 'boolean', 'object', 'array']);

type Endpoints = Pick<
  EmulatorEndpoints,
  'list_resource_types' | 'list_resources' | 'create_resource' | 'delete_resource'
>;

export function resourceEndpoints(document: OpenApiDocument, validators: RequestValidators): Endpoints {
  let read: Map<string, Family> | undefined;
  /** Read from the spec on first use: a start that never opens the console does not pay. */
  const families = (engine: ResourceEngine) => {
    read ??= readFamilies(engine, document);
    return read;
  };
  const familyOf = (engine: ResourceEngine, name: string): Family => {
    const family = families(engine).get(name);
    if (!family) throw new NotFound(`No resource type ${name}`);
    return family;
  };
  return {
    list_resource_types: endpoint('list_resource_types', {
      body: NO_BODY,
      async handle({ tenant: { engine } }) {
        const types = [];
        for (const { type, create, delete: remove } of families(engine).values()) {
          types.push({
            name: type.name,
            id_field: type.id.field,
            parent: type.parent?.type ?? null,
            singleton: type.singleton,
            count: (await engine.store.list(type.name)).length,
            create: create ? { operation: create.op.operation.operationId, fields: create.fields } : null,
            delete: remove?.op.operation.operationId ?? null,
          });
        }
        return jsonReply(200, { types });
      },
    }),
    list_resources: endpoint('list_resources', {
      body: NO_BODY,
      async handle({ tenant: { engine }, params }) {
        const { type } = familyOf(engine, params.type);
        const items = await engine.store.list(type.name);
        return jsonReply(200, { items: items.map((item) => itemOf(type, item)) });
      },
    }),
    create_resource: endpoint('create_resource', {
      body: { kind: 'json' },
      // The type and its parent are known before the body is read: a 404 comes before a 400 for the body.
      precheck({ tenant, params }) {
        const { type, create } = familyOf(tenant.engine, params.type);
        if (!create) throw new InvalidRequest('INVALID_REQUEST', `The spec has no create operation for ${type.name}`);
        return { type, create, parent: parentParams(create.op, type, params.parent) };
      },
      async handle({ tenant: { engine }, body, headers }, { type, create, parent }) {
        const before = new Set((await engine.store.list(type.name)).map((item) => item.id));
        // Checked as the management API checks the operation's request, then served by the engine.
        const { operation } = create.op;
        const params = validators.checkParams(operation, parent, '');
        const wrapped = create.op.body ? { [create.op.body]: body } : body;
        validators.checkBody(operation, wrapped);
        await refusedAsInvalid(engine.handle(operation.operationId, { params, body: wrapped, host: headers.host }));
        // Stored in creation order: what the create made along (a parent it implies, the home folder) comes first.
        const created = (await engine.store.list(type.name)).filter((item) => !before.has(item.id)).at(-1);
        if (!created) throw new Error(`${operation.operationId} stored no ${type.name}`);
        return jsonReply(201, itemOf(type, created));
      },
    }),
    delete_resource: endpoint('delete_resource', {
      body: NO_BODY,
      async handle({ tenant: { engine }, params }) {
        const { type, delete: remove } = familyOf(engine, params.type);
        if (!remove) throw new InvalidRequest('INVALID_REQUEST', `The spec has no delete operation for ${type.name}`);
        const pathParams = { ...parentParams(remove.op, type, params.parent), [remove.param]: params.id };
        const { operation } = remove.op;
        const checked = validators.checkParams(operation, pathParams, '');
        await refusedAsInvalid(engine.handle(operation.operationId, { params: checked, body: undefined }));
        return NO_CONTENT;
      },
    }),
  };
}

function itemOf(type: ResourceType, item: StoredItem): components['schemas']['ResourceItem'] {
  const label = item.value.name ?? item.value.title;
  return {
    id: String(item.value[type.id.field] ?? item.id),
    parent: item.parent ?? null,
    name: typeof label === 'string' ? label : null,
    value: item.value,
  };
}

/** The path parameter naming the parent of a sub-collection's item. */
function parentParams(op: EngineOperation, type: ResourceType, parent: string | undefined): Record<string, string> {
  if (!op.parentParam) return {};
  if (parent === undefined) {
    throw new InvalidRequest(
      'INVALID_REQUEST',
      `A ${type.name} belongs to a ${type.parent?.type}: name it in ?parent=`,
    );
  }
  return { [op.parentParam]: parent };
}

/**
 * The engine refuses in the statuses the management operation documents (409, 422); this API answers
 * a refusal as a 400 with the same message and fields.
 */
async function refusedAsInvalid<T>(answer: Promise<T>): Promise<T> {
  try {
    return await answer;
  } catch (error) {
    if (error instanceof Refused) {
      throw new InvalidRequest('INVALID_REQUEST', error.message, { errors: [...error.violations] });
    }
    if (error instanceof Unprocessable) throw new InvalidRequest('INVALID_REQUEST', error.message);
    throw error;
  }
}

/**
 * Each type of the engine's store (not the topics, API clients and keys the domain keeps; topics have a
 * view of their own) with the create and delete operations that this API can run: no path parameter but
 * the item's and its parent's.
 */
function readFamilies(engine: ResourceEngine, document: OpenApiDocument): Map<string, Family> {
  const families = new Map<string, Family>(
    [...engine.storedTypes.values()].sort((a, b) => a.name.localeCompare(b.name)).map((type) => [type.name, { type }]),
  );
  for (const op of engine.operations) {
    const family = families.get(op.type.name);
    if (!family || !runnable(op)) continue;
    if (!family.create && isCreate(op)) family.create = { op, fields: formFields(document, op) };
    if (!family.delete && op.op === 'delete' && op.param) family.delete = { op, param: op.param };
  }
  return families;
}

/** A create of the vocabulary, or a hand-written one (their handlers are named `<family>.create`). */
function isCreate(op: EngineOperation): boolean {
  const takesJson = Object.keys(op.operation.requestBody?.content ?? {}).some((type) =>
    type.startsWith('application/json'),
  );
  return takesJson && (op.op === 'create' || (op.op === 'custom' && op.handler?.endsWith('.create') === true));
}

function runnable(op: EngineOperation): boolean {
  return op.operation.parameters
    .filter((parameter) => parameter.in === 'path')
    .every((parameter) => parameter.name === op.param || parameter.name === op.parentParam);
}

/** The top-level fields of the operation's JSON body (inside its wrapper), read-only ones left out. */
function formFields(document: OpenApiDocument, op: EngineOperation): FormField[] {
  const media = Object.entries(op.operation.requestBody?.content ?? {}).find(([type]) =>
    type.startsWith('application/json'),
  )?.[1];
  if (!media?.schema) return [];
  let schema = resolve(document, media.schema);
  if (op.body) schema = resolve(document, propertiesOf(schema)[op.body] ?? {});
  const required = new Set(requiredOf(schema));
  return Object.entries(propertiesOf(schema)).flatMap(([name, node]): FormField[] => {
    const property = resolve(document, node);
    if (property.readOnly === true) return [];
    const type = typesOf(property).find((candidate) => FORM_TYPES.has(candidate)) ?? 'object';
    return [
      {
        name,
        type: type as FormField['type'],
        required: required.has(name),
        ...(typeof property.description === 'string' && { description: property.description }),
        ...(Array.isArray(property.enum) && { enum: property.enum }),
      },
    ];
  });
}
