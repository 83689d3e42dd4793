// Node.js-only parts of the client (`@platform-api/client/node`), kept out of the runtime entry,
// which runs wherever fetch does.
import { randomBytes } from 'node:crypto';
import { open, readFile, rename, rm } from 'node:fs/promises';
import type { Checkpoint, CheckpointStore } from './checkpoint.js';

/**
 * A CheckpointStore in one JSON file (`{ "<key>": { "messageId": ..., "time": ... } }`), for one
 * process at a time. Each save writes a temporary file next to it, flushes it to disk and renames
 * it over the old one, so a crash leaves the old checkpoints or the new ones, never a torn file.
 * Saves are applied in the order they are made.
 */
export function fileCheckpointStore(path: string): CheckpointStore {
  let checkpoints: Promise<Record<string, Checkpoint>> | undefined;
  let queue: Promise<unknown> = Promise.resolve();

  function all(): Promise<Record<string, Checkpoint>> {
    checkpoints ??= readFile(path, 'utf8').then(
      (text) => {
        try {
          return JSON.parse(text) as Record<string, Checkpoint>;
        } catch {
          throw new Error(`${path} is not a checkpoint file (JSON expected); move it away or pass another path`);
        }
      },
      (error: NodeJS.ErrnoException) => {
        if (error.code === 'ENOENT') return {};
        throw error;
      },
    );
    return checkpoints;
  }

  async function write(contents: string): Promise<void> {
    const temporary = `${path}.${randomBytes(4).toString('hex')}.tmp`;
    const file = await open(temporary, 'w');
    try {
      await file.writeFile(contents);
      await file.sync();
    } finally {
      await file.close();
    }
    try {
      await rename(temporary, path);
    } catch (error) {
      await rm(temporary, { force: true });
      throw error;
    }
  }

  return {
    async load(key) {
      return (await all())[key];
    },
    save(key, checkpoint) {
      const saved = queue.then(async () => {
        const next = { ...(await all()), [key]: { messageId: checkpoint.messageId, time: checkpoint.time } };
        await write(`${JSON.stringify(next, null, 2)}\n`);
        checkpoints = Promise.resolve(next);
      });
      queue = saved.catch(() => undefined);
      return saved;
    },
  };
}
