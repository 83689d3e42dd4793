// Tag assignments: tags added to and removed from recipes and connections, and each tag's counts.
import type { JsonObject } from '../../store/resource-store.js';
import type { HandlerRegistry } from '../contract.js';
import { existing, idList } from './references.js';

export const tagsHandlers = {
  /**
   * Adds `add_tags` to and removes `remove_tags` from the `tags` of every recipe and connection named;
   * a tag, recipe or connection that does not exist is refused (422) before anything changes. Each tag
   * named gets its `assignment_count`, and `last_assigned_at` when it was applied.
   */
  'tags.assign': async (workspace, op, { body }) => {
    // TagAssignmentsRequest's anyOf (recipe_ids or connection_ids) is generated as unknown.
    const request = body as JsonObject;
    const add = idList(request.add_tags);
    const remove = idList(request.remove_tags);
    const tags = [
      ...(await existing(workspace, op, 'tag', 'add_tags', add)),
      ...(await existing(workspace, op, 'tag', 'remove_tags', remove)),
    ];
    const assets = [
      ...(await existing(workspace, op, 'recipe', 'recipe_ids', idList(request.recipe_ids))),
      ...(await existing(workspace, op, 'connection', 'connection_ids', idList(request.connection_ids))),
    ];
    for (const [typeName, asset] of assets) {
      const held = Array.isArray(asset.value.tags) ? asset.value.tags.map(String) : [];
      const next = [...held, ...add.filter((handle) => !held.includes(handle))].filter((h) => !remove.includes(h));
      // Tagging is not an edit of the asset: no new recipe version, no updated_at.
      await workspace.store.put(typeName, { ...asset, value: { ...asset.value, tags: next } });
    }
    const tagged = [...(await workspace.store.list('recipe')), ...(await workspace.store.list('connection'))];
    for (const [, tag] of tags) {
      const count = tagged.filter((a) => Array.isArray(a.value.tags) && a.value.tags.includes(tag.id)).length;
      const value: JsonObject = { ...tag.value, assignment_count: count };
      if (add.includes(tag.id) && assets.length > 0) value.last_assigned_at = workspace.values.now;
      await workspace.store.put('tag', { ...tag, value });
    }
    return {};
  },
} satisfies Partial<HandlerRegistry>;
