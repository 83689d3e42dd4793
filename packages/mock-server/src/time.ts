// Date#toISOString costs more than the rest of a consume answer; the messages of a batch mostly share
// their second, so the formatted second is kept and only the milliseconds are appended.
let cachedSecond = Number.NaN;
let cachedPrefix = '';

/** RFC 3339 in UTC with milliseconds, as toISOString writes it. */
export function isoTime(ms: number): string {
  const second = Math.floor(ms / 1000);
  if (second !== cachedSecond) {
    cachedSecond = second;
    cachedPrefix = new Date(second * 1000).toISOString().slice(0, 20);
  }
  const millis = ms - second * 1000;
  return `${cachedPrefix}${millis < 10 ? '00' : millis < 100 ? '0' : ''}${millis}Z`;
}
