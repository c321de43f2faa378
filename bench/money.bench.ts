/**
 * Money under faults (issue 11): a walk of 250 pages through 20 % injected faults (bodies dropped
 * mid-way, 500, 503, 429) against the same walk without faults, on fresh sandboxes with the same
 * seed and world. Both readings of a dropped answer are run — the sandbox's default (the service
 * never finished it: nothing charged, a same-key retry would pay the ceiling) and `drop-charged`
 * (the service charged it: a same-key retry is a free replay) — with and without cache windows
 * (`no-cache-window`: a fresh key cannot be an owner's free read).
 *
 * Reported per endpoint and reading:
 *  - cost ratio = credits the service charged for the faulted walk ÷ for the clean walk (target ≤ 1.02);
 *  - every item archived exactly once (the archive's item set equals the clean run's);
 *  - the ledger equals the service's own charge records.
 */
import { startSandbox } from '../src/sandbox/index';
import { createApiCore, scaledClock } from '../src/core/api/index';
import { openArchive } from '../src/core/archive/index';
import type { BenchContext, Result } from './types';
import { testDb } from '../src/core/archive/testing';

export const name = 'money';

const TIME_SCALE = 600;
/** one world for every sandbox of a comparison (the default epoch is the minute each one starts) */
const EPOCH = Date.UTC(2026, 0, 5, 12, 0);
const YEARS = 3;

interface Run {
  charged: number;
  ledger: number;
  items: string[];
  pages: number;
  faults: number;
  status: string;
}

async function walkOnce(
  target: { platform: string; endpoint: string; params: Record<string, string> },
  pages: number,
  faults: number,
  variants: string[],
): Promise<Run> {
  const sb = await startSandbox({
    port: 0,
    seed: 11,
    balance: 100_000_000,
    freeCalls: 0,
    timeScale: TIME_SCALE,
    epoch: EPOCH,
    variants,
    ...(faults > 0 ? { chaos: { rate429: faults / 4, rate500: faults / 4, rate503: faults / 4, rateDrop: faults / 4 } } : {}),
  });
  sb.admin.advance(86_400 * 365 * YEARS); // the account posts for years: a feed of ~400 pages
  const clock = scaledClock(() => sb.admin.now(), TIME_SCALE);
  const archive = openArchive(':memory:', { clock: () => clock.now() });
  const api = createApiCore({
    baseUrl: sb.url,
    getKey: () => sb.key,
    store: archive,
    clock,
    limits: { requests: 60, windowSeconds: 60, maxInFlight: 10 },
    maxRetries: 8,
  });
  try {
    const r = await api.walk(target, { maxPages: pages, source: 'bench' });
    const charges = sb.admin.charges();
    const charged = charges.reduce((s, c) => s + c.credits_used, 0);
    const ledger = archive.listLedger({ limit: 10_000 }).reduce((s, l) => s + l.creditsUsed, 0);
    const items = (testDb(archive).prepare('SELECT platform || kind || id AS k FROM items ORDER BY 1').all() as Array<{ k: string }>).map(
      (x) => x.k,
    );
    const stats = sb.admin.stats() as unknown as { chaos_faults: Record<string, number> };
    const nFaults = Object.values(stats.chaos_faults ?? {}).reduce((a, b) => a + b, 0);
    return { charged, ledger, items, pages: r.pagesDone, faults: nFaults, status: `${r.status}${r.error ? ` (${r.error.message})` : ''}` };
  } finally {
    await api.close();
    archive.close();
    await sb.close();
  }
}

export async function run(ctx: BenchContext): Promise<Result[]> {
  const pages = ctx.quick ? 60 : 250;
  const out: Result[] = [];
  const targets = [
    { platform: 'micro_net', endpoint: 'user/tweets', params: { handle: 'money_bench' } },
    { platform: 'photo_net', endpoint: 'profile/posts', params: { handle: 'money_bench' } },
  ];
  const readings: Array<[string[], string]> = [
    [[], 'drop never charged'],
    [['drop-charged'], 'drop charged'],
    [['no-cache-window'], 'drop never charged, no cache window'],
    [['drop-charged', 'no-cache-window'], 'drop charged, no cache window'],
  ];
  for (const [variants, reading] of readings) {
    for (const t of targets) {
      const label = `${t.platform}/${t.endpoint}, ${reading}`;
      ctx.log(`money: ${label}: clean walk of ${pages} pages`);
      const clean = await walkOnce(t, pages, 0, variants);
      ctx.log(`money: ${label}: the same walk through 20 % faults`);
      const faulty = await walkOnce(t, pages, 0.2, variants);
      const ratio = clean.charged > 0 ? faulty.charged / clean.charged : null;
      const sameItems = faulty.items.length === clean.items.length && faulty.items.every((k, i) => k === clean.items[i]);
      out.push({
        metric: `cost under 20 % faults, ${label}`,
        value: ratio,
        unit: '×',
        target: '≤ 1.02×',
        ok: ratio !== null ? ratio <= 1.02 : undefined,
        note: `${faulty.charged} vs ${clean.charged} credits; ${faulty.pages} pages, ${faulty.faults} faults; ${faulty.status}`,
      });
      out.push({
        metric: `items archived once, ${label}`,
        value: faulty.items.length,
        unit: 'items',
        target: `= ${clean.items.length}`,
        ok: sameItems,
        note: sameItems ? 'same items as the clean walk' : 'item set differs from the clean walk',
      });
      out.push({
        metric: `ledger − service charges, ${label}`,
        value: faulty.ledger - faulty.charged,
        unit: 'credits',
        target: '= 0',
        ok: faulty.ledger === faulty.charged && clean.ledger === clean.charged,
        note: `ledger ${faulty.ledger}, service ${faulty.charged}`,
      });
    }
  }
  return out;
}
