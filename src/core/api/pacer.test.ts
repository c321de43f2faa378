import { describe, expect, it } from 'vitest';
import { Pacer } from './pacer';
import { ManualClock, flush, maxInAnyWindow } from './test-helpers';

/** Starts a job that holds its slot for `holdMs` of clock time; records start times. */
function job(
  p: Pacer,
  clock: ManualClock,
  log: Array<{ name: string; at: number }>,
  name: string,
  holdMs: number,
  prio: 'interactive' | 'background' = 'interactive',
) {
  return p.acquire(prio).then(async (release) => {
    log.push({ name, at: clock.now() });
    await clock.sleep(holdMs);
    release();
  });
}

describe('Pacer', () => {
  it('never starts more than N in any sliding window of W, counting every attempt', async () => {
    const clock = new ManualClock();
    const p = new Pacer(clock, { requests: 5, windowSeconds: 10, maxInFlight: 100 });
    const log: Array<{ name: string; at: number }> = [];
    const all = Array.from({ length: 17 }, (_, i) => job(p, clock, log, `j${i}`, 100));
    await flush();
    expect(log.length).toBe(5);
    for (let s = 0; s < 50; s++) await clock.advance(1000);
    await Promise.all(all);
    expect(log.length).toBe(17);
    expect(
      maxInAnyWindow(
        log.map((l) => l.at),
        10_000,
      ),
    ).toBeLessThanOrEqual(5);
    // the 6th could not start before the first left the window
    const sorted = log.map((l) => l.at).sort((a, b) => a - b);
    expect(sorted[5] - sorted[0]).toBeGreaterThanOrEqual(10_000);
  });

  it('a slow answer keeps its place in the window until W after it arrived (the server counts arrivals, which we never see)', async () => {
    const clock = new ManualClock();
    const p = new Pacer(clock, { requests: 2, windowSeconds: 10, maxInFlight: 10 });
    const log: Array<{ name: string; at: number }> = [];
    const t0 = clock.now();
    const a = job(p, clock, log, 'slow', 4_000); // answer after 4 s: it may have arrived at the server at any point until then
    const b = job(p, clock, log, 'fast', 100);
    const c = job(p, clock, log, 'third', 100);
    const d = job(p, clock, log, 'fourth', 100);
    await flush();
    expect(log.map((l) => l.name)).toEqual(['slow', 'fast']);
    await clock.advance(10_050); // the fast one ended at 0.1 s: its slot frees at 10.1 s, not before
    expect(log.length).toBe(2);
    await clock.advance(100);
    expect(log.map((l) => l.name)).toEqual(['slow', 'fast', 'third']);
    await clock.advance(3_800); // 13.95 s: the slow one (ended at 4 s) still occupies the window
    expect(log.length).toBe(3);
    await clock.advance(100);
    expect(log[3]).toEqual({ name: 'fourth', at: expect.any(Number) });
    expect(log[3].at - t0).toBeGreaterThanOrEqual(14_000);
    await clock.advance(1_000);
    await Promise.all([a, b, c, d]);
  });

  it('never has more than M in flight', async () => {
    const clock = new ManualClock();
    const p = new Pacer(clock, { requests: 1000, windowSeconds: 60, maxInFlight: 3 });
    let inFlight = 0;
    let peak = 0;
    const jobs = Array.from({ length: 12 }, () =>
      p.acquire('interactive').then(async (release) => {
        inFlight++;
        peak = Math.max(peak, inFlight);
        await clock.sleep(500);
        inFlight--;
        release();
      }),
    );
    await flush();
    expect(p.stats().inFlight).toBe(3);
    expect(p.stats().queued.interactive).toBe(9);
    for (let s = 0; s < 10; s++) await clock.advance(500);
    await Promise.all(jobs);
    expect(peak).toBe(3);
  });

  it('starts interactive work before background work, FIFO within a priority', async () => {
    const clock = new ManualClock();
    const p = new Pacer(clock, { requests: 100, windowSeconds: 60, maxInFlight: 1 });
    const log: Array<{ name: string; at: number }> = [];
    const jobs = [
      job(p, clock, log, 'first', 100, 'background'), // takes the only slot
      job(p, clock, log, 'b1', 100, 'background'),
      job(p, clock, log, 'b2', 100, 'background'),
      job(p, clock, log, 'i1', 100, 'interactive'),
      job(p, clock, log, 'i2', 100, 'interactive'),
    ];
    for (let s = 0; s < 10; s++) await clock.advance(100);
    await Promise.all(jobs);
    expect(log.map((l) => l.name)).toEqual(['first', 'i1', 'i2', 'b1', 'b2']);
  });

  it('pauses the whole key until the given time after a 429', async () => {
    const clock = new ManualClock();
    const p = new Pacer(clock, { requests: 100, windowSeconds: 60, maxInFlight: 10 });
    const t0 = clock.now();
    p.pause(t0 + 7000);
    const log: Array<{ name: string; at: number }> = [];
    const jobs = [job(p, clock, log, 'a', 10), job(p, clock, log, 'b', 10, 'background')];
    await clock.advance(6999);
    expect(log).toEqual([]);
    expect(p.stats().pausedUntil).toBe(t0 + 7000);
    await clock.advance(100);
    await Promise.all(jobs);
    expect(log.map((l) => l.at)).toEqual([t0 + 7000, t0 + 7000]);
  });

  it('eta grows with the queue and the window state', async () => {
    const clock = new ManualClock();
    const p = new Pacer(clock, { requests: 10, windowSeconds: 60, maxInFlight: 10 });
    expect(p.eta(5)).toBeLessThan(10_000);
    // 10 requests fill the window: the 11th must wait about a minute
    const rels = await Promise.all(Array.from({ length: 10 }, () => p.acquire()));
    rels.forEach((r) => r());
    expect(p.eta(1)).toBeGreaterThanOrEqual(60_000);
    expect(p.eta(11)).toBeGreaterThanOrEqual(120_000);
    // background work waits behind queued interactive work
    const waiting = Array.from({ length: 5 }, () => p.acquire('interactive'));
    expect(p.eta(1, 'background')).toBeGreaterThan(p.eta(1, 'interactive') - 1);
    await clock.advance(200_000);
    (await Promise.all(waiting)).forEach((r) => r());
  });

  it('rejects a queued waiter when its signal aborts and lets the next one through', async () => {
    const clock = new ManualClock();
    const p = new Pacer(clock, { requests: 100, windowSeconds: 60, maxInFlight: 1 });
    const r1 = await p.acquire();
    const ac = new AbortController();
    const w2 = p.acquire('interactive', ac.signal);
    const w3 = p.acquire('interactive');
    ac.abort();
    await expect(w2).rejects.toMatchObject({ name: 'AbortError' });
    r1();
    const r3 = await w3;
    r3();
    expect(p.stats().queued.interactive).toBe(0);
  });
});

describe('Pacer.eta', () => {
  it('estimates a million-page walk at once: the steady pace beyond the next windows, not a page-by-page simulation', () => {
    const clock = new ManualClock();
    const p = new Pacer(clock, { requests: 60, windowSeconds: 60, maxInFlight: 10 });
    const t = performance.now();
    const eta = p.eta(1_000_000, 'background');
    expect(performance.now() - t).toBeLessThan(1000);
    // 1,000,000 requests at 60 a minute: about 16,667 minutes
    expect(eta / 60_000).toBeGreaterThan(16_000);
    expect(eta / 60_000).toBeLessThan(17_500);
    // and the short estimates are still simulated exactly
    expect(p.eta(60, 'background')).toBeLessThan(60_000);
    expect(p.eta(61, 'background')).toBeGreaterThan(60_000);
  });
});
