// Two workspaces on one emulator under random sequences of operations (issue 42): topics, folders,
// recipes and API clients created, listed, read, updated and deleted, API keys made, messages
// published and consumed, each tenant's journal and topics read over the emulator API with its own
// token. No answer to one tenant ever holds a name, client ID, token or API key secret of the other
// (each names its items with a marker of its own); an id only the other has answers 404; every list
// holds exactly the caller's own items, and its journal only its own requests.
//
// `npm test` runs a few sequences from a fixed seed; `npm run fuzz` runs FUZZ_RUNS of them from a new
// seed (a failure prints FUZZ_SEED and FUZZ_PATH to replay it).
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { MockServer } from '../../src/index.js';
import { control } from '../support/control/emulator-api.js';
import type { Answer, CallOptions, OperationId } from '../support/helpers.js';
import { ORDER_SCHEMA, start } from '../support/helpers.js';
import { propertyRuns, propertyTimeout } from '../support/property/runs.js';
import { makeWorkspace, type TenantHandle } from '../support/tenants.js';

const NOW = Date.parse('2026-12-02T09:00:00Z');
/** Sequences `npm test` runs (about 30 ms each); `npm run fuzz`, FUZZ_RUNS. */
const RUNS = 25;
/** The marker each tenant's names carry: neither is a part of the other, nor of anything the emulator makes. */
const MARKERS = ['qalpha', 'xbravo'] as const;
type Family = 'topics' | 'folders' | 'recipes' | 'clients';

/** One tenant as the run knows it: its live items by family (id to name), and what only it may see. */
interface TenantModel {
  handle: TenantHandle;
  marker: string;
  items: Record<Family, Map<number, string>>;
  /** Its marker, its keys' client IDs and secrets, its token: none may reach the other. */
  secrets: Set<string>;
  /** The names it made so far: each new one is numbered after them. */
  made: number;
}

type Action = (server: MockServer, self: TenantModel, other: TenantModel, id: number) => Promise<void>;

describe('two workspaces under random operations', () => {
  it(
    "never answers one a name, client ID or secret of the other, and another's ids 404",
    async () => {
      await fc.assert(
        fc.asyncProperty(
          fc.array(
            fc.record({
              tenant: fc.integer({ min: 0, max: 1 }),
              action: fc.constantFrom(...ACTION_NAMES),
              pick: fc.nat(),
            }),
            { minLength: 10, maxLength: 60 },
          ),
          async (steps) => {
            const server = await start({ clock: () => NOW });
            try {
              const tenants = await Promise.all(MARKERS.map((marker) => tenantModel(server, marker)));
              for (const { tenant, action, pick } of steps) {
                const self = tenants[tenant] as TenantModel;
                const other = tenants[1 - tenant] as TenantModel;
                await ACTIONS[action](server, self, other, idFrom(self, other, action, pick));
              }
            } finally {
              await server.close();
            }
          },
        ),
        propertyRuns(RUNS),
      );
    },
    propertyTimeout(RUNS, 1000),
  );
});

async function tenantModel(server: MockServer, marker: string): Promise<TenantModel> {
  const [handle] = (await makeWorkspace(server, `${marker} workspace`)) as [TenantHandle];
  const secrets = new Set([marker, handle.clientId, handle.accessToken]);
  const items = { topics: new Map(), folders: new Map(), recipes: new Map(), clients: new Map() };
  return { handle, marker, items, secrets, made: 0 };
}

/** An id of the action's family: one either tenant holds now, or one nobody has. */
function idFrom(self: TenantModel, other: TenantModel, action: ActionName, pick: number): number {
  const family = familyOf(action);
  const candidates = [...self.items[family].keys(), ...other.items[family].keys(), 999_999];
  return candidates[pick % candidates.length] as number;
}

/** Calls the operation as the tenant, and holds the answer to it: nothing of the other's in it. */
async function run<Id extends OperationId>(
  self: TenantModel,
  other: TenantModel,
  operationId: Id,
  options: CallOptions = {},
): Promise<Answer> {
  const answer = await self.handle.run(operationId, options);
  expectNothingOf(other, answer, operationId);
  return answer;
}

/** None of the other's secrets is in the answer (integer ids and message ids each tenant counts alike). */
function expectNothingOf(other: TenantModel, answer: Answer, what: string): void {
  let text = JSON.stringify(answer.body) ?? '';
  answer.headers.forEach((value, name) => {
    text += ` ${name}: ${value}`;
  });
  for (const secret of other.secrets)
    expect(text.includes(secret), `${what} answered ${other.marker}'s ${secret}: ${text.slice(0, 400)}`).toBe(false);
}

