/**
 * Every command that sends requests reads a loopback sandbox's own clock first (CliContext.api →
 * LoupeApp.syncClock, docs/watchlists.md "One clock"): against a sandbox 200 days ahead, run 60×
 * (the README's), the first answers of a `loupe call` are stored at the sandbox's time — their
 * first_seen_at and first metric readings inside the call's span on its clock, none before the
 * post was published.
 */
import { describe, expect, it } from 'vitest';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { startSandbox } from '../sandbox';
import { runCaptured } from './run-captured';

describe('a sandbox whose clock is ahead of this computer’s, run 60×', () => {
  it('the first answers of a command are dated on the sandbox’s clock', async () => {
    const DAY = 86_400_000;
    const ahead = await startSandbox({ port: 0, seed: 1, epoch: Date.now() + 200 * DAY, balance: 10_000, freeCalls: 0, timeScale: 60 });
    const home = mkdtempSync(join(tmpdir(), 'loupe-cli-clock-'));
    try {
      ahead.admin.advance(86_400);
      const env = { LOUPE_HOME: home, LOUPE_BASE_URL: ahead.url, LOUPE_API_KEY: ahead.key };
      const t0 = ahead.admin.now();
      const got = await runCaptured(['call', 'photo_net/profile/posts', '-p', 'handle=aging.check0', '--yes', '--out', '-'], env);
      const t1 = ahead.admin.now();
      expect(got.code, got.err).toBe(0);
      const db = new Database(join(home, 'loupe.db'), { readonly: true });
      // an item's first metric reading: its earliest kept reading, else the counts it arrived with (growth-sql.ts)
      const items = db
        .prepare(
          `SELECT i.rid, i.published_at, i.first_seen_at,
             COALESCE((SELECT min(r.read_at) FROM item_readings r WHERE r.item_rid = i.rid), i.counts_at, i.first_seen_at) AS first_read
           FROM items i`,
        )
        .all() as Array<{ rid: number; published_at: number | null; first_seen_at: number; first_read: number | null }>;
      db.close();
      expect(items.length).toBeGreaterThan(0);
      // `Date` headers are whole seconds; 60× turns the call's span into minutes of sandbox time
      const inSpan = (t: number) => t >= t0 - 2_000 && t <= t1 + 2_000;
      expect(items.filter((i) => !inSpan(i.first_seen_at))).toEqual([]);
      expect(items.filter((i) => i.published_at !== null && i.published_at > i.first_seen_at)).toEqual([]);
      expect(items.filter((i) => i.first_read === null || !inSpan(i.first_read))).toEqual([]);
    } finally {
      await ahead.close();
      rmSync(home, { recursive: true, force: true });
    }
  });
});
