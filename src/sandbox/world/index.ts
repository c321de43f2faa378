/**
 * The sandbox's deterministic synthetic world. See docs/sandbox-world.md.
 */
import type { Platform, PostRecord } from '../../shared/api-types';
import type { World } from '../types';
import { HOSTILE_TEXTS, NICHES, NICHE_TAXONOMY, BRANDS } from './corpus';
import { judge } from './judge';
import { accountPostKind, buildPost, makeAccount, type Account } from './records';
import { handleFromHash } from './ids';
import { POST_NULL } from './platform-traits';
import { mix, mix3, unit } from './rng';
import { WorldImpl } from './world';

export const DEFAULT_EPOCH = Date.UTC(2026, 0, 1);

export function createWorld(seed: number, opts?: { epoch?: number; attrition?: boolean }): World & WorldImpl {
  return new WorldImpl(seed >>> 0, opts?.epoch ?? DEFAULT_EPOCH, opts?.attrition ?? true);
}

/** Hostile texts (with {brand}/{noun} placeholders left in) for tests of other parts. */
export const hostileTexts: readonly string[] = HOSTILE_TEXTS.map((t) =>
  t
    .replace(/\{brand2?\}/g, 'Brewly')
    .replace(/\{noun\}/g, 'grinder')
    .replace(/\{reason\}/g, 'it broke'),
);

export { NICHES, NICHE_TAXONOMY, BRANDS, POST_NULL };
export { judge, sentences, relevance, switchReceipts } from './judge';
export { reserved } from './identify';

export interface GenerateOptions {
  epoch?: number;
  /** Platforms to draw from (default: every network whose ids are 19-digit snowflakes or derived bijectively). */
  platforms?: Platform[];
  /** Label families written into computed.labels (default: the default post families). */
  families?: string[];
  /** Span of publish times ending at the epoch (default 2 years). */
  spanMs?: number;
}

const GEN_PLATFORMS: Platform[] = [
  'photo_net',
  'short_video_net',
  'social_net',
  'micro_net',
  'thread_net',
  'video_net',
  'forum_net',
  'open_micro_net',
  'cn_video_net',
  'short_video_net_b',
  'video_net_b',
  'work_net',
];

/**
 * A fast stream of distinct, realistic post items `{ post }` (with computed.labels), for
 * archive benchmarks. Publish times rise strictly with the index, so ids are unique.
 */
export function* generatePosts(seed: number, count: number, opts: GenerateOptions = {}): Generator<{ post: PostRecord }> {
  const epoch = opts.epoch ?? DEFAULT_EPOCH;
  const ctx = { seed: seed >>> 0, epoch };
  const platforms = opts.platforms ?? GEN_PLATFORMS;
  const families = opts.families ?? ['sponsored', 'intent', 'niche'];
  const span = opts.spanMs ?? 2 * 365 * 24 * 3_600_000;
  const step = Math.max(1, Math.floor(span / Math.max(1, count)));
  const start = epoch - step * count;
  const pools = new Map<Platform, Account[]>();
  const poolSize = 400;
  for (let i = 0; i < count; i++) {
    const h = mix3(ctx.seed, i, 0x6e6);
    const p = platforms[h % platforms.length];
    let pool = pools.get(p);
    if (!pool) {
      pool = [];
      pools.set(p, pool);
    }
    const ai = (h >>> 8) % poolSize;
    let a = pool[ai];
    if (!a) {
      a = makeAccount(ctx, p, handleFromHash(mix(ctx.seed ^ 0x9001, ai)));
      pool[ai] = a;
    }
    const t = start + i * step + Math.floor(unit(mix(h, 1)) * step);
    const b = buildPost(ctx, p, a, h, t, accountPostKind(a, i), { nulls: POST_NULL[p] }, false);
    const j = judge(ctx.seed, b.row, 'post', { families });
    b.rec.computed = { labels: j.labels };
    yield { post: b.rec };
  }
}
