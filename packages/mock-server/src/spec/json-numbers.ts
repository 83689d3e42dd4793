// Numbers past a double's range in a JSON body: JSON.parse reads `1e400` as Infinity, which JSON.stringify
// writes as null, so a message stored from its parsed value (a batch's payloads) would come back changed,
// and one stored as its text would come back as a number most JSON readers refuse or read as Infinity.
// Such a message is refused instead (NUMBER_OUT_OF_RANGE).
//
// Looking costs a publish little in the common case: only a text that could hold such a number, with
// an exponent of three digits or more or a run of 210 digits (with an exponent of at most 99, fewer
// digits cannot pass 1.8e308), has its parsed value walked. Two expressions rather than one
// alternation: apart, each is a fast scan (the second fails at once on a text shorter than 210
// characters); as one they are not (the bench's 208-character message: about a tenth of a JSON.parse
// of it apart, over four tenths as one alternation).

const LONG_EXPONENT = /[eE]\+?\d{3}/;
const LONG_DIGIT_RUN = /\d{210}/;

/** Whether the JSON text could hold a number past a double's range; false rules it out. */
export function mayHoldOutOfRangeNumber(text: string): boolean {
  return LONG_EXPONENT.test(text) || LONG_DIGIT_RUN.test(text);
}

/** A step from a value to one of its members, linked to the steps before it (a list each node shares). */
interface Step {
  readonly up: Step | undefined;
  readonly key: string | number;
}

/**
 * Where a parsed JSON value holds a number JSON.parse read as ±Infinity, as the keys and indexes that
 * lead to it, or undefined when it holds none. Walked with a stack of its own: a value may nest deeper
 * than the call stack allows.
 */
function outOfRangeNumberAt(value: unknown): (string | number)[] | undefined {
  const pending: [unknown, Step | undefined][] = [[value, undefined]];
  for (let next = pending.pop(); next !== undefined; next = pending.pop()) {
    const [node, at] = next;
    if (typeof node === 'number') {
      if (!Number.isFinite(node)) return stepsTo(at);
    } else if (Array.isArray(node)) {
      for (let index = node.length - 1; index >= 0; index--) pending.push([node[index], { up: at, key: index }]);
    } else if (typeof node === 'object' && node !== null) {
      const entries = Object.entries(node);
      for (let index = entries.length - 1; index >= 0; index--) {
        const [key, member] = entries[index] as [string, unknown];
        pending.push([member, { up: at, key }]);
      }
    }
  }
  return undefined;
}

function stepsTo(at: Step | undefined): (string | number)[] {
  const keys: (string | number)[] = [];
  for (let step = at; step !== undefined; step = step.up) keys.push(step.key);
  return keys.reverse();
}

/** The place of such a number as a dotted path (`total`, `lines[2].price`, `[0]` for an array's element). */
export function outOfRangeNumberPath(value: unknown): string | undefined {
  return outOfRangeNumberAt(value)?.reduce<string>(
    (path, step) => (typeof step === 'number' ? `${path}[${step}]` : path === '' ? step : `${path}.${step}`),
    '',
  );
}

/** The place of such a number as a JSON pointer (RFC 6901: `/lines/2/price`). */
export function outOfRangeNumberPointer(value: unknown): string | undefined {
  return outOfRangeNumberAt(value)
    ?.map((step) => `/${String(step).replaceAll('~', '~0').replaceAll('/', '~1')}`)
    .join('');
}
