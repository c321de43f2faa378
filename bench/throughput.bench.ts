/**
 * Throughput at the physical limit (issue 15), through the real request core, key pool, pacer and
 * archive against a time-scaled sandbox in its own process (its CPU does not slow the client's
 * event loop). Time is sandbox time.
 *
 * 1. Key pool: search walks (max_pages up to 5, the service's ceiling) spread over 1, 5 and 25 keys
 *    for several full 60 s windows. Reported: pages archived per minute ÷ the service's limit
 *    (5 pages × 60 requests per key per minute) — pages count when the archive holds them, so the
 *    archive keeping up is part of the number — and the 429s the service returned (target 0).
 * 2. Two processes sharing one key through `pacing.db`: this process walks (the web host's role)
 *    while a child process runs watchlist refreshes (`loupe watch run` from cron). Reported: the
 *    requests both made per window ÷ the key's 60 (target ≥ 0.9), and 429s (target 0).
 * 3. A refresh of 1,000 watches with 5 keys: wall time ÷ the pacer's minimum (≥ 0.95) and credits
 *    ÷ the minimum (= 1), as in the watch bench.
 */
import { spawn } from 'node:child_process';
import { setMaxListeners } from 'node:events';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { createApiCore, MemoryPaceBook, type ApiCore, type PoolKey } from '../src/core/api/index';
import { openArchive } from '../src/core/archive/index';
import { createWatchService } from '../src/core/watch/index';
import { findEndpoint } from '../src/sandbox/registry/index';
import { startRemoteSandbox, type RemoteSandbox } from './remote-sandbox';
import { measureWatchRun } from './watch-measure';
import { atLeast, type BenchContext, type Result } from './types';
import { testDb } from '../src/core/archive/testing';

export const name = 'throughput';

const LIMITS = { requests: 60, windowSeconds: 60, maxInFlight: 10 };
/** sandbox time moved ahead so search result lists are long (hundreds of pages each) */
const AHEAD_S = 240 * 86_400;

async function keysOf(sb: RemoteSandbox, n: number): Promise<PoolKey[]> {
  const keys: PoolKey[] = [{ name: 'k1', key: sb.key }];
  for (let i = 2; i <= n; i++) keys.push({ name: `k${i}`, key: await sb.createKey(`k${i}`) });
  return keys;
}

/** Search walks, two per key, one query after another, until `stop`; returns pages archived by time. */
function walkUntil(
  api: ApiCore,
  workers: number,
  stop: AbortSignal,
  tag: string,
): { archived: Array<{ at: number; pages: number }>; done: Promise<unknown> } {
  const archived: Array<{ at: number; pages: number }> = [];
  const last = new Map<string, number>();
  api.events.on('walk-progress', (p) => {
    const d = p.pagesDone - (last.get(p.walkId) ?? 0);
    last.set(p.walkId, p.pagesDone);
    if (d > 0) archived.push({ at: Date.now(), pages: d });
  });
  let q = 0;
  const done = Promise.allSettled(
    Array.from({ length: workers }, async () => {
      while (!stop.aborted) {
        const query = `${tag} ${q++}`;
        await api.walk(
          { platform: 'micro_net', endpoint: 'search/tweets', params: { query } },
          { maxPages: 1_000_000, signal: stop, source: 'bench', priority: 'background' },
        );
      }
    }),
  );
  return { archived, done };
}

