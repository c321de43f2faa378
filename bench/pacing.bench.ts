/**
 * Pacing efficiency (issue 3): long walks through the real request core and pacer against a
 * time-scaled sandbox, at the spec's full limits (60 requests per sliding 60 s, 10 in flight).
 *
 * Reported:
 *  - efficiency = the pacer's theoretical minimum time for the N requests made
 *    (floor((N−1)/60)·60 s plus one request's duration) ÷ the time actually taken (target ≥ 0.98);
 *  - achieved requests per 60 s window ÷ allowed (over the full windows of the run);
 *  - 429s the service returned (target 0: Loupe must never cause its own RATE_LIMITED /
 *    CONCURRENCY_LIMIT).
 * Time is sandbox time: the core's clock reads the sandbox clock and sleeps 1/timeScale of it.
 */
import { startSandbox } from '../src/sandbox/index';
import { createApiCore, Pacer, scaledClock } from '../src/core/api/index';
import { openArchive } from '../src/core/archive/index';
import { atLeast, type BenchContext, type Result } from './types';

export const name = 'pacing';

export async function run(ctx: BenchContext): Promise<Result[]> {
  const timeScale = ctx.quick ? 10 : 4; // lower scale: a round trip costs less sandbox time
  const walks = 10;
  const pagesPerWalk = ctx.quick ? 13 : 30; // 130 or 300 requests: 3 or 6 windows of 60 s
  const sb = await startSandbox({ port: 0, seed: 5, balance: 100_000_000, freeCalls: 0, timeScale });
  const clock = scaledClock(() => sb.admin.now(), timeScale);
  const archive = openArchive(':memory:', { clock: () => clock.now() });
  const limits = { requests: 60, windowSeconds: 60, maxInFlight: 10 };
  const pacer = new Pacer(clock, limits);
  const api = createApiCore({ baseUrl: sb.url, getKey: () => sb.key, store: archive, clock, limits, pacer });
  try {
    await api.catalogue.load();
    const starts: number[] = [];
    const offAttempt = api.events.on('attempt', () => starts.push(clock.now()));
    const t0 = clock.now();
    ctx.log(`pacing: ${walks} walks × ${pagesPerWalk} pages at 60/60 s, time scale ${timeScale}`);
    const results = await Promise.all(
      Array.from({ length: walks }, (_, i) =>
        api.walk(
          { platform: 'micro_net', endpoint: 'user/tweets', params: { handle: `pacing_bench_${i}` } },
          { maxPages: pagesPerWalk, source: 'bench', priority: 'background' },
        ),
      ),
    );
    const elapsed = clock.now() - t0;
    offAttempt();
    const n = results.reduce((s, r) => s + r.pagesDone, 0);
    const failed = results.filter((r) => r.status === 'failed').length;
    if (failed) ctx.log(`first failure: ${results.find((r) => r.error)?.error?.message}`);
    const stats = sb.admin.stats() as unknown as Record<string, unknown>;
    const limited = Number((stats.by_status as Record<string, number> | undefined)?.['429'] ?? 0);
    // the pacer decides when requests START: N starts cannot span less than floor((N−1)/R)·W
    const span = starts.length > 1 ? starts[starts.length - 1] - starts[0] : 0;
    const minimum = Math.floor((starts.length - 1) / limits.requests) * limits.windowSeconds * 1000;
    const efficiency = span > 0 ? minimum / span : null;
    // achieved per full window
    const fullWindows = Math.floor(elapsed / 60_000);
    const perWindow = fullWindows > 0 ? starts.filter((s) => s - t0 < fullWindows * 60_000).length / fullWindows / limits.requests : null;
    return [
      { metric: 'requests made', value: n, unit: 'req', note: `${walks} concurrent walks, ${failed} failed` },
      {
        metric: 'pacing efficiency (minimum ÷ actual span of starts)',
        value: efficiency,
        unit: 'x',
        target: '>= 0.98',
        ok: atLeast(efficiency, 0.98),
        note: `${(span / 1000).toFixed(1)} s sandbox time for ${starts.length} starts; end to end ${(elapsed / 1000).toFixed(1)} s`,
      },
      { metric: 'requests per full 60 s window ÷ allowed', value: perWindow, unit: 'x', target: '>= 0.98', ok: atLeast(perWindow, 0.98) },
      { metric: '429s returned by the service', value: limited, unit: '', target: '0', ok: limited === 0 },
    ];
  } finally {
    await api.close().catch(() => {});
    archive.close();
    await sb.close();
  }
}
