// A Redocly plugin: `npm run lint` holds the management spec's emulator extensions (`x-resource`,
// `x-states`, `x-payload-source`) to the vocabulary of management/EXTENSIONS.md, with file and line,
// so a typo (`op: craete`, a type or field that does not exist, a handler nobody registered) is found
// by the linter instead of by the emulator refusing to start.
//
// The keys and the hand-written handlers are read from EXTENSIONS.md's tables, the one place that
// documents them; the emulator's own test holds its registered handlers to the same table.
import { readFileSync } from 'node:fs';

export const OP_KINDS = ['list', 'find', 'create', 'get', 'update', 'delete', 'action', 'custom'];
export const ITEM_OP_KINDS = ['get', 'update', 'delete', 'action'];
export const MATCHES = [
  'equals',
  'one_of',
  'excludes',
  'prefix',
  'contains',
  'after',
  'before',
  'fields',
  'if_true',
  'shown_if_true',
];
export const ON_DELETE = ['keep', 'cascade', 'restrict'];
export const ORDERS = ['creation', 'newest_first'];
export const PAYLOAD_SOURCES = ['official', 'third-party', 'chosen'];
const STATE_KEYS = ['field', 'initial', 'transitions'];
export const DERIVATION_KINDS = ['same', 'from', 'count', 'any', 'hook'];
const DERIVATION_KEYS = [...DERIVATION_KINDS, 'take', 'pick', 'list', 'type', 'by', 'where'];
const TRANSITION_KEYS = ['from', 'to'];

