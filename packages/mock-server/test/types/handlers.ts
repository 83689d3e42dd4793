// Checked by tsc (npm run typecheck), never run: the engine's registry of hand-written handlers is
// typed from the spec (src/generated/handlers.ts), so a handler attached to another operation than the
// one it was written for, even one whose request has the same shape, a missing handler, one the spec
// does not name and a precheck under such a name fail to compile. Each `@ts-expect-error` below fails
// the typecheck as soon as the line it marks compiles.
import { type Family, type HandlerFor, type HandlerRegistry, typed } from '../../src/engine/contract.js';
import { customHandlers } from '../../src/engine/handlers.js';

const answered = { body: {} };

export const attachedToItsOperations: Pick<HandlerRegistry, 'topics.get'> = {
  'topics.get': typed<'get_topic' | 'legacy_get_topic'>(async () => answered),
};

export const attachedToAnother: Pick<HandlerRegistry, 'topics.get'> = {
  // @ts-expect-error get_recipe's handler reads an `id` that get_topic's path does not have
  'topics.get': typed<'get_recipe'>(async (_workspace, _op, { params }) => ({ body: { id: params.id } })),
};

export const attachedToOneOfTheSameShape: Pick<HandlerRegistry, 'topics.get'> = {
  // @ts-expect-error delete_topic and get_topic take the same request: their operationIds tell them apart
  'topics.get': typed<'delete_topic' | 'legacy_delete_topic'>(async () => answered),
};

export const misnamed = {
  // @ts-expect-error the spec attaches no handler named topics.gett
  'topics.gett': typed<'get_topic'>(async () => answered),
} satisfies Partial<HandlerRegistry>;

const { copy: _copy, ...withoutCopy } = customHandlers;
// @ts-expect-error copy_recipe and legacy_copy_role name `copy`: the registry must have it
export const missingOne: HandlerRegistry = withoutCopy;

export const readingAnotherBody: HandlerFor<'topics.create'> = async (_workspace, _op, { body }) => {
  // @ts-expect-error a topic's create sends a name and a schema, not a data table's columns
  return { body: body.columns };
};

export const misnamedPrecheck: Family['prechecks'] = {
  // @ts-expect-error a family's precheck is named as its handler is: the spec attaches no topics.updat
  'topics.updat': () => undefined,
};
