// How emulators that share a store (Redis) keep up with each other's changes: types only, the contract
// between the storage (storage.ts), its Redis change feed (redis/feed.ts) and the server that follows it.
import type { StoredItem } from './resource-store.js';

/**
 * The domain keeps indexes of its resources in memory. With a shared store, every emulator announces
 * its changes, and the others apply them to their indexes.
 */
export interface SharedState {
  /**
   * Has `follower` load everything (its `reload`), then passes it the changes other emulators announce;
   * those announced while it loads are passed once it has, so none is lost. Fails when the load does.
   */
  follow(follower: Follower): Promise<void>;
  /**
   * Settles once every change announced before the call (by any emulator) has been passed on: what
   * another emulator acknowledged is then in this one's indexes.
   */
  catchUp(): Promise<void>;
  /**
   * Waits until no other emulator is starting on this state, and marks this one as starting until the
   * returned function is called: starts run one at a time, so a second emulator finds the bootstrap key
   * (and seed) the first one made instead of making its own.
   */
  startAlone(): Promise<() => Promise<void>>;
  /**
   * Whether this emulator is alone on the state: it is starting (holds startAlone's mark, so no other
   * can finish a start meanwhile) and no other emulator follows the changes (none runs). What only one
   * emulator may do, such as freeing what a crash left behind, waits for that.
   */
  alone(): Promise<boolean>;
  /**
   * A consumer is about to wait on the topic: from when this settles (at once when undefined), the
   * others' appends to it reach the follower's `appended`. Until then, an emulator hears of no append.
   */
  watch(topicId: number): Promise<void> | undefined;
}

export interface Follower {
  /** Another emulator put (item) or deleted (undefined) an item of a type the domain indexes. */
  changed(type: string, id: string, item: StoredItem | undefined): void;
  /** Another emulator stored messages in a topic that is watched (SharedState.watch). */
  appended(topicId: number): void;
  /** Whether consumers wait on the topic now: its watch lasts while they do. */
  waiting(topicId: number): boolean;
  /** Announcements may have been missed (the store was out of reach) or replaced everything: re-read all. */
  reload(): Promise<void>;
}
