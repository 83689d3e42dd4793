// RFC 3339 date-times written by the emulator (IsoTimeFormatter, the times of messages and records);
// checking and reading them is @platform-api/spec/conventions' (isDateTime, isDate, instantOf).

/**
 * Writes times as RFC 3339 in UTC with milliseconds, as Date#toISOString does. That costs more than
 * the rest of a consume answer; the messages of a batch mostly share their second, so the formatted
 * second is kept and only the milliseconds are appended. Each owner keeps its own formatter.
 */
export class IsoTimeFormatter {
  private second = Number.NaN;
  private prefix = '';

  format(ms: number): string {
    const second = Math.floor(ms / 1000);
    if (second !== this.second) {
      this.second = second;
      this.prefix = new Date(second * 1000).toISOString().slice(0, 20);
    }
    const millis = ms - second * 1000;
    return `${this.prefix}${millis < 10 ? '00' : millis < 100 ? '0' : ''}${millis}Z`;
  }
}
