// Collaborator group members (listed, added, removed) and invitations of collaborators.
import { Refused } from '../../errors.js';
import type { JsonObject, StoredItem } from '../../store/resource-store.js';
import type { HandlerRegistry, Workspace } from '../contract.js';
import { invalidFields, notFound } from '../errors.js';
import { listPage } from '../listing.js';
import type { EngineOperation } from '../vocabulary.js';
import { memberIds, USER_GROUP } from './groups.js';
import { idsIn, itemsNamed } from './references.js';
import { heldRolesOf } from './roles.js';

export const membersHandlers = {
  /** The members of the collaborator group named in the path, filtered by `text` (name or email) and paged. */
  'user_group_members.list': async (workspace, op, { params }) => {
    const group = await groupOf(workspace, params);
    const members = await membersOf(workspace, op, group);
    const text = params.text === undefined ? undefined : String(params.text).toLowerCase();
    const matching = members.filter(
      (m) =>
        text === undefined ||
        [m.name, m.email].some((v) =>
          String(v ?? '')
            .toLowerCase()
            .includes(text),
        ),
    );
    return listPage(op.operation, params, matching, op.type.id.field);
  },

  /** Adds the members named by the `user_ids` parameter to the group (each must exist: 404 before any change). */
  'user_group_members.add': async (workspace, op, { params }) => {
    const group = await groupOf(workspace, params);
    const ids = (await itemsNamed(workspace, op, idsIn(params, 'user_ids'))).map((item) => item.id);
    const held = memberIds(group);
    await saveMembers(workspace, group, [...held, ...ids.filter((id) => !held.includes(id))]);
    return {};
  },

  /** Removes the members named by `user_ids` (or joined through `member_invitation_ids`); one of the two is required. */
  'user_group_members.remove': async (workspace, op, { params }) => {
    const group = await groupOf(workspace, params);
    const users = idsIn(params, 'user_ids').map(String);
    const invitations = idsIn(params, 'member_invitation_ids').map(String);
    if (users.length === 0 && invitations.length === 0)
      throw invalidFields({ user_ids: 'or member_invitation_ids is required' });
    const invited = new Set<string>();
    for (const member of await workspace.store.list(op.type.name)) {
      if (invitations.includes(String(member.value.$invitation_id))) invited.add(member.id);
    }
    await saveMembers(
      workspace,
      group,
      memberIds(group).filter((id) => !users.includes(id) && !invited.has(id)),
    );
    return {};
  },

  /**
   * An invitation: the person becomes a collaborator at once (the emulator sends no email), with a role
   * per environment, and joins the collaborator groups named (each must exist). An email already in the
   * workspace is refused (422).
   */
  'members.invite': async (workspace, op, { body }) => {
    const request = body;
    const groupIds = idsIn(request, 'user_group_ids').map(String);
    const groups: StoredItem[] = [];
    for (const id of groupIds) {
      const group = await workspace.store.get(USER_GROUP, id);
      if (!group)
        throw new Refused(422, `user_group_ids: collaborator group ${id} was not found`, [
          { pointer: '/user_group_ids', message: `no collaborator group ${id}` },
        ]);
      groups.push(group);
    }
    const email = String(request.email).toLowerCase();
    const taken = (await workspace.store.list(op.type.name)).some((m) => String(m.value.email).toLowerCase() === email);
    if (taken)
      throw new Refused(422, `${request.email} is already a collaborator`, [
        { pointer: '/email', message: 'is already a collaborator' },
      ]);
    const roles = heldRolesOf(request.env_roles);
    const invitation = await workspace.store.nextId('member_invitation');
    const member = await workspace.create(
      op,
      { name: request.name, email: request.email, roles, grant_type: 'team', $invitation_id: invitation },
      undefined,
    );
    for (const group of groups) await saveMembers(workspace, group, [...memberIds(group), String(member.id)]);
    return { body: { result: 'ok' } };
  },
} satisfies Partial<HandlerRegistry>;

async function groupOf(workspace: Workspace, params: Readonly<JsonObject>): Promise<StoredItem> {
  const group = await workspace.store.get(USER_GROUP, String(params.id));
  if (!group) throw notFound('collaborator group', params.id);
  return group;
}

/** The group's members that still exist, in the order they joined. */
async function membersOf(workspace: Workspace, op: EngineOperation, group: StoredItem): Promise<JsonObject[]> {
  const members: JsonObject[] = [];
  for (const id of memberIds(group)) {
    const member = await workspace.store.get(op.type.name, id);
    if (member) members.push(member.value);
  }
  return members;
}

async function saveMembers(workspace: Workspace, group: StoredItem, ids: string[]): Promise<void> {
  const existing: string[] = [];
  for (const id of ids) if (await workspace.store.get('member', id)) existing.push(id);
  const changed = existing.join() !== memberIds(group).join();
  const value: JsonObject = { ...group.value, $members: existing, members_count: existing.length };
  if (changed) value.updated_at = workspace.values.now;
  await workspace.store.put(USER_GROUP, { ...group, value });
}
