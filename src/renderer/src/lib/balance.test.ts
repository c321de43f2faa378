import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { balanceStale, balanceText, newerBalance, spendBalanceLines } from './balance';

describe('balance on screen (issue 14 #6)', () => {
  it('exact, never abbreviated', () => {
    expect(balanceText({ creditsRemaining: 9_960, freeCallsRemaining: 0, at: 1 })).toBe('9,960');
    expect(balanceText({ creditsRemaining: 1_234_567, freeCallsRemaining: 0, at: 1 })).toBe('1,234,567');
    expect(balanceText({ creditsRemaining: null, freeCallsRemaining: null, at: null })).toBe('—');
  });
  it('newest wins; a service switch resets', () => {
    const old = { creditsRemaining: 10_000, freeCallsRemaining: 3, at: 2_000 };
    expect(newerBalance(old, { creditsRemaining: 9_000, freeCallsRemaining: 3, at: 1_000 })).toBe(old);
    expect(newerBalance(old, { creditsRemaining: 9_960, freeCallsRemaining: 3, at: 3_000 }).creditsRemaining).toBe(9_960);
    expect(newerBalance(old, { creditsRemaining: null, freeCallsRemaining: null, at: null }).creditsRemaining).toBeNull();
  });
  it('a reading from before a restart is re-read', () => {
    expect(balanceStale({ creditsRemaining: 10_000, freeCallsRemaining: 0, at: 0 }, 3_600_000)).toBe(true);
    expect(balanceStale({ creditsRemaining: 10_000, freeCallsRemaining: 0, at: 3_590_000 }, 3_600_000)).toBe(false);
    expect(balanceStale(null, 0)).toBe(true);
  });
});

describe('the confirm dialog on the balance (issue 24 #7)', () => {
  const num = (s: string): number => Number(s.replace(/,/g, ''));
  it('the example: a shortfall in words, never "Balance after: 0–-50 of 50"', () => {
    expect(spendBalanceLines(50, 20, 1_900)[0]).toBe('Not enough: 50 left; this may need up to 1,900.');
    expect(spendBalanceLines(50, 100, 1_900)[0]).toBe('Not enough: 50 left; this needs at least 100 and may need up to 1,900.');
    expect(spendBalanceLines(5_000, 100, 1_900)).toEqual(['Balance after: 3,100–4,900 of 5,000 credits.']);
  });
  it('for any balance and estimate: no negative figure; what is left when it fits, the shortfall when it may not', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 0, max: 10_000_000 }),
        fc.integer({ min: 0, max: 200_000 }),
        fc.integer({ min: 0, max: 200_000 }),
        (balance, a, b) => {
          const [min, max] = a <= b ? [a, b] : [b, a];
          const lines = spendBalanceLines(balance, min, max);
          const text = lines.join(' ');
          expect(text).not.toMatch(/-\d/);
          if (max <= balance) {
            const m = /^Balance after: ([\d,]+)(?:–([\d,]+))? of ([\d,]+) credits\.$/.exec(lines[0])!;
            expect(num(m[1])).toBe(balance - max);
            expect(num(m[2] ?? m[1])).toBe(balance - min);
            expect(num(m[3])).toBe(balance);
          } else {
            expect(lines[0].startsWith(`Not enough: ${balance.toLocaleString('en-US')} left; this `)).toBe(true);
            expect(lines[0]).toContain(max.toLocaleString('en-US'));
            expect(text).not.toContain('Balance after');
          }
        },
      ),
    );
  });
  it('an unknown balance says so', () => {
    expect(spendBalanceLines(null, 1, 2)[0]).toMatch(/not known/);
  });
});
