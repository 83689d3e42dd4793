// Optional request limit per API key: at most `perMinute` requests in each clock minute.
import { RateLimited } from '../errors.js';

export class RateLimiter {
  private readonly windows = new Map<number, { start: number; count: number }>();

  constructor(
    private readonly perMinute: number | undefined,
    private readonly clock: () => number,
  ) {}

  /** Counts one request of the key; RateLimited, with the seconds to wait, when it is over the limit. */
  count(keyId: number): void {
    if (!this.perMinute) return;
    const now = this.clock();
    const start = now - (now % 60_000);
    let window = this.windows.get(keyId);
    if (!window || window.start !== start) {
      window = { start, count: 0 };
      this.windows.set(keyId, window);
    }
    window.count += 1;
    if (window.count > this.perMinute) throw new RateLimited(Math.max(1, Math.ceil((start + 60_000 - now) / 1000)));
  }
}
