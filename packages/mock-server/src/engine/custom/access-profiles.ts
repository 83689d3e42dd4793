// The older access profiles: an update whose body names the profile, secrets shown once, enabling
// and disabling.
import type { JsonObject } from '../../store/resource-store.js';
import type { HandlerRegistry, Workspace } from '../contract.js';
import { invalidFields, notFound } from '../errors.js';
import { propertiesOf } from '../schema.js';
import type { EngineOperation } from '../vocabulary.js';
import { label } from './references.js';
import { randomSecret } from './secrets.js';

export const accessProfilesHandlers = {
  /** An update whose path names no item: the body's `id` names it (the older access-profile form). */
  update_by_body_id: async (workspace, op, { body }) => {
    const { id, ...fields } = body ?? {};
    const item = await workspace.store.get(op.type.name, String(id));
    if (!item) throw notFound(label(op.type.name), id);
    return { item: await workspace.update(op, item, schemaFields(op, fields)) };
  },

  /** A create whose answer shows the profile's new secret, once (it is not stored, so no later answer shows it). */
  'access_profiles.create': async (workspace, op, { body }) => {
    const created = await workspace.create(op, schemaFields(op, body ?? {}), undefined);
    return { item: { ...created, ...newSecret(workspace, created) } };
  },

  /** `{action: enable|disable, id}`: sets `active`; enabling an enabled profile (or the opposite) also succeeds. */
  'access_profiles.enable_or_disable': async (workspace, op, { body }) => {
    const { action, id } = body;
    const item = await workspace.store.get(op.type.name, String(id));
    if (!item) throw notFound(label(op.type.name), id);
    await workspace.update(op, item, { active: action === 'enable' });
    return {};
  },

  /** A new secret for a `token` or `oauth2` profile (shown once); other kinds have none (400). */
  'access_profiles.refresh_secret': async (workspace, op, { params }) => {
    const item = await workspace.itemOf(op, params);
    const secret = newSecret(workspace, item.value);
    if (Object.keys(secret).length === 0)
      throw invalidFields({ auth_type: `a ${item.value.auth_type} profile has no secret to refresh` });
    const updated = await workspace.update(op, item, { updated_at: workspace.values.now });
    return { item: { ...updated, ...secret } };
  },
} satisfies Partial<HandlerRegistry>;

/** The body's fields that the operation's resource schema has (not readOnly ones: schemaFields drops `id`). */
function schemaFields(op: EngineOperation, fields: JsonObject): JsonObject {
  const properties = propertiesOf(op.type.schema);
  return Object.fromEntries(Object.entries(fields).filter(([name]) => properties[name] && name !== op.type.id.field));
}

/** A new secret for an access profile: `secret` for a token profile, an OAuth 2.0 client for an oauth2 one. */
function newSecret(workspace: Workspace, profile: JsonObject): JsonObject {
  const random = () => randomSecret(workspace);
  if (profile.auth_type === 'token') return { secret: random() };
  if (profile.auth_type === 'oauth2') return { oauth_client_id: random(), oauth_client_secret: random() + random() };
  return {};
}
