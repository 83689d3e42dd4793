import type { Message } from './event-streams-api.js';

/** Where a consumer is in a topic: the last message it finished with, and that message's time. */
export interface Checkpoint {
  messageId: string;
  /** The message's `time`; lets an expired checkpoint resume from that time (`onExpiredCheckpoint: 'since-time'`). */
  time?: string | undefined;
}

/**
 * Keeps checkpoints between runs, by key (`subscribe` uses `topic-<id>` unless told otherwise).
 * Built in: memoryCheckpointStore() here, fileCheckpointStore(path) in `@platform-api/client/node`;
 * any other (a database row, Redis) implements these two methods. `save` must be atomic: after a
 * crash, `load` returns the old or the new checkpoint, never a torn one.
 */
export interface CheckpointStore {
  load(key: string): Promise<Checkpoint | undefined>;
  save(key: string, checkpoint: Checkpoint): Promise<void>;
}

/** A store in a Map (for tests, or state that need not survive the process); `checkpoints` is the Map. */
export function memoryCheckpointStore(
  initial?: Iterable<[string, Checkpoint]>,
): CheckpointStore & { readonly checkpoints: Map<string, Checkpoint> } {
  const checkpoints = new Map(initial);
  return {
    checkpoints,
    load: async (key) => checkpoints.get(key),
    save: async (key, checkpoint) => void checkpoints.set(key, { ...checkpoint }),
  };
}

export const checkpointOf = (message: Pick<Message, 'message_id' | 'time'>): Checkpoint => ({
  messageId: message.message_id,
  time: message.time,
});
