/**
 * One watchlist run measured against its minimums (watch and throughput benchmarks): wall time vs
 * the pacer's theoretical minimum for the pages the run needed (with R requests per W-second window,
 * C in flight per key, K keys and requests of d seconds, n = N/K requests per key cannot finish
 * before g·(W+d) + (floor(k/C)+1)·d, g = floor((n−1)/R), k = (n−1) mod R: see below; the
 * window-only bound floor((n−1)/R)·W + d, which ignores the in-flight limit, is reported beside it),
 * and the credits the service charged vs the minimum (pages down to each watch's marker at the page
 * price).
 */
import type { Archive } from '../src/core/archive/index';
import type { PacerLimits } from '../src/core/api/index';
import type { Clock } from '../src/core/ports';
import type { WatchRunDetail, WatchService } from '../src/core/watch/index';
import type { RemoteSandbox } from './remote-sandbox';
import { atLeast, type BenchContext, type Result } from './types';
import { testDb } from '../src/core/archive/testing';

export const PAGE_PRICE = 20;

const r2 = (x: number): string => (Number.isFinite(x) ? x.toFixed(2) : '—');

export interface WatchRunBench {
  ctx: BenchContext;
  sb: RemoteSandbox;
  clock: Clock;
  archive: Archive;
  watch: WatchService;
  l: { id: string };
  /** one key's limits */
  limits: PacerLimits;
  /** keys in the pool */
  keys?: number;
  pageSize: number;
  timeScale: number;
  watches: number;
}

export async function measureWatchRun(m: WatchRunBench, label: string): Promise<Result[]> {
  const { ctx, sb, clock, archive, watch, l, limits, pageSize, timeScale, watches: WATCHES } = m;
  const out: Result[] = [];
  const charges0 = (await sb.charges()).length;
  const t0 = clock.now();
  const r: WatchRunDetail = await watch.run(l.id, { approved: true });
  const t1 = clock.now();
  const charges = (await sb.charges()).slice(charges0);
  const credits = charges.reduce((a, c) => a + c.credits_used, 0);
  const attempts = testDb(archive)
    .prepare('SELECT count(*) AS n, avg(duration_ms) AS d FROM calls WHERE source = ? AND started_at >= ? AND started_at <= ?')
    .get(`watch:${l.id}`, t0, t1) as { n: number; d: number | null };
  // pages each watch had to read: down to the page holding its marker (first run: 1 page).
  // Rows above the marker = the posts new in this run + the account's pinned posts (they sit
  // at the head of the list; `since` drops old pinned rows from the answer, not from the page).
  const rows = testDb(archive)
    .prepare(
      `SELECT rw.first_run AS first_run,
           (SELECT count(*) FROM watch_items wi JOIN items i ON i.platform = wi.platform AND i.kind = wi.kind AND i.id = wi.item_id
             WHERE wi.watch_id = rw.watch_id AND wi.run_id = rw.run_id AND coalesce(json_extract(i.raw, '$.flags.pinned'), 0) = 0) AS fresh,
           (SELECT count(*) FROM watch_items wi JOIN items i ON i.platform = wi.platform AND i.kind = wi.kind AND i.id = wi.item_id
             WHERE wi.watch_id = rw.watch_id AND json_extract(i.raw, '$.flags.pinned') = 1) AS pinned
         FROM watch_run_watches rw WHERE rw.run_id = ?`,
    )
    .all(r.runId) as Array<{ first_run: number; fresh: number; pinned: number }>;
  const needPages = rows.reduce((a, w) => a + (w.first_run ? 1 : Math.max(1, Math.ceil((w.fresh + w.pinned + 1) / pageSize))), 0);
  const perKey = Math.ceil(needPages / (m.keys ?? 1));
  const d = attempts.d ?? 0;
  // the window-only bound: N starts cannot span less than floor((N−1)/R)·W, plus one request
  const windowOnlyMs = Math.floor((perKey - 1) / limits.requests) * limits.windowSeconds * 1000 + d;
  // the pacer's minimum under both of the spec's per-key limits. Requests take d each, at most C
  // in flight, so the first window's request k answers at (floor(k/C)+1)·d; a slot of the window
  // is free again W after that request's answer (the service counts arrivals, which a client
  // never sees: no client that never causes a 429 can reuse it sooner), so generation g's
  // request k answers at g·(W+d) + (floor(k/C)+1)·d. The run ends with the last generation's
  // last request: k = (N−1) mod R.
  const gens = Math.floor((perKey - 1) / limits.requests);
  const lastK = (perKey - 1) % limits.requests;
  const minWallMs = gens * (limits.windowSeconds * 1000 + d) + (Math.floor(lastK / limits.maxInFlight) + 1) * d;
  const retried = testDb(archive)
    .prepare(
      "SELECT coalesce(error_type, 'HTTP ' || status) AS t, count(*) AS n FROM calls WHERE source = ? AND started_at >= ? AND started_at <= ? AND (status IS NULL OR status <> 200) GROUP BY t",
    )
    .all(`watch:${l.id}`, t0, t1) as Array<{ t: string; n: number }>;
  const retries = retried.map((x) => `${x.n} ${x.t}`).join(', ') || 'none';
  const limited = testDb(archive)
    .prepare(
      "SELECT started_at FROM calls WHERE source = ? AND started_at >= ? AND started_at <= ? AND error_type = 'RATE_LIMITED' ORDER BY started_at",
    )
    .all(`watch:${l.id}`, t0, t1) as Array<{ started_at: number }>;
  if (limited.length)
    ctx.log(`watch ${label}: 429s at ${limited.map((x) => ((x.started_at - t0) / 1000).toFixed(2)).join(', ')} s into the run`);
  const wallMs = t1 - t0;
  const wallRatio = wallMs > 0 ? minWallMs / wallMs : null;
  const creditRatio = needPages > 0 ? credits / (needPages * PAGE_PRICE) : null;
  ctx.log(
    `watch ${label}: ${r.status}, ${attempts.n} requests (${needPages} needed; retried: ${retries}), ${credits} credits, ${(wallMs / 1000).toFixed(1)} s sandbox time`,
  );
  out.push({
    metric: `${label}: wall vs pacer minimum`,
    value: wallRatio,
    unit: 'x',
    target: '>= 0.95',
    ok: atLeast(wallRatio, 0.95),
    note: `${WATCHES} watches, ${attempts.n} requests (${needPages} needed; failed attempts: ${retries}), ${(wallMs / 1000).toFixed(1)} s vs ${(minWallMs / 1000).toFixed(1)} s minimum at ${limits.requests}/${limits.windowSeconds} s and ${limits.maxInFlight} in flight × ${m.keys ?? 1} key(s), ${(d / 1000).toFixed(2)} s a request (the window-only bound ${(windowOnlyMs / 1000).toFixed(1)} s: ${r2(windowOnlyMs / wallMs)}×) (sandbox time, x${timeScale})`,
  });
  out.push({
    metric: `${label}: credits vs minimum`,
    value: creditRatio,
    unit: 'x',
    target: '= 1.00',
    ok: creditRatio === null ? undefined : Math.abs(creditRatio - 1) < 1e-9,
    note: `${credits} credits charged by the service; minimum ${needPages} pages × ${PAGE_PRICE}; run ${r.status}, ${r.newItems} new items`,
  });
  return out;
}