async function poolRun(ctx: BenchContext, nKeys: number, windows: number, timeScale: number): Promise<Result[]> {
  const sb = await startRemoteSandbox({ seed: 15 + nKeys, balance: 1_000_000_000_000, timeScale });
  const dir = mkdtempSync(join(tmpdir(), 'loupe-throughput-'));
  const clock = sb.clock;
  const archive = openArchive(join(dir, 'archive.db'), { clock: () => clock.now() });
  try {
    await sb.advance(AHEAD_S);
    const keys = await keysOf(sb, nKeys);
    const api = createApiCore({
      baseUrl: sb.url,
      getKeys: () => keys,
      store: archive,
      clock,
      limits: LIMITS,
      paceBook: new MemoryPaceBook(),
    });
    await api.catalogue.load();
    const lag = monitorEventLoopDelay({ resolution: 10 });
    lag.enable();
    const stop = new AbortController();
    setMaxListeners(0, stop.signal); // one signal for every walk of the run
    const realT0 = Date.now();
    const t0 = clock.now();
    const run = walkUntil(api, nKeys * 2, stop.signal, `pool${nKeys}`);
    const spanMs = windows * 60_000;
    await clock.sleep(spanMs);
    const realEnd = realT0 + spanMs / timeScale;
    stop.abort();
    await run.done;
    lag.disable();
    await api.close();
    const pages = run.archived.filter((a) => a.at <= realEnd).reduce((s, a) => s + a.pages, 0);
    const charges = (await sb.charges()).filter((c) => c.at >= t0);
    const limited = charges.filter((c) => c.status === 429).length;
    const limit = 5 * LIMITS.requests * nKeys * windows;
    const ratio = pages / limit;
    const items = (testDb(archive).prepare('SELECT count(*) AS n FROM items').get() as { n: number }).n;
    ctx.log(
      `throughput ${nKeys} key(s): ${pages} pages in ${windows} windows (limit ${limit}), ${items} items archived, ${limited} 429s, event-loop p99 ${(lag.percentile(99) / 1e6).toFixed(0)} ms`,
    );
    return [
      {
        metric: `${nKeys} key(s): pages archived per minute ÷ limit`,
        value: ratio,
        unit: 'x',
        target: '>= 0.95',
        ok: atLeast(ratio, 0.95),
        note: `${pages} pages in ${windows} × 60 s (limit ${limit} = 5 pages × ${LIMITS.requests} × ${nKeys} key(s) × ${windows}); ${items} items archived; event-loop delay p99 ${(lag.percentile(99) / 1e6).toFixed(0)} ms (real); sandbox time ×${timeScale}`,
      },
      { metric: `${nKeys} key(s): 429s returned by the service`, value: limited, unit: '', target: '0', ok: limited === 0 },
    ];
  } finally {
    archive.close();
    await sb.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

async function sharedKeyRun(ctx: BenchContext, windows: number, timeScale: number): Promise<Result[]> {
  const sb = await startRemoteSandbox({ seed: 42, balance: 1_000_000_000_000, timeScale });
  const dir = mkdtempSync(join(tmpdir(), 'loupe-shared-key-'));
  const clock = sb.clock;
  const archive = openArchive(join(dir, 'archive.db'), { clock: () => clock.now() });
  try {
    await sb.advance(AHEAD_S);
    const api = createApiCore({
      baseUrl: sb.url,
      getKeys: () => [{ name: 'shared', key: sb.key }],
      store: archive,
      clock,
      limits: LIMITS,
      paceFile: join(dir, 'pacing.db'),
    });
    await api.catalogue.load();
    const spanMs = windows * 60_000;
    const childMain = fileURLToPath(new URL('./pace-child.ts', import.meta.url));
    const child = spawn(
      process.execPath,
      ['--import', 'tsx', childMain, sb.url, sb.key, String(timeScale), dir, '300', String(spanMs / 1000)],
      { stdio: ['ignore', 'pipe', 'inherit'] },
    );
    let childOut = '';
    child.stdout.on('data', (d: Buffer) => (childOut += d.toString()));
    const childDone = new Promise<void>((res) => child.once('exit', () => res()));
    const stop = new AbortController();
    setMaxListeners(0, stop.signal);
    const t0 = clock.now();
    const run = walkUntil(api, 2, stop.signal, 'shared');
    await clock.sleep(spanMs);
    stop.abort();
    await run.done;
    await childDone;
    await api.close();
    const charges = (await sb.charges()).filter((c) => c.at >= t0 && c.at < t0 + spanMs && c.endpoint.startsWith('/v1/'));
    const limited = charges.filter((c) => c.status === 429).length;
    const child1 = JSON.parse(childOut.trim().split('\n').pop() || '{}') as { requests?: number; runs?: number };
    const walkReqs = charges.filter((c) => c.endpoint.includes('search/tweets')).length;
    const watchReqs = charges.length - walkReqs;
    const ratio = charges.length / (LIMITS.requests * windows);
    ctx.log(
      `shared key: ${charges.length} requests in ${windows} windows (walks ${walkReqs}, watch runs ${watchReqs}; child counted ${child1.requests ?? '?'} in ${child1.runs ?? '?'} run(s)), ${limited} 429s`,
    );
    return [
      {
        metric: 'two processes, one key: requests per window ÷ 60',
        value: ratio,
        unit: 'x',
        target: '>= 0.9',
        ok: atLeast(ratio, 0.9),
        note: `this process walking (${walkReqs} requests) + a child process refreshing 300 watches (${watchReqs}), paced through one pacing.db; ${windows} × 60 s, sandbox time ×${timeScale}`,
      },
      { metric: 'two processes, one key: 429s returned by the service', value: limited, unit: '', target: '0', ok: limited === 0 },
    ];
  } finally {
    archive.close();
    await sb.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

export async function thousandWatches(ctx: BenchContext, timeScale: number, n: number): Promise<Result[]> {
  const sb = await startRemoteSandbox({ seed: 1000, balance: 1_000_000_000, timeScale });
  const dir = mkdtempSync(join(tmpdir(), 'loupe-1000-watches-'));
  const clock = sb.clock;
  const archive = openArchive(join(dir, 'archive.db'), { clock: () => clock.now() });
  const keys = await keysOf(sb, 5);
  const api = createApiCore({
    baseUrl: sb.url,
    getKeys: () => keys,
    store: archive,
    clock,
    limits: LIMITS,
    paceBook: new MemoryPaceBook(),
  });
  const watch = createWatchService({ api, archive, clock });
  try {
    const watches = Array.from({ length: n }, (_, i) => ({
      platform: 'photo_net',
      endpoint: 'profile/posts',
      params: { handle: `fleet.account${i}` },
    }));
    const l = await watch.create({ name: 'fleet', watches });
    const pageSize = findEndpoint('photo_net', 'profile/posts')?.paging?.pageSize ?? 12;
    const m = { ctx, sb, clock, archive, watch, l, limits: LIMITS, keys: keys.length, pageSize, timeScale, watches: n };
    const out: Result[] = [];
    const label = (s: string) => `${n} watches, 5 keys, ${s}`;
    out.push(...(await measureWatchRun(m, label('first run'))));
    await sb.advance(30 * 3600);
    out.push(...(await measureWatchRun(m, label('refresh after 30 h'))));
    return out;
  } finally {
    await watch.close();
    await api.close();
    archive.close();
    await sb.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

export async function run(ctx: BenchContext): Promise<Result[]> {
  const out: Result[] = [];
  // time scales chosen so the client's archive, not the machine, is what is measured: each page
  // archived costs ~4 ms of CPU (SQLite upserts), so 25 keys (125 pages a second) run in real time
  out.push(...(await poolRun(ctx, 1, ctx.quick ? 2 : 7, 10)));
  out.push(...(await poolRun(ctx, 5, ctx.quick ? 2 : 3, 2)));
  out.push(...(await poolRun(ctx, 25, ctx.quick ? 1 : 3, 1)));
  out.push(...(await sharedKeyRun(ctx, ctx.quick ? 2 : 3, 4)));
  // real time: the sandbox (one process, ~20 ms of CPU for an account's first feed page) queues the
  // bursts a window start allows (50 requests at once on 5 keys); any time scale multiplies that
  // queueing into sandbox time, and the emulator's latency, not the client, would be measured
  out.push(...(await thousandWatches(ctx, ctx.quick ? 2 : 1, ctx.quick ? 200 : 1000)));
  return out;
}

export default { name, run };
