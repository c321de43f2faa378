/**
 * The service clock's model (issue 27 #3): Date headers that agree with it never move it; a service
 * whose clock is elsewhere moves it after two agreeing samples, to within a second and the flight
 * time; one odd header does not; a direct reading sets it at once. And the sandbox's Date is its clock.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { startSandbox } from '../sandbox';
import type { Clock } from './ports';
import { serviceClock } from './service-clock';

function fakeBase(start: number): Clock & { t: number } {
  const c = { t: start, now: () => c.t, sleep: async () => undefined };
  return c;
}
const http = (ms: number) => new Date(ms).toUTCString();

describe('the service clock', () => {
  it('learns a service clock skewed by any amount from Date headers, to within a second plus the flight', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: -400 * 86_400_000, max: 400 * 86_400_000 }), // the service's skew
        fc.array(
          fc.record({
            gap: fc.integer({ min: 0, max: 120_000 }),
            flight: fc.integer({ min: 0, max: 3_000 }),
            at: fc.double({ min: 0, max: 1, noNaN: true }),
          }),
          { minLength: 2, maxLength: 12 },
        ),
        (skew, samples) => {
          const base = fakeBase(1_760_000_000_000);
          const sc = serviceClock(base);
          for (const s of samples) {
            base.t += s.gap;
            const sent = base.t;
            const wrote = sent + Math.floor(s.flight * s.at); // the service wrote its Date during the flight
            base.t += s.flight;
            sc.observeDate(http(wrote + skew), sent, base.t);
          }
          const err = Math.abs(sc.now() - (base.t + skew));
          const maxFlight = Math.max(...samples.map((s) => s.flight));
          expect(err).toBeLessThanOrEqual(1_000 + maxFlight);
        },
      ),
      { numRuns: 300 },
    );
  });

  it('a clock that agrees is left alone; one odd header does not move it; Age is counted', () => {
    const base = fakeBase(1_760_000_000_000);
    const sc = serviceClock(base);
    expect(sc.observeDate(http(base.t + 300), base.t, base.t + 600)).toBe(false);
    expect(sc.offset()).toBe(0);
    // a proxy's stale header, once
    expect(sc.observeDate(http(base.t - 3_600_000), base.t, base.t + 50)).toBe(false);
    expect(sc.offset()).toBe(0);
    expect(sc.observeDate(http(base.t), base.t, base.t + 50)).toBe(false);
    // a cached answer: Date of the original plus its Age agrees with now
    expect(sc.observeDate(http(base.t - 120_000), base.t, base.t + 50, '120')).toBe(false);
    expect(sc.offset()).toBe(0);
    // garbage
    expect(sc.observeDate('not a date', base.t, base.t)).toBe(false);
    expect(sc.observeDate(undefined, base.t, base.t)).toBe(false);
    // two agreeing samples a day ahead move it
    sc.observeDate(http(base.t + 86_400_000), base.t, base.t + 20);
    base.t += 1000;
    expect(sc.observeDate(http(base.t + 86_400_000), base.t, base.t + 20)).toBe(true);
    expect(Math.abs(sc.offset() - 86_400_000)).toBeLessThanOrEqual(1_000);
    // a direct reading sets it at once
    sc.set(base.t + 5 * 86_400_000, base.t);
    expect(sc.now()).toBe(base.t + 5 * 86_400_000);
  });

  it('the sandbox’s answers carry its clock in Date', async () => {
    const sb = await startSandbox({ port: 0, seed: 1 });
    try {
      sb.admin.advance(3 * 86_400);
      const r = await fetch(`${sb.url}/v1/endpoints`);
      await r.arrayBuffer();
      const d = Date.parse(r.headers.get('date') ?? '');
      expect(Math.abs(d - sb.admin.now())).toBeLessThan(5_000);
      expect(d - Date.now()).toBeGreaterThan(2.9 * 86_400_000);
    } finally {
      await sb.close();
    }
  });
});
