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
import { findEndpoint } from '../src/sandbox/registry/index';
import { createApiCore } from '../src/core/api/index';
import { openArchive } from '../src/core/archive/index';
import { createWatchService } from '../src/core/watch/index';
import { startRemoteSandbox } from './remote-sandbox';
import { measureWatchRun } from './watch-measure';
import type { BenchContext, Result } from './types';

export const name = 'watch';

const WATCHES = 100;
const PLATFORM = 'photo_net';
const ENDPOINT = 'profile/posts';

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
    const watches = Array.from({ length: WATCHES }, (_, i) => ({
      platform: PLATFORM,
      endpoint: ENDPOINT,
      params: { handle: `bench.account${i}` },
    }));
    const l = await watch.create({ name: 'bench', watches });

    const m = { ctx, sb, clock, archive, watch, l, limits, pageSize, timeScale, watches: WATCHES };
    out.push(...(await measureWatchRun(m, 'baseline (first run)')));
    await sb.advance(30 * 3600);
    out.push(...(await measureWatchRun(m, 'refresh after 30 h')));
  } finally {
    await watch.close();
    await api.close();
    archive.close();
    await sb.close();
  }
  return out;
}

export default { name, run };
