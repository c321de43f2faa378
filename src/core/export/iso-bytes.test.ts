/**
 * Issue 30: a time's cell written from its numbers (csv-bytes.ts isoBytes) is the cell of its
 * ISO text (columns.ts iso, Date#toISOString), for generated times across years 0–9999 and past
 * them, whole and fractional milliseconds, day, month, leap-year and range edges, and non-finite values.
 */
import { describe, expect, it } from 'vitest';
import { mulberry32 } from '../../shared/random';
import { iso } from './columns';
import { beginBytes, cellBytes, isoBytes, takeBytes } from './csv-bytes';

const MIN = Date.parse('0000-01-01T00:00:00.000Z');
const MAX = Date.parse('9999-12-31T23:59:59.999Z');
const DAY = 86_400_000;

const viaIso = (ms: number): string => {
  beginBytes();
  cellBytes(iso(ms));
  return Buffer.from(takeBytes()).toString('latin1');
};
const direct = (ms: number): string => {
  beginBytes();
  isoBytes(ms);
  return Buffer.from(takeBytes()).toString('latin1');
};

describe('a time written from its numbers', () => {
  it('is the cell of its ISO text', () => {
    const r = mulberry32(30);
    const times: number[] = [0, -0, -1, 1, MIN, MIN - 1, MAX, MAX + 1, 1.5, -1.5, NaN, Infinity, -Infinity, 8.64e15, -8.64e15];
    for (const d of ['2000-02-29', '1900-02-28', '1900-03-01', '2100-03-01', '1600-02-29', '1970-01-01', '2024-12-31', '0000-03-01'])
      for (const off of [-1, 0, 1, DAY - 1]) times.push(Date.parse(`${d}T00:00:00.000Z`) + off);
    for (let k = 0; k < 100_000; k++) {
      const u = r();
      if (u < 0.6)
        times.push(Math.floor(MIN + r() * (MAX - MIN))); // any time of years 0–9999
      else if (u < 0.8)
        times.push(Math.floor(Date.parse('2020-01-01') + r() * 2e11)); // recent
      else if (u < 0.9)
        times.push(Math.floor((r() - 0.5) * 1.7e16)); // past the four-digit years
      else times.push((r() - 0.5) * 1e13); // fractional milliseconds
    }
    let same = 0;
    for (const ms of times) {
      expect(direct(ms), String(ms)).toBe(viaIso(ms));
      same++;
    }
    expect(same).toBe(times.length);
  });
});