/** Its own item answers as the run knows it; any other id is a 404. */
function expectOwnOr404(self: TenantModel, family: Family, id: number, answer: Answer, okStatus = 200): boolean {
  const own = self.items[family].has(id);
  expect(answer.status, `${family} ${id} as ${self.marker}: ${JSON.stringify(answer.body)?.slice(0, 300)}`).toBe(
    own ? okStatus : 404,
  );
  return own;
}

function expectListed(self: TenantModel, family: Family, names: string[]): void {
  expect(names.sort(), `${self.marker}'s ${family}`).toEqual([...self.items[family].values()].sort());
}

const nameFor = (self: TenantModel, what: string) => `${self.marker}-${what}-${++self.made}`;

const ACTIONS = {
  async createTopic(_, self, other) {
    const name = nameFor(self, 'topic');
    const answer = await run(self, other, 'create_topic', { body: { name, schema: ORDER_SCHEMA } });
    // A workspace holds 20 topics at most.
    if (self.items.topics.size >= 20) expect(answer.status).toBe(422);
    else self.items.topics.set((answer.body as { id: number }).id, name);
  },
  async listTopics(_, self, other) {
    const answer = await run(self, other, 'list_topics');
    expectListed(
      self,
      'topics',
      (answer.body as { data: { name: string }[] }).data.map((topic) => topic.name),
    );
  },
  async getTopic(_, self, other, id) {
    const answer = await run(self, other, 'get_topic', { params: { topic_id: id } });
    if (expectOwnOr404(self, 'topics', id, answer))
      expect((answer.body as { name: string }).name).toBe(self.items.topics.get(id));
  },
  async updateTopic(_, self, other, id) {
    const name = nameFor(self, 'renamed');
    const answer = await run(self, other, 'update_topic', { params: { topic_id: id }, body: { name } });
    if (expectOwnOr404(self, 'topics', id, answer)) self.items.topics.set(id, name);
  },
  async deleteTopic(_, self, other, id) {
    const answer = await run(self, other, 'delete_topic', { params: { topic_id: id } });
    if (expectOwnOr404(self, 'topics', id, answer)) self.items.topics.delete(id);
  },
  async publish(_, self, other, id) {
    const answer = await run(self, other, 'publish_message', {
      params: { topic_id: id },
      body: { order_id: nameFor(self, 'message') },
    });
    expectOwnOr404(self, 'topics', id, answer, 201);
  },
  async consume(_, self, other, id) {
    const answer = await run(self, other, 'consume_messages', { params: { topic_id: id }, body: { timeout_secs: 0 } });
    if (!expectOwnOr404(self, 'topics', id, answer)) return;
    for (const { payload } of (answer.body as { messages: { payload: { order_id: string } }[] }).messages)
      expect(payload.order_id).toContain(self.marker);
  },
  async createFolder(_, self, other) {
    const name = nameFor(self, 'folder');
    const answer = await run(self, other, 'create_folder', { body: { name } });
    expect(answer.status).toBe(200);
    self.items.folders.set((answer.body as { id: number }).id, name);
  },
  async listFolders(_, self, other) {
    const answer = await run(self, other, 'list_folders');
    expectListed(
      self,
      'folders',
      (answer.body as { name: string }[]).map((folder) => folder.name),
    );
  },
  async updateFolder(_, self, other, id) {
    const name = nameFor(self, 'refolder');
    const answer = await run(self, other, 'update_folder', { params: { folder_id: id }, body: { name } });
    if (expectOwnOr404(self, 'folders', id, answer)) self.items.folders.set(id, name);
  },
  async deleteFolder(_, self, other, id) {
    const answer = await run(self, other, 'delete_folder', { params: { folder_id: id } });
    if (expectOwnOr404(self, 'folders', id, answer)) self.items.folders.delete(id);
  },
  async createRecipe(_, self, other) {
    const name = nameFor(self, 'recipe');
    const answer = await run(self, other, 'create_recipe', { body: { recipe: { name, code: '{}' } } });
    expect(answer.status).toBe(200);
    self.items.recipes.set((answer.body as { id: number }).id, name);
  },
  async listRecipes(_, self, other) {
    const answer = await run(self, other, 'list_recipes');
    expectListed(
      self,
      'recipes',
      (answer.body as { items: { name: string }[] }).items.map((recipe) => recipe.name),
    );
  },
  async getRecipe(_, self, other, id) {
    const answer = await run(self, other, 'get_recipe', { params: { id } });
    if (expectOwnOr404(self, 'recipes', id, answer))
      expect((answer.body as { name: string }).name).toBe(self.items.recipes.get(id));
  },
  async updateRecipe(_, self, other, id) {
    const name = nameFor(self, 'rerecipe');
    const answer = await run(self, other, 'update_recipe', { params: { id }, body: { recipe: { name } } });
    if (expectOwnOr404(self, 'recipes', id, answer)) self.items.recipes.set(id, name);
  },
  async deleteRecipe(_, self, other, id) {
    const answer = await run(self, other, 'delete_recipe', { params: { id } });
    if (expectOwnOr404(self, 'recipes', id, answer)) self.items.recipes.delete(id);
  },
  /** An API client; its bootstrap client is not in the model, so never deleted (the run's token is its key's). */
  async createApiClient(_, self, other) {
    const name = nameFor(self, 'client');
    const answer = await run(self, other, 'create_api_client', { body: { name } });
    expect(answer.status).toBe(200);
    self.items.clients.set((answer.body as { data: { id: number } }).data.id, name);
  },
  async listApiClients(_, self, other) {
    const answer = await run(self, other, 'list_api_clients', { query: { per_page: 100 } });
    const listed = (answer.body as { data: { id: number; name: string }[] }).data;
    expectListed(
      self,
      'clients',
      listed.filter(({ name }) => name !== BOOTSTRAP_CLIENT).map(({ name }) => name),
    );
  },
  async getApiClient(_, self, other, id) {
    const answer = await run(self, other, 'get_api_client', { params: { api_client_id: id } });
    if (expectOwnOr404(self, 'clients', id, answer))
      expect((answer.body as { data: { name: string } }).data.name).toBe(self.items.clients.get(id));
  },
  async updateApiClient(_, self, other, id) {
    const name = nameFor(self, 'reclient');
    const answer = await run(self, other, 'update_api_client', { params: { api_client_id: id }, body: { name } });
    if (expectOwnOr404(self, 'clients', id, answer)) self.items.clients.set(id, name);
  },
  async deleteApiClient(_, self, other, id) {
    const answer = await run(self, other, 'delete_api_client', { params: { api_client_id: id } });
    if (expectOwnOr404(self, 'clients', id, answer)) self.items.clients.delete(id);
  },
  /** A key of an API client: its client ID and secret are the tenant's alone. */
  async createApiKey(_, self, other, id) {
    const answer = await run(self, other, 'create_api_key', {
      params: { api_client_id: id },
      body: { name: nameFor(self, 'key'), scopes: ['event_streams:consume'] },
    });
    if (!expectOwnOr404(self, 'clients', id, answer)) return;
    const { client_id, auth_token } = (answer.body as { data: { client_id: string; auth_token: string } }).data;
    self.secrets.add(client_id).add(auth_token);
  },
  /** The emulator API, with the tenant's own token: its journal and its topics. */
  async journal(server, self, other) {
    const headers = { authorization: `Bearer ${self.handle.accessToken}` };
    const journal = await control(server, 'list_requests', { headers, query: { limit: 1000 } });
    expectNothingOf(other, journal, 'list_requests');
    const callers = new Set(journal.body?.requests.map((entry) => entry.client_id));
    expect([...callers].filter((clientId) => clientId !== null && clientId !== self.handle.clientId)).toEqual([]);
    const topics = await control(server, 'inspect_topics', { headers });
    expectNothingOf(other, topics, 'inspect_topics');
    expectListed(self, 'topics', topics.body?.topics.map((topic) => topic.name) ?? []);
  },
} satisfies Record<string, Action>;

/** The name of the API client every tenant is made with, whose key the run's token is of. */
const BOOTSTRAP_CLIENT = 'Local emulator';

type ActionName = keyof typeof ACTIONS;
const ACTION_NAMES = Object.keys(ACTIONS) as ActionName[];

/** The family whose ids an action names (publish, consume: a topic's; a list or the journal names none). */
const familyOf = (action: ActionName): Family =>
  /Folder/.test(action)
    ? 'folders'
    : /Recipe/.test(action)
      ? 'recipes'
      : /Client|Key/.test(action)
        ? 'clients'
        : 'topics';
