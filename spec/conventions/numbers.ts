// Whole numbers from 1 (limits, sizes, timeouts, counts given on a command line): the one check of
// them for the emulator's options, the client's batch limits and the command lines of both.

/**
 * Whether `value` is a whole number from 1 up to Number.MAX_SAFE_INTEGER. Text (a command-line
 * argument) must be decimal digits: `1e3`, `0x10` or ` 5` is not a count, although Number() reads one.
 */
export function isPositiveInteger(value: number | string): boolean {
  const number = typeof value === 'number' ? value : /^\d+$/.test(value) ? Number(value) : Number.NaN;
  return Number.isSafeInteger(number) && number >= 1;
}

/** `value` when it is a whole number from 1 to `max`, else a RangeError that names the setting. */
export function positiveInteger(name: string, value: number, max = Number.MAX_SAFE_INTEGER): number {
  if (!isPositiveInteger(value) || value > max) {
    const range = max === Number.MAX_SAFE_INTEGER ? 'a positive integer' : `an integer from 1 to ${max}`;
    throw new RangeError(`${name} must be ${range}, got ${value}`);
  }
  return value;
}
