/**
 * The pipeline of a rid walk's groups through workers (pipelined.ts) and the pool's choice of
 * worker (csv-pool.ts `leastBusy`), over generated schedules: groups answered in any order, some
 * answered null (a row gone since the snapshot), some failing. Every group is placed once, in the
 * walk's order; no more than `cap` groups are unanswered and no more than `hold` held at any time;
 * a group is sent as soon as an answer frees a slot, whichever group it answers; a null answer's
 * group comes from `here` after the whole walk was read; after a failure nothing more is sent;
 * once the archive changed (RidWalk.current false) nothing more is sent and no answer is placed.
 */
import { EventEmitter } from 'node:events';
import type { Worker } from 'node:worker_threads';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { RidWalk } from '../ports';
import { ExportPool } from './csv-pool';
import { pipelined } from './pipelined';
import { takeTurns, YIELD_MS } from './turns';

/** a walk over rids 0 … n-1; `rows` only once every rid was read (as the archive's walk); `change()`: the archive changed */
function walkOf(n: number): RidWalk & { read: () => number; change: () => void } {
  let at = 0;
  let changed = false;
  return {
    file: 'test',
    extra: '',
    next(max) {
      const out: number[] = [];
      while (out.length < max && at < n) out.push(at++);
      return out;
    },
    rows() {
      if (at < n) throw new Error('rows before the walk was read to its end');
      return [];
    },
    snapshot: { rows: () => [] },
    current: () => !changed,
    close() {},
    read: () => at,
    change: () => void (changed = true),
  };
}

interface Sent {
  rids: number[];
  settle: (v: number[] | null | Error) => void;
}

const schedule = fc.record({
  rows: fc.integer({ min: 1, max: 60 }),
  groupSize: fc.integer({ min: 1, max: 8 }),
  /** groups' worth of rids read before the pipeline starts (the Parquet export reads one per worker) */
  firstGroups: fc.integer({ min: 1, max: 3 }),
  cap: fc.integer({ min: 1, max: 5 }),
  extraHold: fc.integer({ min: 0, max: 4 }),
  /** which unanswered group answers next (an index, taken modulo how many there are) */
  picks: fc.array(fc.nat(), { minLength: 200, maxLength: 200 }),
  /** which groups answer null, and which one fails */
  nulls: fc.array(fc.nat(20), { maxLength: 3 }),
  fails: fc.option(fc.nat(20), { nil: undefined }),
  /** the step at which something is committed to the archive (RidWalk.current turns false) */
  changes: fc.option(fc.nat(60), { nil: undefined }),
});

