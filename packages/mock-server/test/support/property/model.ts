// What the property suite knows the emulator must hold, learnt from the answers it acknowledged:
// topics with their acknowledged messages, API clients and keys with their credentials, and the
// bearer tokens that must be refused from now on. The emulator runs on a frozen clock, so nothing
// expires: every change is one of these answers.
import type { TopicSchemaField } from '../../../src/spec/topic-schema.js';
import type { Answer } from '../helpers.js';

export interface StoredMessage {
  id: string;
  payload: unknown;
}

export interface TopicState {
  fields: TopicSchemaField[];
  /** Acknowledged and not purged, in publish order. */
  messages: StoredMessage[];
}

export interface KeyState {
  id: number;
  clientId: number;
  oauthClientId: string;
  secret: string;
  active: boolean;
  /** Access tokens issued with the current secret while the key was active. */
  accessTokens: Set<string>;
}

/** Client credentials the suite sends, with what the token endpoint must make of them. */
export interface Credentials {
  oauthClientId: string;
  secret: string;
  /** The key when they are current, else undefined: they must not get a token. */
  key: KeyState | undefined;
}

/** A request the model learns from when it succeeds: its operation and what it sent. */
export interface Sent {
  operationId: string;
  pathParams: Readonly<Record<string, string>>;
  /** The parsed JSON body (undefined when it was none or not JSON). */
  body: unknown;
  /** For a token request: the credentials it carried, when known. */
  credentials?: Credentials;
}

export class EmulatorModel {
  readonly topics = new Map<number, TopicState>();
  /** API clients by id; `staticTokens` when their keys' secrets are bearer tokens (auth_type token). */
  readonly clients = new Map<number, { staticTokens: boolean }>();
  readonly keys = new Map<number, KeyState>();
  /** Bearer tokens that must be answered 401 from now on. */
  readonly revoked = new Set<string>();
  /** Credentials of deleted keys and replaced secrets. */
  readonly retired: Credentials[] = [];

  constructor(
    /** A token of the bootstrap key (every right), which the suite never changes. */
    readonly adminToken: string,
    /** The bootstrap key, kept out of `keys`: the suite never picks it to change. */
    readonly bootstrapKey: KeyState,
  ) {}

  /** 'valid' tokens must be accepted, 'refused' ones answered 401; 'unknown' ones may be either. */
  bearer(token: string): 'valid' | 'refused' | 'unknown' {
    if (token === this.adminToken) return 'valid';
    if (this.revoked.has(token)) return 'refused';
    for (const key of this.allKeys()) {
      if (key.accessTokens.has(token)) return key.active ? 'valid' : 'refused';
      if (key.secret === token && this.clients.get(key.clientId)?.staticTokens) return key.active ? 'valid' : 'refused';
    }
    return 'unknown';
  }

  /** Tokens the model holds valid, to call with. */
  validTokens(): string[] {
    const tokens = [this.adminToken];
    for (const key of this.allKeys()) {
      if (!key.active) continue;
      tokens.push(...key.accessTokens);
      if (this.clients.get(key.clientId)?.staticTokens) tokens.push(key.secret);
    }
    return tokens;
  }

  credentials(): Credentials[] {
    const current = this.allKeys().map((key) => ({ oauthClientId: key.oauthClientId, secret: key.secret, key }));
    return [...current, ...this.retired];
  }

  /** Takes in what a successful answer changed. */
  learn(sent: Sent, answer: Answer): void {
    if (answer.status >= 300) return;
    LEARNERS.get(sent.operationId.replace(/^legacy_/, ''))?.(this, sent, answer.body as never);
  }

  private allKeys(): KeyState[] {
    return [this.bootstrapKey, ...this.keys.values()];
  }

  /** The key's tokens are refused from now on (its static token too, unless only disabled). */
  revokeAccessTokens(key: KeyState): void {
    for (const token of key.accessTokens) this.revoked.add(token);
    key.accessTokens.clear();
  }

