/**
 * Watchlist benchmark: one watchlist of 100 watches (photo-network profile posts, one account
 * each) against a time-scaled sandbox, through the real request core, pacer and archive.
 *
 *  1. baseline run (first run: one page per watch), then sandbox time moves 30 h and
 *  2. a refresh run (stop_at_id walks down to each watch's marker).
 *
 * Reported per run:
 *  - wall time vs the pacer's theoretical minimum for the requests the run needed: with R
 *    requests per W-second window, N requests cannot finish before floor((N−1)/R)·W plus one
 *    request's duration (the average measured) — ratio = minimum / actual (target ≥ 0.95);
 *  - credits vs the theoretical minimum (target exactly 1.0): a watch must read every page down
 *    to the one holding its marker, i.e. ceil((rows above the marker + 1) / page size) pages, at
 *    the price the service charges for such a page (20 credits: no labels, no include). Credits
 *    are the service's own charges (sandbox billing ledger), not the client's idea of them.
 * Time is sandbox time (the core's clock is the sandbox clock, sleeping 1/timeScale of it).
 */
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { findEndpoint } from '../src/sandbox/registry/index';
import { createApiCore, scaledClock } from '../src/core/api/index';
import { openArchive } from '../src/core/archive/index';
import { createWatchService, type WatchRunDetail } from '../src/core/watch/index';
import type { Clock } from '../src/core/ports';
import { atLeast, type BenchContext, type Result } from './types';

export const name = 'watch';

const WATCHES = 100;
const PLATFORM = 'photo_net';
const ENDPOINT = 'profile/posts';
const PAGE_PRICE = 20;

/**
 * The sandbox runs in its own process (as `npm run sandbox` does), so its CPU time does not
 * delay the client's event loop: in one process, the server's lag would make its rate window
 * disagree with the pacer's and the bench would measure the co-location, not the pacer.
 */
interface RemoteSandbox {
  url: string;
  key: string;
  clock: Clock;
  advance(seconds: number): Promise<void>;
  charges(): Promise<Array<{ credits_used: number }>>;
  close(): Promise<void>;
}

async function startRemoteSandbox(o: { seed: number; timeScale: number; balance: number }): Promise<RemoteSandbox> {
  const main = fileURLToPath(new URL('../src/sandbox/main.ts', import.meta.url));
  const child = spawn(
    process.execPath,
    ['--import', 'tsx', main, '--port', '0', '--seed', String(o.seed), '--time-scale', String(o.timeScale), '--balance', String(o.balance), '--free-calls', '0'],
    { stdio: ['ignore', 'pipe', 'ignore'] },
  );
  const first = await new Promise<string>((resolve, reject) => {
    let buf = '';
    child.stdout.on('data', (d: Buffer) => {
      buf += d.toString();
      const i = buf.indexOf('\n');
      if (i >= 0) resolve(buf.slice(0, i));
    });
    child.once('exit', (code) => reject(new Error(`sandbox exited (${code})`)));
  });
  const { url, key } = JSON.parse(first) as { url: string; key: string };
  // mirror the sandbox clock locally: sandbox time = synced time + real elapsed × scale
  let syncAt = 0;
  let syncReal = 0;
  const sync = (j: { now: number }) => {
    syncAt = j.now;
    syncReal = Date.now();
  };
  sync((await (await fetch(`${url}/__admin/clock`)).json()) as { now: number });
  const clock: Clock = scaledClock(() => Math.floor(syncAt + (Date.now() - syncReal) * o.timeScale), o.timeScale);
  return {
    url,
    key,
    clock,
    async advance(seconds) {
      const r = await fetch(`${url}/__admin/clock/advance`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ seconds }) });
      sync((await r.json()) as { now: number });
    },
    async charges() {
      return ((await (await fetch(`${url}/__admin/charges`)).json()) as { charges: Array<{ credits_used: number }> }).charges;
    },
    async close() {
      if (child.exitCode === null) {
        const gone = new Promise((r) => child.once('exit', r));
        child.kill();
        await gone;
      }
    },
  };
}

