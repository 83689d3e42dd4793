// A genie's assignments: the skills it calls, the knowledge bases it searches and the Workato Identity
// user groups it is open to, each assigned and removed by id (`skill_ids`, `knowledge_base_ids`,
// `user_group_ids`). Every id must name an item (before any change). Skills are kept in the genie's
// hidden `$skill_ids`, which its `skills_count` and each skill's `genies_count` follow; knowledge bases
// in the hidden `$knowledge_base_ids`, which no answer shows (neither schema has a field for them); user
// groups in `user_groups`, as `{id}`.
import type { JsonObject, StoredItem } from '../../store/resource-store.js';
import type { HandlerRegistry, TypeName, Workspace } from '../contract.js';
import { missingReference } from '../errors.js';
import { isObject } from '../schema.js';
import type { EngineOperation } from '../vocabulary.js';

/** An assignment: the body field naming the items, their type, and how the genie holds them. */
interface Assignment {
  field: string;
  type: TypeName;
  /** The ids the genie holds now. */
  held(genie: JsonObject): string[];
  /** The genie's fields holding `ids` instead (and the change's size, for the counts). */
  hold(genie: JsonObject, ids: string[], change: number): JsonObject;
  /** Held in hidden fields only: no answer shows the change (nor an `updated_at` for it). */
  hidden?: boolean;
}

const ids = (value: unknown): string[] => (Array.isArray(value) ? value.map(String) : []);

const ASSIGNMENTS: Assignment[] = [
  {
    field: 'skill_ids',
    type: 'skill',
    held: (genie) => ids(genie.$skill_ids),
    // A seeded genie may count skills it does not name: the count moves by the change.
    hold: (genie, skills, change) => ({
      $skill_ids: skills,
      skills_count: Math.max(0, Number(genie.skills_count ?? 0) + change),
    }),
  },
  {
    field: 'knowledge_base_ids',
    type: 'knowledge_base',
    held: (genie) => ids(genie.$knowledge_base_ids),
    hold: (_genie, bases) => ({ $knowledge_base_ids: bases }),
    hidden: true,
  },
  {
    field: 'user_group_ids',
    type: 'iam_user_group',
    held: (genie) =>
      Array.isArray(genie.user_groups) ? genie.user_groups.filter(isObject).map((g) => String(g.id)) : [],
    hold: (_genie, groups) => ({ user_groups: groups.map((id) => ({ id })) }),
  },
];

async function assign(
  workspace: Workspace,
  op: EngineOperation,
  params: Readonly<JsonObject>,
  body: unknown,
  adding: boolean,
) {
  const genie = await workspace.itemOf(op, params);
  const request = isObject(body) ? body : {};
  const assignment = ASSIGNMENTS.find((each) => request[each.field] !== undefined);
  if (!assignment) throw new Error(`${op.operation.operationId}: no assignment field in the body`);
  const named = ids(request[assignment.field]);
  const items: StoredItem[] = [];
  for (const id of named) {
    const item = await workspace.store.get(assignment.type, id);
    if (!item) throw missingReference(op.operation, assignment.field, assignment.type.replace(/_/g, ' '), id);
    items.push(item);
  }
  const held = assignment.held(genie.value);
  const changed = items.filter((item) => held.includes(item.id) !== adding);
  const next = adding
    ? [...held, ...changed.map((item) => item.id)]
    : held.filter((id) => !changed.some((item) => item.id === id));
  const sign = adding ? 1 : -1;
  const fields = assignment.hold(genie.value, next, sign * changed.length);
  if (assignment.hidden) await workspace.store.put(op.type.name, { ...genie, value: { ...genie.value, ...fields } });
  else await workspace.update(op, genie, fields);
  if (assignment.type === 'skill')
    for (const skill of changed) {
      const count = Math.max(0, Number(skill.value.genies_count ?? 0) + sign);
      await workspace.store.put('skill', { ...skill, value: { ...skill.value, genies_count: count } });
    }
  return {};
}

export const geniesHandlers = {
  /** `assign_genie_skills`, `_knowledge_bases`, `_user_groups`: the genie holds the items named too. */
  'genies.assign': (workspace, op, { params, body }) => assign(workspace, op, params, body, true),
  /** `remove_genie_skills`, `_knowledge_bases`, `_user_groups`: the genie no longer holds the items named. */
  'genies.remove': (workspace, op, { params, body }) => assign(workspace, op, params, body, false),
} satisfies Partial<HandlerRegistry>;