  retire(key: KeyState): void {
    this.revokeAccessTokens(key);
    if (this.clients.get(key.clientId)?.staticTokens) this.revoked.add(key.secret);
    this.retired.push({ oauthClientId: key.oauthClientId, secret: key.secret, key: undefined });
  }
}

/** `body` is the answer's, which the suite has checked against the operation's spec. */
type Learner = (model: EmulatorModel, sent: Sent, body: never) => void;

const idOf = (sent: Sent, name: string) => Number(sent.pathParams[name]);

/** Per operation (the legacy topic operations share the current ones'), what its success changes. */
const LEARNERS = new Map<string, Learner>(
  Object.entries({
    create_topic: (model, _sent, topic: { id: number; schema: TopicSchemaField[] }) => {
      model.topics.set(topic.id, { fields: topic.schema, messages: [] });
    },
    update_topic: (model, _sent, topic: { id: number; schema: TopicSchemaField[] }) => {
      const state = model.topics.get(topic.id);
      if (state) state.fields = topic.schema;
    },
    delete_topic: (model, sent) => {
      model.topics.delete(idOf(sent, 'topic_id'));
    },
    purge_topic: (model, sent) => {
      const state = model.topics.get(idOf(sent, 'topic_id'));
      if (state) state.messages = [];
    },
    publish_message: (model, sent, body: { message_id: string }) => {
      model.topics.get(idOf(sent, 'topic_id'))?.messages.push({ id: body.message_id, payload: sent.body });
    },
    publish_messages_batch: (
      model,
      sent,
      body: { message_ids: Record<string, { result: string; message_id?: string }> },
    ) => {
      const messages = model.topics.get(idOf(sent, 'topic_id'))?.messages;
      const { payloads } = sent.body as { payloads: unknown[] };
      const positions = Object.keys(body.message_ids)
        .map(Number)
        .sort((a, b) => a - b);
      for (const position of positions) {
        const result = body.message_ids[position];
        if (result?.result === 'success' && result.message_id)
          messages?.push({ id: result.message_id, payload: payloads[position] });
      }
    },
    request_access_token: (_model, sent, body: { access_token: string }) => {
      sent.credentials?.key?.accessTokens.add(body.access_token);
    },
    create_api_client: (model, _sent, body: { data: { id: number; auth_type: string } }) => {
      model.clients.set(body.data.id, { staticTokens: body.data.auth_type === 'token' });
    },
    delete_api_client: (model, sent) => {
      const clientId = idOf(sent, 'api_client_id');
      for (const key of [...model.keys.values()].filter((k) => k.clientId === clientId)) {
        model.retire(key);
        model.keys.delete(key.id);
      }
      model.clients.delete(clientId);
    },
    create_api_key: (
      model,
      _sent,
      body: { data: { id: number; api_client_id: number; client_id: string; auth_token: string; active: boolean } },
    ) => {
      const { id, api_client_id, client_id, auth_token, active } = body.data;
      model.keys.set(id, {
        id,
        clientId: api_client_id,
        oauthClientId: client_id,
        secret: auth_token,
        active,
        accessTokens: new Set(),
      });
    },
    delete_api_key: (model, sent) => {
      const key = model.keys.get(idOf(sent, 'api_key_id'));
      if (!key) return;
      model.retire(key);
      model.keys.delete(key.id);
    },
    disable_api_key: (model, sent) => {
      const key = model.keys.get(idOf(sent, 'api_key_id'));
      if (!key) return;
      model.revokeAccessTokens(key);
      key.active = false;
    },
    enable_api_key: (model, sent) => {
      const key = model.keys.get(idOf(sent, 'api_key_id'));
      if (key) key.active = true;
    },
    refresh_api_key_secret: (model, sent, body: { data: { auth_token: string } }) => {
      const key = model.keys.get(idOf(sent, 'api_key_id'));
      if (!key) return;
      model.retire(key);
      key.secret = body.data.auth_token;
    },
  } satisfies Record<string, Learner>),
);
