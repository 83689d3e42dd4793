/**
 * Whether `value` is a whole number from 1 to `max`. Text (a command-line argument) must be decimal
 * digits: `1e3`, `0x10` or ` 5` is not a count, although Number() would read one.
 */
export declare function isPositiveInteger(value: number | string, max?: number): boolean;
/** `value` when it is a whole number from 1 to `max`, else a RangeError that names the setting. */
export declare function positiveInteger(name: string, value: number, max?: number): number;
