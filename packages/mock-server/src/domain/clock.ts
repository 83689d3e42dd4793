// The emulator's clock: the machine's time (or the one given to startMockServer), moved by an offset
// or frozen at an instant over the emulator API. Everything time-based reads `now`: token expiry,
// message times and since_time, retention, the rate-limit window, created_at/updated_at, link expiry.
// The setting is kept in the resource store, so a data dir keeps it and emulators sharing a Redis
// share it (each applies the change the others announce).
import type { ResourceStore, StoredItem } from '../store/resource-store.js';

const CLOCK = 'emulator:clock';
const SETTING_ID = 'setting';

export interface ClockChange {
  /** The new time, ms since the epoch. */
  now?: number;
  /** Moved forward by this many ms (after `now`). */
  advanceMs?: number;
  frozen?: boolean;
}

export class Clock {
  /** Added to the base time while the clock runs. */
  private offsetMs = 0;
  /** The time while frozen. */
  private frozenAt: number | undefined;
  /** Where the setting is kept; given once the storage, which itself reads this clock, is open. */
  private resources: ResourceStore | undefined;

  constructor(private readonly base: () => number) {}

  /** Milliseconds since the epoch, on this clock; what every part of the emulator is given as its clock. */
  readonly now = (): number => this.frozenAt ?? this.base() + this.offsetMs;

  get frozen(): boolean {
    return this.frozenAt !== undefined;
  }

  /** Keeps the setting in `resources` from now on. */
  keepIn(resources: ResourceStore): void {
    this.resources = resources;
  }

  /** Reads the stored setting (at start, and after a shared store came back). */
  async load(): Promise<void> {
    this.apply(await this.resources?.get(CLOCK, SETTING_ID));
  }

  /** Another emulator changed the shared setting. */
  applyChange(type: string, _id: string, item: StoredItem | undefined): void {
    if (type === CLOCK) this.apply(item);
  }

  async change({ now, advanceMs = 0, frozen = this.frozen }: ClockChange): Promise<void> {
    const time = (now ?? this.now()) + advanceMs;
    if (frozen) {
      this.frozenAt = time;
    } else {
      this.frozenAt = undefined;
      this.offsetMs = time - this.base();
    }
    await this.resources?.put(CLOCK, {
      id: SETTING_ID,
      value: { offset_ms: this.offsetMs, frozen_at: this.frozenAt ?? null },
    });
  }

  /** Real time again, not frozen. */
  async reset(): Promise<void> {
    this.apply(undefined);
    await this.resources?.delete(CLOCK, SETTING_ID);
  }

  private apply(item: StoredItem | undefined): void {
    this.offsetMs = Number(item?.value.offset_ms ?? 0);
    const frozenAt = item?.value.frozen_at;
    this.frozenAt = typeof frozenAt === 'number' ? frozenAt : undefined;
  }
}
