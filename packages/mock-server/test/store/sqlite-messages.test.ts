// The SQLite message store across a reopen: what the emulator finds again after a restart.
import { describe, expect, it } from 'vitest';
import { SqliteMessageStore } from '../../src/store/sqlite/messages.js';
import { defined } from '../support/defined.js';
import { closeDataDir, openDataDir } from '../support/store/engines.js';
import { tempDir } from '../support/temp-dirs.js';

/** A store on a new data dir, and `reopen`: it closes the data dir and opens a store on it again. */
async function reopenable(clock: () => number) {
  const dir = tempDir();
  const dataDir = await openDataDir(dir);
  const reopen = async () => {
    await closeDataDir(dataDir);
    return new SqliteMessageStore(await openDataDir(dir), clock);
  };
  return { before: new SqliteMessageStore(dataDir, clock), reopen };
}

describe('SqliteMessageStore across a reopen', () => {
  it('keeps messages with their ids, times and retention, and goes on with the ids and times', async () => {
    let now = 1_000;
    const { before, reopen } = await reopenable(() => now);
    before.addTopic(1, 60_000);
    before.addTopic(2, 5_000);
    const ids = [before.append(1, '{"n":1}'), before.append(1, '{"n":2}')];
    before.append(2, '{"n":3}');

    const after = await reopen();
    now = 500; // a clock that went back: times still never do
    expect(after.readOldest(1, 10).messages).toEqual([
      { id: ids[0], payload: '{"n":1}', time: 1_000 },
      { id: ids[1], payload: '{"n":2}', time: 1_000 },
    ]);
    const next = after.append(1, '{"n":4}');
    expect(next > defined(ids[1])).toBe(true);
    expect(after.readAfter(1, defined(ids[1]), 10)?.messages).toEqual([{ id: next, payload: '{"n":4}', time: 1_000 }]);
    now = 6_000;
    expect(after.readOldest(2, 10).messages).toEqual([]);
  });

  it('never gives an id again after a purge or after every message expired, also across a reopen', async () => {
    let now = 0;
    const { before, reopen } = await reopenable(() => now);
    before.addTopic(1, 60_000);
    before.addTopic(2, 1_000);
    const purged = before.append(1, '{"n":1}');
    const expired = before.append(2, '{"n":2}');
    before.purge(1);
    now = 2_000;
    expect(before.readOldest(2, 10).messages).toEqual([]);

    const after = await reopen();
    expect(after.readAfter(1, purged, 10)).toBeUndefined();
    expect(after.readAfter(2, expired, 10)).toBeUndefined();
    expect(after.append(1, '{"n":3}') > purged).toBe(true);
    expect(after.append(2, '{"n":4}') > expired).toBe(true);
  });
});
