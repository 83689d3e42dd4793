import { mkdir, mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { memoryCheckpointStore } from '../src/index.js';
import { fileCheckpointStore } from '../src/node.js';
import { createTopic, numbered, type Platform, startPlatform } from './support/emulator.js';

let dir: string;
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'checkpoints-'));
});
afterEach(() => rm(dir, { recursive: true, force: true }));

describe('fileCheckpointStore', () => {
  it('keeps checkpoints by key across store instances (processes)', async () => {
    const path = join(dir, 'checkpoints.json');
    const store = fileCheckpointStore(path);
    expect(await store.load('topic-1')).toBeUndefined();
    await store.save('topic-1', { messageId: 'm-1', time: '2026-11-22T10:00:00Z' });
    await store.save('topic-2', { messageId: 'm-9' });
    await store.save('topic-1', { messageId: 'm-2', time: '2026-11-22T10:00:01Z' });

    const reopened = fileCheckpointStore(path);
    expect(await reopened.load('topic-1')).toEqual({ messageId: 'm-2', time: '2026-11-22T10:00:01Z' });
    expect(await reopened.load('topic-2')).toEqual({ messageId: 'm-9' });
    expect(JSON.parse(await readFile(path, 'utf8'))).toEqual({
      'topic-1': { messageId: 'm-2', time: '2026-11-22T10:00:01Z' },
      'topic-2': { messageId: 'm-9' },
    });
  });

  it('writes through a temporary file renamed over the old one, and leaves none behind', async () => {
    const path = join(dir, 'checkpoints.json');
    const store = fileCheckpointStore(path);
    await Promise.all(numbered(20).map(({ n }) => store.save('topic-1', { messageId: `m-${n}` })));
    expect(await readdir(dir)).toEqual(['checkpoints.json']);
    // Saves made together apply in the order they were made.
    expect(await fileCheckpointStore(path).load('topic-1')).toEqual({ messageId: 'm-19' });
  });

  it('rejects a save it cannot complete, and leaves no temporary file behind', async () => {
    const path = join(dir, 'checkpoints');
    const store = fileCheckpointStore(path);
    expect(await store.load('topic-1')).toBeUndefined();
    await mkdir(join(path, 'in-the-way'), { recursive: true }); // now a directory stands where the file goes
    await expect(store.save('topic-1', { messageId: 'm-1' })).rejects.toThrow(/EISDIR|ENOTEMPTY|EEXIST/);
    expect(await readdir(dir)).toEqual(['checkpoints']);
  });

  it('refuses a file that is not a checkpoint file, with a clear message', async () => {
    const path = join(dir, 'notes.txt');
    await writeFile(path, 'not json');
    await expect(fileCheckpointStore(path).load('topic-1')).rejects.toThrow(
      `${path} is not a checkpoint file (JSON expected); move it away or pass another path`,
    );
  });
});

describe('a subscription with a file store', () => {
  let platform: Platform;
  afterEach(() => platform?.close());

  it('resumes in a new run after the last message the previous run processed', async () => {
    platform = await startPlatform();
    const topic = await createTopic(platform);
    await platform.events.publishBatch(topic, numbered(3));
    const path = join(dir, 'checkpoints.json');
    const run = async () => {
      const handled: unknown[] = [];
      await platform.events.subscribe(topic, (m) => void handled.push(m.payload.n), {
        store: fileCheckpointStore(path),
        timeoutSecs: 0,
        stopAtEnd: true,
      }).done;
      return handled;
    };
    expect(await run()).toEqual([0, 1, 2]);
    await platform.events.publishBatch(topic, [{ n: 3 }]);
    expect(await run()).toEqual([3]);
    expect(await run()).toEqual([]);
  });
});

describe('memoryCheckpointStore', () => {
  it('starts from the given checkpoints and keeps copies', async () => {
    const store = memoryCheckpointStore([['topic-1', { messageId: 'm-1' }]]);
    const checkpoint = { messageId: 'm-2' };
    await store.save('topic-2', checkpoint);
    checkpoint.messageId = 'changed';
    expect(await store.load('topic-1')).toEqual({ messageId: 'm-1' });
    expect(await store.load('topic-2')).toEqual({ messageId: 'm-2' });
  });
});
