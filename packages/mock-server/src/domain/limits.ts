// The platform's limits one emulator applies (the event-streams spec's `info.x-platform-limits`, or the
// emulator's options). A module of their own, so that the faults, which read them, and the state, which
// holds both, do not import each other.
export interface Limits {
  maxBatchSize: number;
  defaultBatchSize: number;
  maxMessageBytes: number;
  maxBatchMessages: number;
  rateLimitPerMinute: number | undefined;
}
