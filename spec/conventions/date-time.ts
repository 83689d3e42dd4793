// RFC 3339 date-times and full-dates as the APIs define them: checking them (isDateTime, the `date-time`
// format of the emulator's validators and the `date_time` fields of topic schemas; isDate, their `date`
// fields) and reading them (instantOf, consume's since_time). Written once here for every package.
//
// isDateTime decides exactly as ajv-formats' full "date-time" format does (a time zone is
// required, days are checked against the month and leap years, a leap second only at 23:59:60 UTC),
// in one regular-expression test and arithmetic on fixed positions. ajv-formats splits the string and
// runs two capturing expressions, a measurable part of a publish whose topic has a date_time field;
// this costs a fraction of that (BENCHMARKS.md). The emulator's test/spec/date-time.test.ts holds the
// two to the same answers.

const SHAPE = /^\d{4}-\d\d-\d\d[Tt\s]\d\d:\d\d:\d\d(?:\.\d+)?(?:[Zz]|[+-]\d\d(?::?\d\d)?)$/;

export function isDateTime(value: string): boolean {
  if (!SHAPE.test(value)) return false;
  // The two-digit number at `at` (SHAPE put digits there).
  const two = (at: number) => (value.charCodeAt(at) - 48) * 10 + value.charCodeAt(at + 1) - 48;
  const year = two(0) * 100 + two(2);
  const month = two(5);
  const day = two(8);
  if (month < 1 || month > 12 || day < 1 || day > daysInMonth(year, month)) return false;
  const { sign, hours: zoneHours, minutes: zoneMinutes } = zoneOffset(value);
  if (zoneHours > 23 || zoneMinutes > 59) return false;
  const hours = two(11);
  const minutes = two(14);
  // Only the whole seconds matter: a fraction never moves a value across 60 or 61.
  const seconds = two(17);
  if (hours <= 23 && minutes <= 59 && seconds <= 59) return true;
  const utcMinutes = minutes - zoneMinutes * sign;
  const utcHours = hours - zoneHours * sign - (utcMinutes < 0 ? 1 : 0);
  return (utcHours === 23 || utcHours === -1) && (utcMinutes === 59 || utcMinutes === -1) && seconds <= 60;
}

/**
 * The instant of a value isDateTime accepted, in milliseconds since the epoch: every separator and
 * zone form it accepts (Date.parse answers NaN for a leap second, a `+05` zone or a tab). Rounded up
 * to the first whole millisecond not before the value, so that "stored at or after it" compares
 * exactly with the whole-millisecond times of messages: a fraction finer than a millisecond rounds
 * up, and a leap second (23:59:60 UTC) is the start of the next minute.
 */
export function instantOf(value: string): number {
  const two = (at: number) => (value.charCodeAt(at) - 48) * 10 + value.charCodeAt(at + 1) - 48;
  const date = new Date(0);
  date.setUTCFullYear(two(0) * 100 + two(2), two(5) - 1, two(8));
  const seconds = two(17);
  date.setUTCHours(two(11), two(14), seconds, seconds === 60 ? 0 : fractionMs(value));
  const { sign, hours, minutes } = zoneOffset(value);
  return date.getTime() - sign * (hours * 60 + minutes) * 60_000;
}

/** The milliseconds of the fraction after the seconds, rounded up. */
function fractionMs(value: string): number {
  const digits = /^\.(\d+)/.exec(value.slice(19))?.[1] ?? '';
  const ms = Number(digits.slice(0, 3).padEnd(3, '0'));
  return /[1-9]/.test(digits.slice(3)) ? ms + 1 : ms;
}

const DATE = /^\d{4}-\d\d-\d\d$/;

/** An RFC 3339 full-date (`2026-11-22`), decided as ajv-formats' full "date" format does. */
export function isDate(value: string): boolean {
  if (!DATE.test(value)) return false;
  const year = Number(value.slice(0, 4));
  const month = Number(value.slice(5, 7));
  const day = Number(value.slice(8));
  return month >= 1 && month <= 12 && day >= 1 && day <= daysInMonth(year, month);
}

function daysInMonth(year: number, month: number): number {
  if (month === 2) return isLeapYear(year) ? 29 : 28;
  return month === 4 || month === 6 || month === 9 || month === 11 ? 30 : 31;
}

function isLeapYear(year: number): boolean {
  return year % 4 === 0 && (year % 100 !== 0 || year % 400 === 0);
}

const UTC = { sign: 1, hours: 0, minutes: 0 };

/** The offset at the end of a value SHAPE accepted: Z, or +hh, +hhmm, +hh:mm (or -). */
function zoneOffset(value: string): { sign: number; hours: number; minutes: number } {
  const end = value.length;
  const last = value[end - 1];
  if (last === 'Z' || last === 'z') return UTC;
  const isSign = (at: number) => value[at] === '+' || value[at] === '-';
  const signAt = isSign(end - 3) ? end - 3 : isSign(end - 5) ? end - 5 : end - 6;
  const digits = value.slice(signAt + 1).replace(':', '');
  return {
    sign: value[signAt] === '-' ? -1 : 1,
    hours: Number(digits.slice(0, 2)),
    minutes: digits.length === 4 ? Number(digits.slice(2)) : 0,
  };
}
