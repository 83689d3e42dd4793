// Issue 42's "Done when": the management tour of every resource family (test/support/engine/tour.ts)
// in eight workspaces at once, two of them with `prod` too, the tour run in each environment (ten
// tenants), on one emulator, on every storage. Each tenant calls with its own bootstrap credentials
// and names itself in its emulator-API calls (`?workspace=&environment=`); what it names carries its
// tag (`ws3-dev`), and its clock starts at a day of its own. Zero leaks, asserted: no answer to one
// tenant holds another's tag or day, every id it lists is in its own state, another tenant's get of
// its item is a 404. Each family starts (reset, clock, seeds, a fault armed) with the others held
// still, so that every other tenant is then seen whole: its marker topic, its clock, and no fault.
import { describe, expect, test } from 'vitest';
import type { ResourceType } from '../src/engine/vocabulary.js';
import type { MockServer } from '../src/index.js';
import { control } from './support/control/emulator-api.js';
import { defined } from './support/defined.js';
import { families, idsOf, type TourTenant, tourFamily, tourTenant, types } from './support/engine/tour.js';
import { call, start, token } from './support/helpers.js';
import { onStorage, STORAGES } from './support/storages.js';
import { makeWorkspace, type TenantHandle } from './support/tenants.js';

const WORKSPACES = 8;
/** The workspaces (by position) made with `prod` besides `dev`. */
const WITH_PROD = [1, 4];
/** Armed in a tenant as each family starts: the next call of its own answers it, and no other tenant's. */
const FAULT = { operation: 'get_workspace_details', status: 429, retry_after: 1, times: 1 };

/** A tenant on tour, and what the others check of it. */
interface Touring {
  handle: TenantHandle;
  /** In every name it gives. */
  tag: string;
  /** The day its clock starts at (YYYY-MM-DD), its own: in its timestamps, in no other's. */
  day: string;
  marker: string;
  /** Its integer ids start above this: no other tenant makes the same id. */
  idsAbove: number;
  /** It holds its marker: it has started a family. */
  marked: boolean;
  /** Answers of its own that carried its tag, and its day. */
  ownNames: number;
  ownTimestamps: number;
  /** How often another tenant's family start found it whole. */
  seenWhole: number;
}

/** Runs the starts of families one at a time: while one runs, every other tenant holds still. */
function oneAtATime() {
  let last: Promise<unknown> = Promise.resolve();
  return <T>(step: () => Promise<T>): Promise<T> => {
    const next = last.then(step);
    last = next.catch(() => {});
    return next;
  };
}

/** The text of a value, which must hold nothing of the other tenants: their tags, their days. */
function expectNothingOf(others: Touring[], value: unknown, where: string): string {
  const text = JSON.stringify(value) ?? '';
  for (const other of others) {
    expect(text, `${where} holds ${other.tag}'s name`).not.toContain(other.tag);
    expect(text, `${where} holds ${other.tag}'s day`).not.toContain(other.day);
  }
  return text;
}

/** The counters of the state document that start the tenant's ids of every counted type above `idsAbove`. */
const countersFrom = (idsAbove: number) =>
  Object.fromEntries([...types.values()].filter((type) => type.id.kind !== 'uuid').map(({ name }) => [name, idsAbove]));

/** Checks that the tenant holds what it held before another's family start: its marker, its clock, no fault. */
async function expectWhole(server: MockServer, touring: Touring): Promise<void> {
  const { handle } = touring;
  const topics = await handle.run('list_topics');
  expect(topics.body.data.map((topic) => topic.name)).toEqual([touring.marker]);
  const clock = await control(server, 'get_clock', { query: handle.query });
  expect(clock.body?.now.slice(0, 10)).toBe(touring.day);
  const details = await handle.run('get_workspace_details');
  expect(details.status).toBe(200);
  expect(details.body).toMatchObject({ id: handle.workspaceId });
  touring.seenWhole++;
}

