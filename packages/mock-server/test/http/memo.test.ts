import { describe, expect, it } from 'vitest';
import { BoundedMemo } from '../../src/http/memo.js';

describe('BoundedMemo', () => {
  it('computes a key once and answers repeats from memory', () => {
    const memo = new BoundedMemo<number>();
    let computed = 0;
    const square = (n: number) =>
      memo.get(String(n), () => {
        computed++;
        return n * n;
      });
    expect([square(3), square(3), square(4), square(3)]).toEqual([9, 9, 16, 9]);
    expect(computed).toBe(2);
  });

  it('does not remember a computation that throws (a refused request is refused again)', () => {
    const memo = new BoundedMemo<number>();
    let calls = 0;
    const fail = () =>
      memo.get('bad', () => {
        calls++;
        throw new Error('invalid');
      });
    expect(fail).toThrow('invalid');
    expect(fail).toThrow('invalid');
    expect(calls).toBe(2);
  });

  it('starts afresh past its capacity, so endless distinct keys cannot grow it', () => {
    const memo = new BoundedMemo<string>(2);
    let computed = 0;
    const get = (key: string) =>
      memo.get(key, () => {
        computed++;
        return key;
      });
    get('a');
    get('b');
    get('c'); // over capacity: a and b are forgotten
    get('c');
    expect(computed).toBe(3);
    get('a');
    expect(computed).toBe(4);
  });
});