describe('pipelined', () => {
  it('places every group once in the walk order, within cap and hold, sending as answers come', async () => {
    await fc.assert(
      fc.asyncProperty(schedule, async (s) => {
        const walk = walkOf(s.rows);
        const groups = Math.ceil(s.rows / s.groupSize);
        const hold = s.cap + s.extraHold;
        const unanswered: Sent[] = [];
        const placed: number[][] = [];
        let fromHere = 0;
        let held = 0;
        let sent = 0;
        let done = false;
        let sentAfterEnd = 0;
        let changed = false;
        let sentAfterChange = 0;
        /** the failing group was sent and failed (once the archive changed, it may never be sent) */
        let failed = false;
        const mine = new WeakSet<number[]>();
        const run = pipelined(walk, walk.next(s.groupSize * s.firstGroups), {
          groupSize: s.groupSize,
          cap: s.cap,
          hold,
          send: (rids) => {
            if (done) sentAfterEnd++;
            if (changed) sentAfterChange++;
            held++;
            sent++;
            expect(unanswered.length).toBeLessThan(s.cap);
            expect(held).toBeLessThanOrEqual(hold);
            return new Promise<number[] | null>((resolve, reject) =>
              unanswered.push({ rids, settle: (v) => (v instanceof Error ? reject(v) : resolve(v)) }),
            );
          },
          here: async (rids) => {
            expect(walk.read()).toBe(s.rows); // the rest of the walk was read first
            fromHere++;
            const part = [...rids];
            mine.add(part);
            return part;
          },
          place: async (rids) => {
            // once the archive changed, no worker's answer is placed
            if (changed) expect(mine.has(rids)).toBe(true);
            placed.push(rids);
            held--;
          },
        });
        let error: unknown = null;
        run.then(
          () => (done = true),
          (e: unknown) => ((done = true), (error = e)),
        );
        const turn = (): Promise<void> => new Promise<void>((r) => setImmediate(r));
        for (let step = 0; step < s.picks.length && !done; step++) {
          await turn();
          if (step === s.changes) {
            walk.change();
            changed = true;
          }
          if (done || unanswered.length === 0) continue;
          const full = unanswered.length === s.cap;
          const [g] = unanswered.splice(s.picks[step] % unanswered.length, 1);
          const group = Math.floor(g.rids[0] / s.groupSize);
          if (group === s.fails) failed = true;
          g.settle(group === s.fails ? new Error('worker failed') : s.nulls.includes(group) ? null : g.rids);
          await turn();
          // the answer freed a slot: a group not yet sent went out at once, unless `hold` groups wait to be placed
          if (!done && full && sent < groups && held < hold && !changed) expect(unanswered.length).toBe(s.cap);
        }
        // groups still in hands answer after the end: nothing more is sent
        for (const g of unanswered.splice(0)) g.settle(g.rids);
        await turn();
        expect(done).toBe(true);
        expect(sentAfterEnd).toBe(0);
        expect(sentAfterChange).toBe(0);
        const order = placed.flat();
        if (failed) {
          expect(error).toBeInstanceOf(Error);
          expect(order).toEqual(order.map((_, i) => i)); // a prefix of the walk, in order
          return;
        }
        expect(error).toBe(null);
        expect(order).toEqual(Array.from({ length: s.rows }, (_, i) => i));
        // the same groups however many were read before the start: every one but the last is whole
        expect(placed.map((g) => g[0])).toEqual(Array.from({ length: groups }, (_, i) => i * s.groupSize));
        expect(placed.map((g) => g.length)).toEqual(
          Array.from({ length: groups }, (_, i) => Math.min(s.groupSize, s.rows - i * s.groupSize)),
        );
        if (!changed) expect(fromHere).toBe(new Set(s.nulls.filter((g) => g < groups)).size);
      }),
      { numRuns: 300 },
    );
  });

  it('sends the next group when any answer arrives, not when the oldest group is placed', async () => {
    const walk = walkOf(40);
    const waiting: Sent[] = [];
    let sent = 0;
    const run = pipelined(walk, walk.next(10), {
      groupSize: 10,
      cap: 2,
      hold: 4,
      send: (rids) => {
        sent++;
        return new Promise<number[] | null>((resolve) => waiting.push({ rids, settle: (v) => resolve(v as number[]) }));
      },
      here: async (rids) => rids,
      place: async () => undefined,
    });
    await new Promise<void>((r) => setImmediate(r));
    expect(sent).toBe(2);
    // the second group answers first: the third goes out though the first is not placed
    waiting[1].settle(waiting[1].rids);
    await new Promise<void>((r) => setImmediate(r));
    expect(sent).toBe(3);
    for (const w of [waiting[0], waiting[2]]) w.settle(w.rids);
    await new Promise<void>((r) => setImmediate(r));
    waiting[3].settle(waiting[3].rids);
    await run;
    expect(sent).toBe(4);
  });

  it('ends with the error when the walk or a send fails while answers arrive, never waiting on', async () => {
    await fc.assert(
      fc.asyncProperty(fc.constantFrom('walk', 'send'), fc.integer({ min: 1, max: 3 }), async (where, after) => {
        const walk = walkOf(40);
        const next = walk.next.bind(walk);
        let walked = 0;
        walk.next = (max) => {
          if (where === 'walk' && ++walked > after) throw new Error('the walk failed');
          return next(max);
        };
        let sent = 0;
        const run = pipelined(walk, walk.next(5), {
          groupSize: 5,
          cap: 1,
          hold: 3,
          send: (rids) => {
            if (where === 'send' && ++sent > after) throw new Error('the send failed');
            // answered on a later turn: the next group is then asked for inside the answer's callback
            return new Promise<number[] | null>((resolve) => setImmediate(() => resolve(rids)));
          },
          here: async (rids) => rids,
          place: async () => undefined,
        });
        await expect(run).rejects.toThrow(where === 'walk' ? 'the walk failed' : 'the send failed');
      }),
      { numRuns: 30 },
    );
  });
});

