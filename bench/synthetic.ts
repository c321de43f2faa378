/**
 * Deterministic synthetic post records for benchmarks, shaped like the unified post record
 * (spec "Unified post record") with default post labels. Used when the sandbox world's
 * generator is not available, and to give every row a unique id either way.
 */
import { INTENT_VALUES, type PostRecord } from '../src/shared/api-types';
import { mulberry32 } from '../src/shared/random';

/** the one seeded generator (src/shared/random.ts), re-exported for the benchmarks that import it from here */
export { mulberry32 };

const SYL = ['ka', 'lo', 'mi', 'ne', 'ru', 'sa', 'to', 'vi', 'ze', 'bo', 'da', 'fe', 'gu', 'hi', 'jo', 'pe', 'qui', 'ra', 'shi', 'wu'];
/** 4,000 pseudo-words; picked with a skewed distribution so some are common, most rare */
export const VOCAB: string[] = (() => {
  const r = mulberry32(7);
  const out = new Set<string>();
  while (out.size < 4000) {
    const n = 2 + Math.floor(r() * 3);
    let w = '';
    for (let i = 0; i < n; i++) w += SYL[Math.floor(r() * SYL.length)];
    out.add(w);
  }
  return [...out];
})();

export const BENCH_PLATFORMS = ['photo_net', 'short_video_net', 'micro_net', 'forum_net', 'video_net'] as const;
const NICHES = ['food', 'fitness', 'travel', 'beauty', 'tech', 'gaming', 'finance', 'parenting', 'personal_no_niche', 'other'];
const KINDS = ['photo', 'short', 'video', 'text', 'carousel'];

export interface SyntheticItem {
  platform: string;
  record: PostRecord & { computed: NonNullable<PostRecord['computed']> };
}

/** Time span of published_at: two years ending at this instant. */
export const T_END = Date.UTC(2025, 0, 1);
export const T_SPAN = 2 * 365 * 86_400_000;

/** The i-th synthetic post (pure function of seed and i). Ids are 19-digit strings (> 2^53). */
export function syntheticPost(seed: number, i: number): SyntheticItem {
  const r = mulberry32(seed * 1_000_003 + i);
  const word = (): string => VOCAB[Math.floor(VOCAB.length * r() ** 3)];
  const nWords = 6 + Math.floor(r() * 30);
  const words: string[] = [];
  for (let k = 0; k < nWords; k++) words.push(word());
  if (r() < 0.3) words.push('#' + word());
  const platform = BENCH_PLATFORMS[i % BENCH_PLATFORMS.length];
  const author = Math.floor(r() ** 2 * 50_000);
  const likes = Math.floor(Math.exp(r() * 12));
  const id = (1_700_000_000_000_000_000n + BigInt(i)).toString();
  const intent = INTENT_VALUES[Math.floor(r() * INTENT_VALUES.length)];
  const sp = Math.round(r() * 1000) / 1000;
  return {
    platform,
    record: {
      id,
      url: `https://${platform}.example/p/${id}`,
      kind: KINDS[i % KINDS.length],
      parent_id: null,
      content: {
        text: words.join(' '),
        media_urls: r() < 0.5 ? [`https://cdn.example/${id}/0.jpg`] : null,
        thumbnail_url: null,
        duration_seconds: i % 5 === 1 ? Math.round(r() * 900) / 10 : null,
      },
      author: {
        id: (9_100_000_000_000_000_000n + BigInt(author)).toString(),
        username: `user_${author}`,
        display_name: `User ${author}`,
        avatar_url: null,
        verified: r() < 0.05,
        followers: Math.floor(Math.exp(r() * 14)),
      },
      engagement: {
        views: platform === 'forum_net' ? null : likes * (5 + Math.floor(r() * 50)),
        likes,
        comments: Math.floor(likes * r() * 0.1),
        shares: platform === 'photo_net' ? null : Math.floor(likes * r() * 0.05),
        saves: null,
      },
      flags: {
        nsfw: false,
        spoiler: null,
        pinned: r() < 0.01,
        likes_hidden: null,
        comments_hidden: null,
        shares_hidden: null,
        views_hidden: null,
        saves_hidden: null,
        deleted: false,
      },
      published_at: new Date(T_END - Math.floor(r() * T_SPAN)).toISOString().replace(/\.\d{3}Z$/, 'Z'),
      language: r() < 0.8 ? 'en' : 'pt-BR',
      ext: null,
      computed: {
        labels: {
          sponsored: {
            p: sp,
            disclosed: sp > 0.8 && r() < 0.5,
            undisclosed: sp > 0.8,
            brand: sp > 0.8 ? `brand_${Math.floor(r() * 200)}` : null,
          },
          intent: {
            label: intent,
            confidence: Math.round(r() * 100) / 100,
            buyer: r() < 0.3,
            seller: r() < 0.2,
            urgency: Math.floor(r() * 4),
            fits_offer: null,
          },
          niche: { label: NICHES[Math.floor(r() * NICHES.length)], confidence: Math.round(r() * 100) / 100, taxonomy: 'v1' },
        },
        relevance: null,
      },
    },
  };
}

/** Batches of synthetic posts [start, start+count). */
export function* syntheticBatches(seed: number, count: number, batch: number): Generator<SyntheticItem[]> {
  for (let s = 0; s < count; s += batch) {
    const n = Math.min(batch, count - s);
    const out: SyntheticItem[] = new Array(n);
    for (let k = 0; k < n; k++) out[k] = syntheticPost(seed, s + k);
    yield out;
  }
}
