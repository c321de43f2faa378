import { describe, expect, it } from 'vitest';
import { balanceStale, balanceText, newerBalance } from './balance';

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
