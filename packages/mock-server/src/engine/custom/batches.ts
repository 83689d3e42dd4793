// The handlers any resource type can name for a change to several items: deletes by ids (all or
// nothing, or each reported), and a value added to or removed from a list field of each item named.
import type { CheckedRequest, HandlerRegistry, HandlerResult, Workspace } from '../contract.js';
import type { EngineOperation } from '../vocabulary.js';
import { idsIn, itemsNamed } from './references.js';

export const batchesHandlers = {
  /** `{ids}` in, every id deleted (with its sub-collections); one that names no item is a 404 and nothing is deleted. */
  delete_each: async (workspace, op, { body }) => {
    const ids = idsIn(body, 'ids');
    const items = await itemsNamed(workspace, op, ids);
    for (const item of items) await workspace.delete(op, item);
    return {};
  },

  /** The items named by the body's `add.from` ids each get the path parameter's value in their `add.field`. */
  add_to_each: (workspace, op, request) => changeEach(workspace, op, request, 'add'),

  /** The items named by the body's `remove.from` ids each lose the path parameter's value from `remove.field`. */
  remove_from_each: (workspace, op, request) => changeEach(workspace, op, request, 'remove'),

  /** `{ids}` in, `{data: {deleted_ids, failed}}` out: each id is deleted (with its sub-collections) or reported. */
  batch_delete: async (workspace, op, { body }) => {
    const deleted: unknown[] = [];
    const failed: { id: unknown; message: string }[] = [];
    for (const id of body.ids as unknown[]) {
      const item = await workspace.store.get(op.type.name, String(id));
      if (item) {
        await workspace.delete(op, item);
        deleted.push(id);
      } else failed.push({ id, message: `${op.type.name.replace(/_/g, ' ')} ${id} was not found` });
    }
    return { body: { data: { deleted_ids: deleted, failed } } };
  },
} satisfies Partial<HandlerRegistry>;

async function changeEach(
  workspace: Workspace,
  op: EngineOperation,
  { params, body }: CheckedRequest,
  which: 'add' | 'remove',
): Promise<HandlerResult> {
  const change = op[which];
  if (!change || op.param === undefined)
    throw new Error(`${op.operation.operationId}: ${which}_to_each needs ${which} and a path parameter`);
  const value = params[op.param];
  for (const item of await itemsNamed(workspace, op, idsIn(body, change.from))) {
    const held = item.value[change.field];
    const current: unknown[] = Array.isArray(held) ? held : [];
    const has = current.some((entry) => String(entry) === String(value));
    const next =
      which === 'add'
        ? has
          ? current
          : [...current, value]
        : current.filter((entry) => String(entry) !== String(value));
    await workspace.update(op, item, { [change.field]: next });
  }
  return {};
}
