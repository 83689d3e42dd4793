// A Redocly plugin: `npm run lint` holds the management spec's emulator extensions (`x-resource`,
// `x-states`, `x-effect`, `x-payload-source`) to the vocabulary of management/vocabulary.json, with file
// and line, so a typo (`op: craete`, a type or field that does not exist, a handler nobody registered)
// is found by the linter instead of by the emulator refusing to start; and every operation that is not
// a read declares its effect on state, or that it has none the platform would show (no success
// without its effect).
//
// The vocabulary is management/vocabulary.json's, which EXTENSIONS.md's tables are generated from and
// the emulator reads too; the emulator's own test holds its registered handlers to the same list.
import { existsSync, readdirSync, readFileSync } from 'node:fs';

const source = JSON.parse(readFileSync(new URL('../management/vocabulary.json', import.meta.url), 'utf8'));
/** The names a table of vocabulary.json documents, each row's in order. */
const namesOf = (rows) => rows.flatMap((row) => row.names);

export const OP_KINDS = source.ops;
export const ITEM_OP_KINDS = source.item_ops;
export const MATCHES = source.matches;
export const ON_DELETE = source.on_delete;
export const ORDERS = source.orders;
export const PAYLOAD_SOURCES = source.payload_sources;
const STATE_KEYS = source.state_keys;
export const DERIVATION_KINDS = source.derivation_kinds;
const DERIVATION_KEYS = [...DERIVATION_KINDS, ...source.derivation_keys];
const TRANSITION_KEYS = source.transition_keys;
/** The verbs of `x-effect`: one names the type of the items the operation changes (`empties` a read). */
export const EFFECT_VERBS = source.effect_verbs;
/** `x-effect` forms that take a reason and nothing else. */
const NO_EFFECT = source.no_effect;
/** The generic handlers whose effect their name says (EXTENSIONS.md, "Effects"); so does `<family>.create`, `.update`, `.delete`. */
const HANDLER_EFFECTS = source.handlers.filter((row) => row.effect).flatMap((row) => row.names);
const READ_METHODS = ['get', 'head'];

/** The keys of both annotations and of `x-effect`, the hand-written handlers and the derivation hooks. */
export const vocabulary = {
  typeKeys: namesOf(source.resource_keys),
  operationKeys: namesOf(source.operation_keys),
  effectKeys: namesOf(source.effect_keys),
  handlers: namesOf(source.handlers),
  hooks: namesOf(source.hooks),
};

/**
 * The operationIds of the other APIs' path files (event-streams, auth): an effect may be read back or
 * filled through them (a purge by consume, after a publish). Empty where they are not beside this one.
 */