/** workers that keep what they are sent, answering when told */
class FakeWorker extends EventEmitter {
  got: Array<{ seq: number }> = [];
  postMessage(m: { seq: number }): void {
    this.got.push(m);
  }
  answer(): void {
    const m = this.got.shift();
    if (m) this.emit('message', { seq: m.seq });
  }
  terminate(): Promise<number> {
    return Promise.resolve(0);
  }
}

class TestPool extends ExportPool {
  constructor(readonly fakes: FakeWorker[]) {
    super(fakes as unknown as Worker[]);
  }
  send1(leastBusy: boolean): Promise<unknown> {
    return this.post((seq) => ({ seq }), leastBusy);
  }
}

describe('ExportPool leastBusy', () => {
  it('sends to the worker with the fewest unanswered messages, the next in turn among equals', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.integer({ min: 1, max: 4 }),
        fc.array(fc.oneof(fc.constant(-1), fc.nat(3)), { maxLength: 60 }),
        async (n, ops) => {
          const fakes = Array.from({ length: n }, () => new FakeWorker());
          const pool = new TestPool(fakes);
          let seq = 0;
          for (const op of ops) {
            if (op === -1) {
              const before = fakes.map((f) => f.got.length);
              const least = Math.min(...before);
              const expected = Array.from({ length: n }, (_, k) => (seq + k) % n).find((w) => before[w] === least);
              void pool.send1(true);
              seq++;
              expect(fakes.findIndex((f, i) => f.got.length !== before[i])).toBe(expected);
            } else fakes[op % n].answer();
            await Promise.resolve();
          }
          await pool.close();
        },
      ),
      { numRuns: 200 },
    );
  });

  it('goes round-robin without it', () => {
    const fakes = [new FakeWorker(), new FakeWorker(), new FakeWorker()];
    const pool = new TestPool(fakes);
    for (let i = 0; i < 7; i++) void pool.send1(false);
    expect(fakes.map((f) => f.got.map((m) => m.seq))).toEqual([
      [0, 3, 6],
      [1, 4],
      [2, 5],
    ]);
    void pool.close();
  });
});

describe('a group rendered on the exporting thread', () => {
  it('gives the event loop turns while it renders (the app keeps serving meanwhile)', async () => {
    const walk = walkOf(6);
    walk.change(); // the archive changed since the snapshot: every group is rendered here
    let turns = 0;
    let ticking = true;
    const tick = (): void => {
      turns++;
      if (ticking) setImmediate(tick);
    };
    setImmediate(tick);
    const seen: number[] = [];
    await pipelined(walk, walk.next(3), {
      groupSize: 3,
      cap: 2,
      send: () => Promise.reject(new Error('no worker is asked once the archive changed')),
      here: async (rids) => {
        const turn = takeTurns();
        // ten pieces of synchronous work, each longer than YIELD_MS: a turn between each
        for (let piece = 0; piece < 10; piece++) {
          const until = performance.now() + YIELD_MS + 2;
          while (performance.now() < until);
          const before = turns;
          await turn();
          seen.push(turns - before);
        }
        return rids;
      },
      place: async () => undefined,
    });
    ticking = false;
    // every await after a piece longer than YIELD_MS let the loop turn (other callbacks ran)
    expect(seen).toHaveLength(20);
    expect(seen.every((n) => n >= 1)).toBe(true);
  });
});
