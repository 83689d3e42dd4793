/**
 * Whether `value` is a whole number from 1 up to Number.MAX_SAFE_INTEGER. Text (a command-line
 * argument) must be decimal digits: `1e3`, `0x10` or ` 5` is not a count, although Number() reads one.
 */
export declare function isPositiveInteger(value: number | string): boolean;
/** `value` when it is a positive integer, else a TypeError that names the setting. */
export declare function positiveInteger(name: string, value: number): number;
