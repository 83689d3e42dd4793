// A bounded memo for pure per-request work keyed by what the client sent (routing, parameter
// validation): a load test repeats a few paths many times. Past `capacity` keys it starts afresh, and
// keys longer than `maxKeyLength` are never kept, so a client sending endless distinct paths, even
// long ones, cannot grow it past capacity x maxKeyLength.
export class BoundedMemo<V extends {}> {
  private readonly entries = new Map<string, V>();

  constructor(
    private readonly capacity = 4096,
    private readonly maxKeyLength = 512,
  ) {}

  /**
   * The value remembered for `key`, else `compute()` (remembered unless it throws). Values are never
   * undefined, so one lookup tells a remembered key from a new one.
   */
  get(key: string, compute: () => V): V {
    let value = this.entries.get(key);
    if (value === undefined) {
      value = compute();
      if (key.length > this.maxKeyLength) return value;
      if (this.entries.size >= this.capacity) this.entries.clear();
      this.entries.set(key, value);
    }
    return value;
  }

  /** How many keys it remembers. */
  get size(): number {
    return this.entries.size;
  }
}
