// The bootstrap API key: every right, its credentials printed at start. It is created at the first
// start and kept in a data dir. Only its secret's digest is stored, so its secret is the one given
// (kept across restarts, with the key's tokens) or a new one at each start.
import { randomBytes } from 'node:crypto';
import type { ResourceStore } from '../store/resource-store.js';
import type { Credentials } from './credentials.js';
import { ALL_SCOPES, type ApiKey } from './model.js';

/** Remembers which key is the bootstrap key, for a restart without --client-id. */
const BOOTSTRAP = 'emulator:bootstrap';

export interface BootstrapCredentials {
  clientId: string;
  secret: string;
  /** Puts the key back as it was at start: enabled, this secret, every right (a reset). */
  restore(): void;
}

export async function bootstrapKey(
  credentials: Credentials,
  resources: ResourceStore,
  given: { clientId?: string; clientSecret?: string },
): Promise<BootstrapCredentials> {
  const key =
    given.clientId === undefined
      ? await rememberedKey(credentials, resources)
      : credentials.keyOfClientId(given.clientId);
  if (key) {
    credentials.keepThroughReset(key.api_client_id);
    return restorable(credentials, key, keptOrNewSecret(credentials, key, given.clientSecret));
  }
  const client = await credentials.createClient({
    name: 'Local emulator',
    description: 'Created at start-up; its key has every right',
  });
  credentials.keepThroughReset(client.id);
  const created = await credentials.createKey(
    client,
    { name: 'Bootstrap key' },
    { clientId: given.clientId ?? randomBytes(10).toString('hex'), secret: given.clientSecret },
  );
  await resources.put(BOOTSTRAP, { id: 'key', value: { api_key_id: created.key.id } });
  return restorable(credentials, created.key, created.secret);
}

/** The credentials, and their restore to the key and its client as they are now, enabled with every right. */
function restorable(credentials: Credentials, key: ApiKey, secret: string): BootstrapCredentials {
  const keyAtStart = { ...structuredClone(key), active: true, scopes: [...ALL_SCOPES], topic_ids: null };
  const clientAtStart = structuredClone(credentials.requireClient(key.api_client_id));
  return {
    clientId: key.client_id,
    secret,
    restore: () => credentials.restoreKept(clientAtStart, keyAtStart, secret),
  };
}

async function rememberedKey(credentials: Credentials, resources: ResourceStore): Promise<ApiKey | undefined> {
  const remembered = await resources.get(BOOTSTRAP, 'key');
  return remembered && credentials.findKey(Number(remembered.value.api_key_id));
}

/** The given secret when it is already the key's (its tokens stay valid); otherwise the key gets it, or a new one. */
function keptOrNewSecret(credentials: Credentials, key: ApiKey, secret: string | undefined): string {
  if (secret !== undefined && credentials.authenticateClient(key.client_id, secret)) return secret;
  return credentials.refreshSecret(key, secret);
}