/** The rows' first cells of the markdown table under `heading`, as the backticked names they hold. */
function tableNames(markdown, heading) {
  const start = markdown.indexOf(`\n${heading}\n`);
  if (start < 0) throw new Error(`EXTENSIONS.md has no section '${heading}'`);
  const section = markdown.slice(start + heading.length + 2).split(/\n## /)[0];
  const lines = section.split('\n');
  // The rows below the header's |---| line.
  const body = lines.slice(lines.findIndex((line) => /^\|[-| ]+\|$/.test(line)) + 1);
  const rows = body.filter((line) => line.startsWith('| `'));
  return rows.flatMap((row) => {
    const names = [...(row.split('|')[1] ?? '').matchAll(/`([^`]+)`/g)].map((m) => m[1]);
    // `user_group_members.list`, `.add`: a name starting with a dot shares the first name's family.
    const family = names[0]?.includes('.') ? names[0].slice(0, names[0].lastIndexOf('.')) : '';
    return names.map((name) => (name.startsWith('.') ? `${family}${name}` : name));
  });
}

/** The vocabulary EXTENSIONS.md documents: the keys of both annotations and the handler names. */
export function readVocabulary(markdown) {
  return {
    typeKeys: tableNames(markdown, '## On a resource schema'),
    operationKeys: tableNames(markdown, '## On an operation'),
    handlers: tableNames(markdown, '## Hand-written handlers (`op: custom`)'),
    hooks: tableNames(markdown, '## Derivation hooks'),
  };
}

const vocabulary = readVocabulary(readFileSync(new URL('../management/EXTENSIONS.md', import.meta.url), 'utf8'));

const isObject = (value) => typeof value === 'object' && value !== null && !Array.isArray(value);
const list = (values) => values.map((value) => `'${value}'`).join(', ');

/** Resolves a node that may be a `$ref`, keeping where the resolved node is for reports. */
function resolved(ctx, node) {
  const { node: target, location } = ctx.resolve(node);
  return { node: target ?? {}, location };
}

function propertyNames(ctx, schema, seen = new Set()) {
  if (!isObject(schema) || seen.has(schema)) return new Set();
  seen.add(schema);
  const names = new Set(Object.keys(schema.properties ?? {}));
  for (const part of [...(schema.allOf ?? []), ...(schema.oneOf ?? []), ...(schema.anyOf ?? [])]) {
    for (const name of propertyNames(ctx, resolved(ctx, part).node, seen)) names.add(name);
  }
  return names;
}

function EmulatorVocabulary() {
  /** type name -> { fields, location, schemaName } */
  const types = new Map();
  /** Every operationId of the spec (a state machine may guard a hand-written operation too). */
  const operationIds = new Set();
  /** Checks that need every type and operation, run when the walk is done. */
  const later = [];
  let path = '';

  function checkKeys(ctx, annotation, allowed, where, location) {
    if (!isObject(annotation)) {
      ctx.report({ message: `${where} must be an object`, location });
      return false;
    }
    for (const key of Object.keys(annotation)) {
      if (!allowed.includes(key))
        ctx.report({
          message: `${where}: unknown key '${key}' (EXTENSIONS.md allows ${list(allowed)})`,
          location: location.child([key]).key(),
        });
    }
    return true;
  }

  function oneOf(ctx, value, allowed, what, location) {
    if (value !== undefined && !allowed.includes(value))
      ctx.report({ message: `unknown ${what} '${value}' (one of ${list(allowed)})`, location });
  }

  /** Reports, once the walk is done, a type name that no schema's `x-resource` declares. */
  function typeExists(ctx, name, location) {
    later.push(() => {
      if (typeof name !== 'string' || !types.has(name))
        ctx.report({ message: `unknown resource type '${name}' (no schema declares it in x-resource)`, location });
    });
  }

  /** Reports, once the walk is done, a field the type's schema does not have. */
  function fieldExists(ctx, typeName, field, location) {
    later.push(() => {
      const type = types.get(typeName);
      const top = String(field).split('.')[0];
      // A `$` field is hidden state a handler keeps beside the schema's fields (EXTENSIONS.md).
      if (type && !top.startsWith('$') && !type.fields.has(top))
        ctx.report({ message: `resource type '${typeName}' has no field '${top}'`, location });
    });
  }

  function checkTypeAnnotation(ctx, schema, annotation, location) {
    const fields = propertyNames(ctx, schema);
    if (!checkKeys(ctx, annotation, vocabulary.typeKeys, 'x-resource', location)) return;
    if (typeof annotation.type !== 'string' || !/^[a-z][a-z0-9_]*$/.test(annotation.type)) {
      ctx.report({ message: 'x-resource.type must be a snake_case name', location: location.child(['type']) });
      return;
    }
    if (types.has(annotation.type)) {
      ctx.report({
        message: `resource type '${annotation.type}' is declared twice`,
        location: location.child(['type']),
      });
      return;
    }
    types.set(annotation.type, { fields });
    const idField = typeof annotation.id === 'object' ? annotation.id?.field : annotation.id;
    if (idField !== undefined || !annotation.singleton) {
      if (!fields.has(idField ?? 'id'))
        ctx.report({
          message: `the id field '${idField ?? 'id'}' is not a property`,
          location: location.child(['id']),
        });
    }
    oneOf(ctx, annotation.order, ORDERS, 'order', location.child(['order']));
    if (annotation.parent !== undefined) {
      const at = location.child(['parent']);
      if (checkKeys(ctx, annotation.parent, ['type', 'field'], 'x-resource.parent', at)) {
        typeExists(ctx, annotation.parent.type, at.child(['type']));
        if (annotation.parent.field !== undefined && !fields.has(annotation.parent.field))
          ctx.report({
            message: `no field '${annotation.parent.field}' for the parent`,
            location: at.child(['field']),
          });
      }
    }
    for (const [field, ref] of Object.entries(annotation.refs ?? {})) {
      const at = location.child(['refs', field]);
      if (!fields.has(field)) ctx.report({ message: `refs: no field '${field}'`, location: at.key() });
      const target = typeof ref === 'string' ? { type: ref } : ref;
      if (typeof ref !== 'string' && !checkKeys(ctx, ref, ['type', 'on_delete'], `refs.${field}`, at)) continue;
      typeExists(ctx, target.type, typeof ref === 'string' ? at : at.child(['type']));
      oneOf(ctx, target.on_delete, ON_DELETE, 'on_delete', at.child(['on_delete']));
    }
    if (annotation.versions !== undefined) {
      const at = location.child(['versions']);
      if (checkKeys(ctx, annotation.versions, ['type', 'number'], 'x-resource.versions', at)) {
        typeExists(ctx, annotation.versions.type, at.child(['type']));
        fieldExists(ctx, annotation.versions.type, annotation.versions.number, at.child(['number']));
      }
    }
    if (annotation.singleton !== undefined && typeof annotation.singleton !== 'boolean')
      ctx.report({ message: 'x-resource.singleton must be a boolean', location: location.child(['singleton']) });
    for (const [field, derivation] of Object.entries(annotation.derived ?? {})) {
      checkDerivation(ctx, annotation, fields, field, derivation, location.child(['derived', field]));
    }
  }

  /** A derived field: one kind, fields and types that exist, a registered hook. */
  function checkDerivation(ctx, annotation, fields, field, derivation, at) {
    if (!fields.has(field)) ctx.report({ message: `derived: no field '${field}'`, location: at.key() });
    if (!checkKeys(ctx, derivation, DERIVATION_KEYS, `derived.${field}`, at)) return;
    const kinds = DERIVATION_KINDS.filter((kind) => derivation[kind] !== undefined);
    if (kinds.length !== 1) {
      ctx.report({ message: `derived.${field} needs one of ${list(DERIVATION_KINDS)}`, location: at });
      return;
    }
    const own = (name, key) => {
      if (typeof name === 'string' && !name.startsWith('$') && !fields.has(name))
        ctx.report({ message: `derived.${field}: no field '${name}'`, location: at.child([key]) });
    };
    const [kind] = kinds;
    if (kind === 'same') own(derivation.same, 'same');
    if (kind === 'hook' && !vocabulary.hooks.includes(derivation.hook))
      ctx.report({
        message: `hook '${derivation.hook}' is not registered (not in EXTENSIONS.md's derivation hooks)`,
        location: at.child(['hook']),
      });
    if (kind === 'count' || kind === 'any') typeExists(ctx, derivation[kind], at.child([kind]));
    if (kind === 'count' && derivation.by !== undefined)
      fieldExists(ctx, derivation.count, derivation.by, at.child(['by']));
    if (kind === 'any') fieldExists(ctx, derivation.any, derivation.where, at.child(['where']));
    if (kind === 'from') {
      own(derivation.from, 'from');
      const type = derivation.type ?? refType(annotation, derivation.from);
      if (type === undefined)
        ctx.report({
          message: `derived.${field}: '${derivation.from}' is no reference field; say its type`,
          location: at,
        });
      else {
        typeExists(ctx, type, at.child(['type']));
        for (const taken of [derivation.take, ...(derivation.pick ?? [])].filter((name) => name !== undefined))
          fieldExists(ctx, type, taken, at);
      }
    }
  }

  function refType(annotation, field) {
    const ref = annotation.refs?.[field];
    return typeof ref === 'string' ? ref : ref?.type;
  }

  function checkStates(ctx, schema, states, location) {
    if (!checkKeys(ctx, states, STATE_KEYS, 'x-states', location)) return;
    if (!propertyNames(ctx, schema).has(states.field))
      ctx.report({
        message: `x-states.field '${states.field}' is not a property`,
        location: location.child(['field']),
      });
    for (const [operationId, transition] of Object.entries(states.transitions ?? {})) {
      const at = location.child(['transitions', operationId]);
      if (!checkKeys(ctx, transition, TRANSITION_KEYS, `transition ${operationId}`, at)) continue;
      if (!Array.isArray(transition.from))
        ctx.report({ message: `transition ${operationId}: 'from' must be a list`, location: at.child(['from']) });
      later.push(() => {
        if (!operationIds.has(operationId))
          ctx.report({ message: `x-states names '${operationId}', which is no operation`, location: at.key() });
      });
    }
  }

  function checkOperationAnnotation(ctx, operation, pathParams, queryParams, annotation, location) {
    if (!checkKeys(ctx, annotation, vocabulary.operationKeys, 'x-resource', location)) return;
    const { type, op } = annotation;
    typeExists(ctx, type, location.child(['type']));
    oneOf(ctx, op, OP_KINDS, 'op', location.child(['op']));
    if (op === 'custom') {
      if (typeof annotation.handler !== 'string')
        ctx.report({ message: 'a custom op needs a handler', location: location.child(['op']) });
      else if (!vocabulary.handlers.includes(annotation.handler))
        ctx.report({
          message: `handler '${annotation.handler}' is not registered (not in EXTENSIONS.md's hand-written handlers)`,
          location: location.child(['handler']),
        });
    } else if (annotation.handler !== undefined) {
      ctx.report({
        message: `only a custom op names a handler (op is '${op}')`,
        location: location.child(['handler']),
      });
    }
    for (const key of ['param', 'parent_param']) {
      if (annotation[key] !== undefined && !pathParams.has(annotation[key]))
        ctx.report({ message: `${key}: no path parameter '${annotation[key]}'`, location: location.child([key]) });
    }
    if (ITEM_OP_KINDS.includes(op) && pathParams.size === 0)
      later.push(() => {
        if (!types.get(type)?.singleton)
          ctx.report({ message: `a ${op} needs a path parameter naming the item`, location: location.child(['op']) });
      });
    const parameters = new Set([...pathParams, ...queryParams]);
    for (const [param, field] of Object.entries(annotation.params ?? {})) {
      const at = location.child(['params', param]);
      if (!parameters.has(param)) ctx.report({ message: `params: no parameter '${param}'`, location: at.key() });
      fieldExists(ctx, type, field, at);
    }
    for (const [param, filter] of Object.entries(annotation.filters ?? {})) {
      const at = location.child(['filters', param]);
      if (!parameters.has(param)) ctx.report({ message: `filters: no parameter '${param}'`, location: at.key() });
      const { field, match, ref } = typeof filter === 'string' ? { field: filter } : (filter ?? {});
      if (typeof filter !== 'string' && !checkKeys(ctx, filter, ['field', 'match', 'ref'], `filters.${param}`, at))
        continue;
      fieldExists(ctx, type, field, typeof filter === 'string' ? at : at.child(['field']));
      oneOf(ctx, match, MATCHES, 'match', at.child(['match']));
      if (ref !== undefined) typeExists(ctx, ref, at.child(['ref']));
    }
    for (const field of Object.keys(annotation.set ?? {}))
      fieldExists(ctx, type, field, location.child(['set', field]));
    for (const key of ['add', 'remove']) {
      const at = location.child([key]);
      if (annotation[key] !== undefined && checkKeys(ctx, annotation[key], ['field', 'from'], key, at)) {
        const target = op === 'custom' ? undefined : type;
        if (target) fieldExists(ctx, target, annotation[key].field, at.child(['field']));
      }
    }
    if (annotation.clear !== undefined) typeExists(ctx, annotation.clear, location.child(['clear']));
    if (annotation.force !== undefined && !queryParams.has(annotation.force))
      ctx.report({ message: `force: no query parameter '${annotation.force}'`, location: location.child(['force']) });
    if (annotation.conflict !== undefined && !operation.responses?.[String(annotation.conflict)])
      ctx.report({
        message: `conflict: the operation documents no ${annotation.conflict} answer`,
        location: location.child(['conflict']),
      });
  }

  function parameterNames(ctx, parameters, into) {
    for (const parameter of parameters ?? []) {
      const { node } = resolved(ctx, parameter);
      into[node.in === 'path' ? 'path' : 'query'].add(node.name);
    }
  }

  return {
    Schema: {
      enter(schema, ctx) {
        if (schema['x-resource'] !== undefined) {
          checkTypeAnnotation(ctx, schema, schema['x-resource'], ctx.location.child(['x-resource']));
          if (types.has(schema['x-resource']?.type))
            types.get(schema['x-resource'].type).singleton = schema['x-resource'].singleton === true;
        }
        if (schema['x-states'] !== undefined)
          checkStates(ctx, schema, schema['x-states'], ctx.location.child(['x-states']));
      },
    },
    PathItem: {
      enter(_item, ctx) {
        path = String(ctx.key);
      },
      Operation: {
        enter(operation, ctx, parents) {
          operationIds.add(operation.operationId);
          const source = operation['x-payload-source'];
          if (source === undefined)
            ctx.report({ message: 'x-payload-source is missing', location: ctx.location.child(['operationId']).key() });
          else oneOf(ctx, source, PAYLOAD_SOURCES, 'x-payload-source', ctx.location.child(['x-payload-source']));
          if (operation['x-resource'] === undefined) return;
          const names = { path: new Set(), query: new Set() };
          parameterNames(ctx, parents.PathItem?.parameters, names);
          parameterNames(ctx, operation.parameters, names);
          for (const name of names.path) {
            if (!path.includes(`{${name}}`)) names.path.delete(name);
          }
          checkOperationAnnotation(
            ctx,
            operation,
            names.path,
            names.query,
            operation['x-resource'],
            ctx.location.child(['x-resource']),
          );
        },
      },
    },
    Root: {
      leave() {
        for (const check of later) check();
      },
    },
  };
}

export default function emulatorVocabularyPlugin() {
  return {
    id: 'platform',
    rules: { oas3: { 'emulator-vocabulary': EmulatorVocabulary } },
  };
}
