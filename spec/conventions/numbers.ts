// Whole numbers from 1 (limits, sizes, timeouts, counts given on a command line): the one check of
// them for the emulator's options and the command lines of the emulator and the client. (The client's
// runtime keeps its own: its entry imports openapi-fetch only.)

/**
 * Whether `value` is a whole number from 1 up to Number.MAX_SAFE_INTEGER. Text (a command-line
 * argument) must be decimal digits: `1e3`, `0x10` or ` 5` is not a count, although Number() reads one.
 */
export function isPositiveInteger(value: number | string): boolean {
  const number = typeof value === 'number' ? value : /^\d+$/.test(value) ? Number(value) : Number.NaN;
  return Number.isSafeInteger(number) && number >= 1;
}

/** `value` when it is a positive integer, else a TypeError that names the setting. */
export function positiveInteger(name: string, value: number): number {
  if (!isPositiveInteger(value)) throw new TypeError(`${name} must be a positive integer, not ${value}`);
  return value;
}
