// Message ids, shared by the engines: a topic's sequence number (from 1, never reused) in base 36, at a
// fixed width, so ids of one topic sort in publish order as plain strings: 36^11 > 2^53.
const ID_WIDTH = 11;
const ID_PATTERN = /^[0-9a-z]{11}$/;
const ID_DIGITS = '0123456789abcdefghijklmnopqrstuvwxyz';

/** The sequence number of a message id; -1 for a string that is not an id. */
export const sequenceOf = (id: string) => (ID_PATTERN.test(id) ? parseInt(id, 36) : -1);

/**
 * Formats a topic's ids. Consecutive ids share all but their last digit, so that part is formatted
 * once per 36 messages: toString(36) and padStart for each id would cost every publish (BENCHMARKS.md).
 */
export class IdFormatter {
  private prefix = '';
  private prefixOf = -1;

  format(sequence: number): string {
    const high = Math.floor(sequence / 36);
    if (high !== this.prefixOf) {
      this.prefix = high.toString(36).padStart(ID_WIDTH - 1, '0');
      this.prefixOf = high;
    }
    return this.prefix + ID_DIGITS[sequence % 36];
  }
}
