import { expect, it } from 'vitest';
import { isoTime } from '../src/time.js';

it('formats times exactly as Date#toISOString does', () => {
  const samples = [
    0, 1, 999, 1000, 1_795_350_512_000, 1_795_350_512_099, 1_795_350_512_522, 1_795_350_513_001, 253_402_300_799_999,
  ];
  for (let i = 0; i < 10_000; i++) samples.push(Math.floor(Math.random() * 4e12), 1_795_350_512_000 + i);
  for (const ms of samples) expect(isoTime(ms)).toBe(new Date(ms).toISOString());
});
