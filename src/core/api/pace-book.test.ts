/**
 * One key's limits across processes (issue 15): two pacers on separate connections to one
 * `pacing.db` (as the app and `loupe watch run` from cron would be) never exceed the key's window or
 * in-flight limit together; a crashed process's attempts stop counting as in flight when their lease
 * lapses, and leave the window a window later; a data folder that cannot hold the file falls back to
 * this process's counts with a warning. All on an injected clock.
 */
import { spawnSync } from 'node:child_process';
import Database from 'better-sqlite3';
import { chmodSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { Pacer } from './pacer';
import { MemoryPaceBook, SqlitePaceBook, openPaceBook, type PaceBook } from './pace-book';
import { ManualClock, flush, maxInAnyWindow } from './test-helpers';

const dirs: string[] = [];
const books: PaceBook[] = [];
afterEach(() => {
  for (const b of books.splice(0)) b.close();
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

function folder(): string {
  const d = mkdtempSync(join(tmpdir(), 'loupe-pace-'));
  dirs.push(d);
  return d;
}

function book(file: string): SqlitePaceBook {
  const b = new SqlitePaceBook(file);
  books.push(b);
  return b;
}

const LIMITS = { requests: 6, windowSeconds: 60, maxInFlight: 2 };

describe('the shared pace book', () => {
  it('two processes on one key never exceed its window or in-flight limit together', async () => {
    const clock = new ManualClock();
    const file = join(folder(), 'pacing.db');
    const app = new Pacer(clock, LIMITS, { book: book(file), bookKey: 'k1', pollMs: 50 });
    const cron = new Pacer(clock, LIMITS, { book: book(file), bookKey: 'k1', pollMs: 50 });
    const starts: number[] = [];
    let inFlight = 0;
    let maxInFlight = 0;
    const job = (p: Pacer, holdMs: number) =>
      p.acquire('background').then(async (release) => {
        starts.push(clock.now());
        maxInFlight = Math.max(maxInFlight, ++inFlight);
        await clock.sleep(holdMs);
        inFlight--;
        release();
      });
    const all = [
      ...Array.from({ length: 15 }, (_, i) => job(app, 700 + i * 37)),
      ...Array.from({ length: 15 }, (_, i) => job(cron, 900 + i * 11)),
    ];
    for (let t = 0; t < 400; t++) await clock.advance(1000);
    await Promise.all(all);
    expect(starts).toHaveLength(30);
    expect(maxInAnyWindow(starts, 60_000)).toBeLessThanOrEqual(6);
    expect(maxInFlight).toBeLessThanOrEqual(2);
    // and not needlessly slow: 30 starts at 6 a window need 4 full windows and a bit, not more
    const span = Math.max(...starts) - Math.min(...starts);
    expect(span).toBeLessThan(5 * 60_000 + 10_000);
  });

  it("another key's counts are its own", async () => {
    const clock = new ManualClock();
    const file = join(folder(), 'pacing.db');
    const a = book(file);
    for (let i = 0; i < 2; i++) expect(a.tryStart('k1', clock.now(), LIMITS, 60_000).ok).toBe(true);
    expect(a.tryStart('k1', clock.now(), LIMITS, 60_000)).toEqual({ ok: false, readyAt: Infinity });
    expect(book(file).tryStart('k2', clock.now(), LIMITS, 60_000).ok).toBe(true);
  });

  it("a crashed process's attempts stop counting as in flight when their lease lapses, and leave the window a window later", async () => {
    const clock = new ManualClock();
    const file = join(folder(), 'pacing.db');
    const crashed = book(file);
    const t0 = clock.now();
    expect(crashed.tryStart('k1', t0, LIMITS, 120_000).ok).toBe(true);
    expect(crashed.tryStart('k1', t0, LIMITS, 120_000).ok).toBe(true);
    crashed.close(); // the process died with both attempts in flight
    const survivor = new Pacer(clock, LIMITS, { book: book(file), bookKey: 'k1', pollMs: 1000 });
    let startedAt: number | null = null;
    void survivor.acquire().then((release) => {
      startedAt = clock.now();
      release();
    });
    await clock.advance(119_000);
    expect(startedAt).toBeNull(); // both still in flight for all we know
    await clock.advance(3_000);
    expect(startedAt).not.toBeNull();
    expect(startedAt as unknown as number).toBeGreaterThanOrEqual(t0 + 120_000);
    // the lapsed attempts still occupy the window until a window after the lease: 4 more starts fit, not 5
    const s = survivor.stats();
    expect(s.inFlight).toBe(0);
    expect(s.startsInWindow).toBe(1);
    const b = book(file);
    let n = 0;
    while (b.tryStart('k1', clock.now(), { ...LIMITS, maxInFlight: 100 }, 60_000).ok) n++;
    expect(n).toBe(3); // 6 − the 2 lapsed − the survivor's one
    await clock.advance(60_000);
    await flush();
  });

  it('a 429 pause reaches every process using the key', () => {
    const clock = new ManualClock();
    const file = join(folder(), 'pacing.db');
    book(file).pause('k1', clock.now() + 30_000);
    const other = book(file);
    expect(other.pausedUntil('k1', clock.now())).toBe(clock.now() + 30_000);
    const r = other.tryStart('k1', clock.now(), LIMITS, 60_000);
    expect(r).toEqual({ ok: false, readyAt: clock.now() + 30_000 });
  });

  it('a start taken but never sent leaves no trace', () => {
    const clock = new ManualClock();
    const b = book(join(folder(), 'pacing.db'));
    const p = new Pacer(clock, { ...LIMITS, requests: 1 }, { book: b, bookKey: 'k' });
    const release = p.tryAcquire('interactive');
    expect(release).not.toBeNull();
    release?.({ unsent: true });
    expect(p.tryAcquire('interactive')).not.toBeNull();
  });

  it('a data folder that cannot hold the file: this process paces alone, with a warning', () => {
    if (process.getuid?.() === 0) return; // root writes anywhere
    const d = folder();
    chmodSync(d, 0o500);
    const lines: string[] = [];
    const b = openPaceBook(join(d, 'pacing.db'), (l) => lines.push(l));
    books.push(b);
    expect(b).toBeInstanceOf(MemoryPaceBook);
    expect(b.tryStart('k', 0, LIMITS, 60_000).ok).toBe(true);
    expect(lines.join('\n')).toMatch(/paces its keys alone/);
    chmodSync(d, 0o700);
  });

  it("a killed process's attempts stop counting as in flight at once (its pid is gone), and still count in the window", () => {
    const file = join(folder(), 'pacing.db');
    const b = book(file);
    // a process that is gone: its pid no longer exists (a kill -9 leaves its rows with no end)
    const gone = spawnSync(process.execPath, ['-e', '0']).pid as number;
    const raw = new Database(file);
    const now = 1_000_000;
    raw
      .prepare('INSERT INTO pace_starts (id, key, pid, start_ms, end_ms, lease_until) VALUES (?, ?, ?, ?, NULL, ?)')
      .run('dead', 'k', gone, now - 1000, now + 120_000);
    raw.close();
    const limits = { requests: 2, windowSeconds: 60, maxInFlight: 1 };
    const first = b.tryStart('k', now, limits, 120_000);
    expect(first.ok).toBe(true); // the dead attempt holds no in-flight slot any more
    b.end('k', (first as { id: string }).id, now + 10);
    // …but it is still in the window: two starts in it, no third
    expect(b.tryStart('k', now + 20, limits, 120_000).ok).toBe(false);
    // an attempt of a live process (this one) keeps its slot until it ends or its lease lapses
    const c = book(file);
    const live = c.tryStart('other', now, { requests: 5, windowSeconds: 60, maxInFlight: 1 }, 120_000);
    expect(live.ok).toBe(true);
    expect(b.tryStart('other', now + 1, { requests: 5, windowSeconds: 60, maxInFlight: 1 }, 120_000).ok).toBe(false);
  });
});
