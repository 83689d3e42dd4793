// Collaborator groups as the hand-written handlers share them: the members' handlers in members.ts
// and the grants, roles and privileges derived in grants.ts, roles.ts and privileges.ts.
import { RESOURCE_TYPES } from '../../generated/resource-types.js';
import type { StoredItem } from '../../store/resource-store.js';

/** Collaborator groups keep their members' ids in `$members` (exported with the group, never answered). */
export const USER_GROUP = RESOURCE_TYPES.user_group;

export function memberIds(group: StoredItem): string[] {
  const held = group.value.$members;
  return Array.isArray(held) ? held.map(String) : [];
}
