// Optional request limit per API key: at most `perMinute` requests in each clock minute.

export class RateLimiter {
  private readonly windows = new Map<number, { start: number; count: number }>();

  constructor(
    private readonly perMinute: number | undefined,
    private readonly clock: () => number,
  ) {}

  /** Counts one request of the key; returns the seconds to wait when it is over the limit. */
  hit(keyId: number): number | undefined {
    if (!this.perMinute) return undefined;
    const now = this.clock();
    const start = now - (now % 60_000);
    let window = this.windows.get(keyId);
    if (!window || window.start !== start) {
      window = { start, count: 0 };
      this.windows.set(keyId, window);
    }
    window.count += 1;
    if (window.count <= this.perMinute) return undefined;
    return Math.max(1, Math.ceil((start + 60_000 - now) / 1000));
  }
}
