// The workspace details of `GET /api/users/me`, whose counts and root folder come from the state.

import type { HandlerRegistry } from '../contract.js';
import { homeFolder } from './projects.js';

export const workspaceHandlers = {
  /** `get_workspace_details`: the stored details, with the recipe counts and the home folder of now. */
  'workspace.get': async (workspace, op, { params }) => {
    const details = await workspace.singleton(op, params);
    const recipes = (await workspace.store.list('recipe')).map((item) => item.value);
    return {
      item: {
        ...details,
        ...workspace.identity,
        recipes_count: recipes.length,
        active_recipes_count: recipes.filter((recipe) => recipe.running === true).length,
        root_folder_id: Number((await homeFolder(workspace, op)).id),
      },
    };
  },
} satisfies Partial<HandlerRegistry>;
