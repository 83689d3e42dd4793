/** `value`, failing the test when it is missing (an index past the end, a read that found nothing). */
export function defined<T>(value: T | undefined | null, what = 'value'): T {
  if (value === undefined || value === null) throw new Error(`Expected a ${what}, found ${value}`);
  return value;
}
