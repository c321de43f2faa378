import { describe, expect, it } from 'vitest';
import { etaText, wayOut } from './errors';

describe('every error names its cause and its way out (issue 14 #7)', () => {
  it('out of credits → top-up, Usage, resume', () => {
    const w = wayOut({ kind: 'api', type: 'INSUFFICIENT_CREDITS', message: 'x' }, { canResume: true });
    expect(w.cause).toMatch(/Out of credits/);
    expect(w.ways.map((x) => x.id)).toEqual(['topup', 'usage', 'resume']);
    expect(wayOut({ kind: 'insufficient_local', message: 'x' }).ways.map((x) => x.id)).toEqual(['topup', 'usage']);
  });
  it('gave up on RATE_LIMITED → resume and Settings', () => {
    const w = wayOut({ kind: 'gave_up', type: 'RATE_LIMITED', message: 'x' }, { canResume: true });
    expect(w.cause).toMatch(/RATE_LIMITED/);
    expect(w.ways.map((x) => x.id)).toEqual(['resume', 'settings', 'usage']);
  });
  it('rate_wait → resume after retryAt, Settings for the wait cap', () => {
    const w = wayOut(
      { kind: 'rate_wait', type: 'RATE_LIMITED', message: 'x', retryAt: Date.UTC(2026, 0, 1, 12, 0, 30) },
      { canResume: true },
    );
    expect(w.cause).toMatch(/12:00:30 UTC/);
    expect(w.waitUntil).toBe(Date.UTC(2026, 0, 1, 12, 0, 30));
    expect(w.ways.map((x) => x.id)).toEqual(['resume', 'settings']);
  });
  it('refused key → Settings; storage → retry; not found says so', () => {
    expect(wayOut({ kind: 'api', type: 'API_KEY_REVOKED', message: 'x' }).ways.map((x) => x.id)).toEqual(['settings']);
    expect(wayOut({ kind: 'storage', type: 'FULL', message: 'disk full at /x' }).ways[0].id).toBe('retry');
    expect(wayOut({ kind: 'api', type: 'RESOURCE_NOT_FOUND', message: 'x' }).cause).toMatch(/Not found/);
  });
  it('no "~0 s left" while retrying: the estimate that has passed says what is happening', () => {
    expect(etaText(0, 10_000, 2_000)).toBe('~8 s left');
    expect(etaText(0, 10_000, 9_500)).toMatch(/waiting for the service/);
    expect(etaText(0, 10_000, 40_000)).toMatch(/waiting for the service/);
    expect(etaText(0, 10_000, 5_000, 17_000)).toBe('rate limited by the service — retrying in 12 s');
    expect(etaText(0, 0, 0)).not.toMatch(/0 s left/);
  });
});