function siblingOperationIds() {
  const ids = new Set();
  for (const api of ['event-streams', 'auth']) {
    const dir = new URL(`../${api}/paths/`, import.meta.url);
    if (!existsSync(dir)) continue;
    for (const file of readdirSync(dir)) {
      for (const [, id] of readFileSync(new URL(file, dir), 'utf8').matchAll(/^\s+operationId:\s*(\S+)/gm)) ids.add(id);
    }
  }
  return ids;
}

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
  /** operationId -> what the effect checks need of the operation: its method, x-resource, x-effect. */
  const operations = new Map();
  /** The operations an `x-states` transition moves (its `to` is not its only `from`). */
  const moves = new Set();
  const siblings = siblingOperationIds();
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
          message: `${where}: unknown key '${key}' (vocabulary.json allows ${list(allowed)})`,
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
        message: `hook '${derivation.hook}' is not registered (not in vocabulary.json's derivation hooks)`,
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
      const to = JSON.stringify(transition.to);
      // A transition whose only `from` is its `to` guards (a running recipe cannot be updated) and moves nothing.
      if (Array.isArray(transition.from) && transition.from.some((state) => JSON.stringify(state) !== to))
        moves.add(operationId);
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
          message: `handler '${annotation.handler}' is not registered (not in vocabulary.json's hand-written handlers)`,
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

  /**
   * Every operation that is not a read declares its effect (EXTENSIONS.md, "Effects"): what its
   * `x-resource` implies, `x-effect` with a verb, or `x-effect: { none: <reason> }`; an `x-effect` is held
   * to the keys of vocabulary.json, its types, fields and operations to the spec's.
   */
  function checkEffect(ctx, operation, method) {
    const effect = operation['x-effect'];
    const resource = isObject(operation['x-resource']) ? operation['x-resource'] : undefined;
    const at = ctx.location.child(['x-effect']);
    const id = operation.operationId;
    if (READ_METHODS.includes(method)) {
      if (effect !== undefined) ctx.report({ message: 'a read has no x-effect', location: at.key() });
      return;
    }
    if (effect !== undefined && !checkKeys(ctx, effect, vocabulary.effectKeys, 'x-effect', at)) return;
    const reason = NO_EFFECT.find((key) => effect?.[key] !== undefined);
    if (reason) {
      if (typeof effect[reason] !== 'string' || effect[reason].trim() === '' || Object.keys(effect).length > 1)
        ctx.report({ message: `x-effect: ${reason} takes the reason, and no other key`, location: at.child([reason]) });
      if (reason === 'unsupported' && !operation.responses?.['501'])
        ctx.report({
          message: 'x-effect: unsupported: the operation documents no 501 answer',
          location: at.child([reason]),
        });
      later.push(() => {
        if (impliedEffect(resource, id))
          ctx.report({
            message: `x-effect: ${reason}, yet x-resource gives ${id} an effect`,
            location: at.child([reason]),
          });
      });
      return;
    }
    const verbs = EFFECT_VERBS.filter((verb) => effect?.[verb] !== undefined);
    if (verbs.length > 1)
      ctx.report({
        message: `x-effect names ${verbs.join(' and ')}; one verb at most`,
        location: at.child([verbs[1]]),
      });
    const verb = verbs[0];
    const type = verb === undefined || verb === 'empties' ? resource?.type : effect[verb];
    if (verb !== undefined && verb !== 'empties') typeExists(ctx, type, at.child([verb]));
    if (verb === 'empties') operationNamed(ctx, effect.empties, at.child(['empties']), true);
    later.push(() => {
      if (verb === undefined && !impliedEffect(resource, id))
        ctx.report({
          message:
            `${method.toUpperCase()} ${id} declares no effect: x-resource op create, update or delete, an action's ` +
            'x-states move, set, add, remove or clear, x-effect with a verb, or x-effect: { none: <the reason> }',
          location: effect === undefined ? ctx.location.child(['operationId']) : at.key(),
        });
    });
    if (effect === undefined) return;
    checkEffectFields(ctx, effect, type, at);
    const read = typeof effect.read === 'string' ? effect.read : effect.read?.operation;
    if (effect.read !== undefined) operationNamed(ctx, read, at.child(['read']), true);
    else if (verb !== 'empties') readable(ctx, type, at);
    if (effect.fill !== undefined) operationNamed(ctx, effect.fill, at.child(['fill']), false);
    for (const [field, refType] of Object.entries(isObject(effect.refs) ? effect.refs : {}))
      typeExists(ctx, refType, at.child(['refs', field]));
  }

  /** The item fields an `x-effect` names are the type's. */
  function checkEffectFields(ctx, effect, type, at) {
    const { fields } = effect;
    const named = Array.isArray(fields) ? fields : Object.keys(isObject(fields) ? fields : {});
    for (const field of named) fieldExists(ctx, type, field, at.child(['fields']));
    for (const key of ['changes', 'renews']) {
      if (effect[key] !== undefined && !Array.isArray(effect[key]))
        ctx.report({ message: `x-effect.${key} must be a list of fields`, location: at.child([key]) });
      for (const field of Array.isArray(effect[key]) ? effect[key] : []) fieldExists(ctx, type, field, at.child([key]));
    }
  }

  /** An operation an effect names exists (in this spec, or the event-streams or token API's), and is a read when it reads. */
  function operationNamed(ctx, id, location, reads) {
    later.push(() => {
      if (siblings.has(id)) return;
      const named = operations.get(id);
      if (!named) ctx.report({ message: `x-effect names '${id}', which is no operation`, location });
      else if (reads && !READ_METHODS.includes(named.method) && named.effect?.none === undefined)
        ctx.report({
          message: `x-effect reads back by '${id}', which is no read (a GET, or x-effect: none)`,
          location,
        });
    });
  }

  /** Without `read`, the type's get or list reads the effect back. */
  function readable(ctx, type, at) {
    later.push(() => {
      const reads = [...operations.values()].some(
        ({ resource }) => isObject(resource) && resource.type === type && ['get', 'list'].includes(resource.op),
      );
      if (!reads)
        ctx.report({
          message: `no get or list of '${type}' reads the effect back: name the read in x-effect.read`,
          location: at.key(),
        });
    });
  }

  /** What an x-resource implies without x-effect (EXTENSIONS.md, "Effects"), once every x-states is read. */
  function impliedEffect(resource, id) {
    if (!resource) return false;
    // An unknown op is reported as such; its effect is not asked for too.
    if (!OP_KINDS.includes(resource.op)) return true;
    if (['create', 'update', 'delete'].includes(resource.op)) return true;
    if (resource.op === 'action' && ['set', 'add', 'remove', 'clear'].some((key) => resource[key] !== undefined))
      return true;
    const handler = String(resource.handler);
    const named = HANDLER_EFFECTS.includes(handler) || /\.(create|update|delete)$/.test(handler);
    return moves.has(id) || (resource.op === 'custom' && named);
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
          const method = String(ctx.key).toLowerCase();
          operations.set(operation.operationId, {
            method,
            resource: operation['x-resource'],
            effect: operation['x-effect'],
          });
          checkEffect(ctx, operation, method);
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
