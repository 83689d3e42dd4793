// Optional request limit per API key: at most `perMinute` requests in each clock minute.
import { RateLimited } from '../errors.js';

export class RateLimiter {
  /** Requests per key in the current clock minute only: keys idle (or deleted) since are forgotten. */
  private readonly counts = new Map<number, number>();
  private minuteStart = Number.NaN;

  constructor(
    private readonly perMinute: number | undefined,
    private readonly clock: () => number,
  ) {}

  /** Counts one request of the key; RateLimited, with the seconds to wait, when it is over the limit. */
  count(keyId: number): void {
    if (!this.perMinute) return;
    const now = this.clock();
    const start = now - (now % 60_000);
    if (start !== this.minuteStart) {
      this.minuteStart = start;
      this.counts.clear();
    }
    const count = (this.counts.get(keyId) ?? 0) + 1;
    this.counts.set(keyId, count);
    if (count > this.perMinute) throw new RateLimited(Math.max(1, Math.ceil((start + 60_000 - now) / 1000)));
  }

  /** How many keys it counts requests of. */
  get size(): number {
    return this.counts.size;
  }
}