/** The tour's tenant for `touring`, with the checks of issue 42 on every step. */
function onTour(server: MockServer, touring: Touring, all: Touring[], exclusive: ReturnType<typeof oneAtATime>) {
  const { handle } = touring;
  const others = all.filter((other) => other !== touring);
  const neighbour = defined(all[(all.indexOf(touring) + 1) % all.length]);
  const own = tourTenant(server, handle.accessToken, handle.query);
  const theirs = tourTenant(server, neighbour.handle.accessToken, neighbour.handle.query);
  const tenant: TourTenant = {
    tag: touring.tag,
    async call(operationId, options) {
      const answer = await own.call(operationId, options);
      const text = expectNothingOf(others, answer.body, `${touring.tag}'s ${operationId}`);
      if (text.includes(touring.tag)) touring.ownNames++;
      if (text.includes(touring.day)) touring.ownTimestamps++;
      return answer;
    },
    async exportState() {
      const state = await own.exportState();
      expectNothingOf(others, state, `${touring.tag}'s state`);
      return state;
    },
    replaceState: (state) => exclusive(() => own.replaceState(state)),
    startFamily: (seeds) =>
      exclusive(async () => {
        const { query } = handle;
        expect((await control(server, 'reset', { query })).status).toBe(204);
        const clock = await control(server, 'set_clock', { query, body: { now: `${touring.day}T00:00:00.000Z` } });
        expect(clock.status).toBe(200);
        const marker = { name: touring.marker, schema: [{ name: 'order_id', type: 'string' }] };
        await own.replaceState({ ...seeds, topics: [marker], counters: countersFrom(touring.idsAbove) });
        touring.marked = true;
        expect((await control(server, 'add_fault', { query, body: FAULT })).status).toBe(204);
        await Promise.all(others.filter((other) => other.marked).map((other) => expectWhole(server, other)));
        expect((await handle.run('get_workspace_details')).status).toBe(FAULT.status);
      }),
    async listed(type: ResourceType, ids: string[]) {
      const held = await idsOf(own, type);
      expect(ids.filter((id) => !held.includes(id))).toEqual([]);
      expect(new Set(ids).size).toBe(ids.length);
    },
    async made(get, options) {
      expect((await theirs.call(get, options)).status, `${neighbour.tag}'s ${get} of ${touring.tag}'s item`).toBe(404);
    },
  };
  return tenant;
}

for (const storage of STORAGES) {
  describe.skipIf(storage.missing !== undefined)(onStorage('the tour in ten tenants of one emulator', storage), () => {
    test('every family in every tenant at once: nothing of one is ever seen in another', async () => {
      const server = await start(await storage.options());
      const made = await Promise.all(
        Array.from({ length: WORKSPACES }, (_, n) =>
          makeWorkspace(server, `Tour ${n}`, WITH_PROD.includes(n) ? ['prod'] : []),
        ),
      );
      const all: Touring[] = made.flat().map((handle, index) => ({
        handle,
        tag: `ws${handle.workspaceId}-${handle.environment}`,
        day: `2019-07-1${index}`,
        marker: `marker ws${handle.workspaceId}-${handle.environment}`,
        idsAbove: 1000 * (index + 1),
        marked: false,
        ownNames: 0,
        ownTimestamps: 0,
        seenWhole: 0,
      }));
      expect(all).toHaveLength(WORKSPACES + WITH_PROD.length);
      const exclusive = oneAtATime();
      await Promise.all(
        all.map(async (touring) => {
          const tenant = onTour(server, touring, all, exclusive);
          for (const family of families) await tourFamily(tenant, family);
        }),
      );
      for (const touring of all) {
        expect(touring.seenWhole, touring.tag).toBeGreaterThan(0);
        expect(touring.ownNames, touring.tag).toBeGreaterThan(0);
        expect(touring.ownTimestamps, touring.tag).toBeGreaterThan(0);
      }
      // The default tenant holds nothing of theirs, and its clock is the machine's.
      const admin = await token(server);
      expect((await call(server, 'list_topics', { token: admin })).body.data).toEqual([]);
      const state = (await control(server, 'export_state')).body;
      expectNothingOf(all, state, 'the default tenant');
      expect(state?.resources).toEqual({});
      expect((await control(server, 'get_clock')).body?.now.slice(0, 4)).not.toBe('2019');
    });
  });
}
