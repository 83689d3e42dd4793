// Copies of an item (`copy_role`, `copy_recipe`), which any resource type can name.
import type { HandlerRegistry } from '../contract.js';
import { isObject, propertiesOf, resolve } from '../schema.js';

export const copiesHandlers = {
  /**
   * A new item with the writable fields of the one the path names (not its id, timestamps, counters or
   * state: read-only fields), overridden by the body's (`copy_role`, `copy_recipe`).
   */
  copy: async (workspace, op, { params, body }) => {
    const original = await workspace.itemOf(op, params);
    const properties = propertiesOf(op.type.schema);
    const writable = (name: string) =>
      properties[name] !== undefined && resolve(workspace.values.document, properties[name]).readOnly !== true;
    const copied = Object.entries(original.value).filter(([name]) => writable(name) && name !== op.type.states?.field);
    const sent = Object.entries(isObject(body) ? body : {}).filter(([name]) => properties[name]);
    const parent = original.parent === undefined ? undefined : await workspace.parentOf(op, params);
    return { item: await workspace.create(op, Object.fromEntries([...copied, ...sent]), parent) };
  },
} satisfies Partial<HandlerRegistry>;
