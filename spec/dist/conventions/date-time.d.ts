export declare function isDateTime(value: string): boolean;
/**
 * The instant of a value isDateTime accepted, in milliseconds since the epoch: every separator and
 * zone form it accepts (Date.parse answers NaN for a leap second, a `+05` zone or a tab). Rounded up
 * to the first whole millisecond not before the value, so that "stored at or after it" compares
 * exactly with the whole-millisecond times of messages: a fraction finer than a millisecond rounds
 * up, and a leap second (23:59:60 UTC) is the start of the next minute.
 */
export declare function instantOf(value: string): number;
/** An RFC 3339 full-date (`2026-11-22`), decided as ajv-formats' full "date" format does. */
export declare function isDate(value: string): boolean;