export async function run(ctx: BenchContext): Promise<Result[]> {
  // small scale: the in-process sandbox needs real CPU per request; at a large scale its own speed,
  // not the pacer, would bound the run
  const timeScale = ctx.quick ? 10 : 2;
  const sb = await startRemoteSandbox({ seed: 77, balance: 10_000_000, timeScale });
  const clock = sb.clock;
  const archive = openArchive(':memory:', { clock: () => clock.now() });
  const api = createApiCore({ baseUrl: sb.url, getKey: () => sb.key, store: archive, clock });
  const watch = createWatchService({ api, archive, clock });
  const pageSize = findEndpoint(PLATFORM, ENDPOINT)?.paging?.pageSize ?? 12;
  const limits = api.pacer.stats().limits;
  const out: Result[] = [];
  try {
    const watches = Array.from({ length: WATCHES }, (_, i) => ({ platform: PLATFORM, endpoint: ENDPOINT, params: { handle: `bench.account${i}` } }));
    const l = await watch.create({ name: 'bench', watches });

    const measure = async (label: string): Promise<void> => {
      const charges0 = (await sb.charges()).length;
      const t0 = clock.now();
      const r: WatchRunDetail = await watch.run(l.id, { approved: true });
      const t1 = clock.now();
      const charges = (await sb.charges()).slice(charges0);
      const credits = charges.reduce((a, c) => a + c.credits_used, 0);
      const attempts = archive.db
        .prepare('SELECT count(*) AS n, avg(duration_ms) AS d FROM calls WHERE source = ? AND started_at >= ? AND started_at <= ?')
        .get(`watch:${l.id}`, t0, t1) as { n: number; d: number | null };
      // pages each watch had to read: down to the page holding its marker (first run: 1 page).
      // Rows above the marker = the posts new in this run + the account's pinned posts (they sit
      // at the head of the list; `since` drops old pinned rows from the answer, not from the page).
      const rows = archive.db
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
      const minWallMs = Math.floor((needPages - 1) / limits.requests) * limits.windowSeconds * 1000 + (attempts.d ?? 0);
      const retried = archive.db
        .prepare(
          "SELECT coalesce(error_type, 'HTTP ' || status) AS t, count(*) AS n FROM calls WHERE source = ? AND started_at >= ? AND started_at <= ? AND (status IS NULL OR status <> 200) GROUP BY t",
        )
        .all(`watch:${l.id}`, t0, t1) as Array<{ t: string; n: number }>;
      const retries = retried.map((x) => `${x.n} ${x.t}`).join(', ') || 'none';
      const limited = archive.db
        .prepare("SELECT started_at FROM calls WHERE source = ? AND started_at >= ? AND started_at <= ? AND error_type = 'RATE_LIMITED' ORDER BY started_at")
        .all(`watch:${l.id}`, t0, t1) as Array<{ started_at: number }>;
      if (limited.length) ctx.log(`watch ${label}: 429s at ${limited.map((x) => ((x.started_at - t0) / 1000).toFixed(2)).join(', ')} s into the run`);
      const wallMs = t1 - t0;
      const wallRatio = wallMs > 0 ? minWallMs / wallMs : null;
      const creditRatio = needPages > 0 ? credits / (needPages * PAGE_PRICE) : null;
      ctx.log(`watch ${label}: ${r.status}, ${attempts.n} requests (${needPages} needed; retried: ${retries}), ${credits} credits, ${(wallMs / 1000).toFixed(1)} s sandbox time`);
      out.push({
        metric: `${label}: wall vs pacer minimum`,
        value: wallRatio,
        unit: 'x',
        target: '>= 0.95',
        ok: atLeast(wallRatio, 0.95),
        note: `${WATCHES} watches, ${attempts.n} requests (${needPages} needed; failed attempts: ${retries}), ${(wallMs / 1000).toFixed(1)} s vs ${(minWallMs / 1000).toFixed(1)} s minimum at ${limits.requests}/${limits.windowSeconds} s (sandbox time, x${timeScale})`,
      });
      out.push({
        metric: `${label}: credits vs minimum`,
        value: creditRatio,
        unit: 'x',
        target: '= 1.00',
        ok: creditRatio === null ? undefined : Math.abs(creditRatio - 1) < 1e-9,
        note: `${credits} credits charged by the service; minimum ${needPages} pages × ${PAGE_PRICE}; run ${r.status}, ${r.newItems} new items`,
      });
    };

    await measure('baseline (first run)');
    await sb.advance(30 * 3600);
    await measure('refresh after 30 h');
  } finally {
    await watch.close();
    await api.close();
    archive.close();
    await sb.close();
  }
  return out;
}

export default { name, run };
