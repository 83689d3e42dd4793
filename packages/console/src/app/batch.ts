// Live feeds bring events in bursts (a load test publishes thousands a second): they are handed to
// the view once per frame, so a burst renders once instead of once per event.

export interface FrameBatcher<T> {
  add(item: T): void;
  cancel(): void;
}

/** Collects items and passes them to `flush` at the next frame; at most the last `keep` of them. */
export function frameBatcher<T>(flush: (items: T[]) => void, keep: number): FrameBatcher<T> {
  let pending: T[] = [];
  let frame = 0;
  return {
    add(item) {
      pending.push(item);
      // A hidden page gets no frames: what it could never show is not kept meanwhile.
      if (pending.length > keep * 2) pending = pending.slice(-keep);
      frame ||= requestAnimationFrame(() => {
        const items = pending.slice(-keep);
        pending = [];
        frame = 0;
        flush(items);
      });
    },
    cancel() {
      cancelAnimationFrame(frame);
      frame = 0;
      pending = [];
    },
  };
}
