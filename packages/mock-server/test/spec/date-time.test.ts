import { createRequire } from 'node:module';
import { instantOf, isDate, isDateTime } from '@platform-api/spec/conventions';
import { describe, expect, it } from 'vitest';
import { IsoTimeFormatter } from '../../src/spec/date-time.js';
import { defined } from '../support/defined.js';

// The reference: ajv-formats' full "date-time", which isDateTime replaces for speed.
const { fullFormats } = createRequire(import.meta.url)('ajv-formats/dist/formats.js') as {
  fullFormats: Record<string, { validate: (value: string) => boolean }>;
};
const reference = defined(fullFormats['date-time']).validate;
const referenceDate = defined(fullFormats.date).validate;

const EDGE_CASES = [
  '2026-11-22T12:00:00Z',
  '2026-11-22T12:00:00.000Z',
  '2026-11-22t12:00:00.5z',
  '2026-11-22 12:00:00Z',
  '2026-11-22\t12:00:00Z',
  '2026-11-22\u00a012:00:00Z',
  '2026-11-22T12:00:00+01:00',
  '2026-11-22T12:00:00+0100',
  '2026-11-22T12:00:00-01',
  '2026-11-22T12:00:00+23:59',
  '2026-11-22T12:00:00+24:00',
  '2026-11-22T12:00:00+01:60',
  '2026-11-22T12:00:00',
  '2026-11-22T12:00:00.Z',
  '2026-11-22T24:00:00Z',
  '2026-11-22T23:60:00Z',
  '2026-12-31T23:59:60Z',
  '2026-12-31T23:59:60.999Z',
  '2026-12-31T23:59:61Z',
  '2026-12-31T22:59:60Z',
  '2026-12-31T22:59:60-01:00',
  '2027-01-01T00:59:60+01:00',
  '2026-12-31T23:29:60-00:30',
  '2026-12-31T18:59:60-05:00',
  '2024-02-29T00:00:00Z',
  '2023-02-29T00:00:00Z',
  '2000-02-29T00:00:00Z',
  '1900-02-29T00:00:00Z',
  '2026-04-31T00:00:00Z',
  '2026-00-10T00:00:00Z',
  '2026-13-10T00:00:00Z',
  '2026-01-00T00:00:00Z',
  '2026-01-32T00:00:00Z',
  '2026-11-22TT12:00:00Z',
  '2026-11-22T12:00:00Z\n',
  ' 2026-11-22T12:00:00Z',
  '2026-11-22T12:00Z',
  '26-11-22T12:00:00Z',
  '2026-11-22T12:00:00+1:00',
  '2026-11-22T12:00:00+01:0',
  '２026-11-22T12:00:00Z',
  '',
];

/** Deterministic variations of valid values: every character replaced, dropped or doubled. */
function mutations(): string[] {
  const alphabet = ['0', '1', '2', '3', '5', '6', '9', '-', ':', '.', '+', 'T', 't', 'Z', 'z', ' ', 'x'];
  const seeds = ['2026-11-22T12:34:56.789+05:30', '2024-02-29T23:59:60-00:00', '1999-12-31t23:59:59z'];
  const out: string[] = [];
  for (const seed of seeds) {
    for (let i = 0; i < seed.length; i++) {
      out.push(seed.slice(0, i) + seed.slice(i + 1), seed.slice(0, i) + seed[i] + seed.slice(i));
      for (const c of alphabet) out.push(seed.slice(0, i) + c + seed.slice(i + 1));
    }
  }
  return out;
}

describe('isDateTime', () => {
  it('accepts and refuses exactly what ajv-formats full date-time does', () => {
    const cases = [...EDGE_CASES, ...mutations()];
    const disagreements = cases.filter((value) => isDateTime(value) !== reference(value));
    expect(disagreements).toEqual([]);
    // The cases exercise both answers, leap seconds and days past a month's end included.
    expect(cases.filter(reference).length).toBeGreaterThan(50);
    expect(cases.filter((value) => !reference(value)).length).toBeGreaterThan(500);
  });
});

describe('isDate', () => {
  it('accepts and refuses exactly what ajv-formats full date does', () => {
    const dates = [...EDGE_CASES, ...mutations()].flatMap((value) => [value, value.slice(0, 10), value.slice(0, 11)]);
    expect(dates.filter((value) => isDate(value) !== referenceDate(value))).toEqual([]);
    expect(dates.filter(referenceDate).length).toBeGreaterThan(50);
    expect(['2024-02-29', '2023-02-29', '2026-04-31', '2026-4-30', '2026-04-30\n'].map(isDate)).toEqual([
      true,
      false,
      false,
      false,
      false,
    ]);
  });
});

describe('instantOf', () => {
  it('agrees with Date.parse wherever Date.parse reads the value', () => {
    const valid = [...EDGE_CASES, ...mutations()].filter(isDateTime);
    const readable = valid.filter((value) => !Number.isNaN(Date.parse(value)) && !/\.\d{4}/.test(value));
    expect(readable.length).toBeGreaterThan(50);
    expect(readable.filter((value) => instantOf(value) !== Date.parse(value))).toEqual([]);
  });

  it('reads the forms Date.parse cannot: leap seconds, hour-only zones, any separator, sub-millisecond fractions', () => {
    const nextMinute = Date.parse('2027-01-01T00:00:00Z');
    expect(instantOf('2026-12-31T23:59:60Z')).toBe(nextMinute);
    expect(instantOf('2026-12-31T23:59:60.999Z')).toBe(nextMinute);
    expect(instantOf('2026-12-31T18:59:60-05:00')).toBe(nextMinute);
    expect(instantOf('2026-11-22T12:00:00+05')).toBe(Date.parse('2026-11-22T07:00:00Z'));
    expect(instantOf('2026-11-22T12:00:00-0130')).toBe(Date.parse('2026-11-22T13:30:00Z'));
    expect(instantOf('2026-11-22\t12:00:00z')).toBe(Date.parse('2026-11-22T12:00:00Z'));
    // Rounded up to the first whole millisecond not before the value.
    expect(instantOf('2026-11-22T12:00:00.1234Z')).toBe(Date.parse('2026-11-22T12:00:00.124Z'));
    expect(instantOf('2026-11-22T12:00:00.1230000Z')).toBe(Date.parse('2026-11-22T12:00:00.123Z'));
    expect(instantOf('2026-11-22T12:00:00.9999Z')).toBe(Date.parse('2026-11-22T12:00:01Z'));
    expect(instantOf('0001-01-01T00:00:00Z')).toBe(Date.parse('0001-01-01T00:00:00Z'));
    for (const value of ['2026-12-31T23:59:60Z', '2026-11-22T12:00:00+05']) {
      expect([value, isDateTime(value), Date.parse(value)]).toEqual([value, true, Number.NaN]);
    }
  });
});

describe('IsoTimeFormatter', () => {
  it('formats times exactly as Date#toISOString does', () => {
    const samples = [
      0, 1, 999, 1000, 1_795_350_512_000, 1_795_350_512_099, 1_795_350_512_522, 1_795_350_513_001, 253_402_300_799_999,
    ];
    for (let i = 0; i < 10_000; i++) samples.push(Math.floor(Math.random() * 4e12), 1_795_350_512_000 + i);
    const times = new IsoTimeFormatter();
    for (const ms of samples) expect(times.format(ms)).toBe(new Date(ms).toISOString());
  });
});
