/**
 * What each network's records are like in the synthetic world: the fields it never provides (null,
 * listed in `unavailable`), the kinds of post it serves and how often, the languages and forum subs
 * drawn from. records.ts builds the records (and nulls those fields: applyNull).
 */
import type { Platform } from '../../shared/api-types';
import { unit } from './rng';

// ---------------------------------------------------------------------------------------------
// Platform traits
// ---------------------------------------------------------------------------------------------

const FLAGS_NULL_COMMON = ['flags.spoiler', 'flags.shares_hidden', 'flags.saves_hidden', 'flags.views_hidden'];

/** Fields each network never provides on posts (always null, listed in `unavailable`). */
// prettier-ignore
export const POST_NULL: Record<Platform, string[]> = {
  photo_net: ['engagement.shares', 'engagement.saves', 'language', ...FLAGS_NULL_COMMON],
  short_video_net: [...FLAGS_NULL_COMMON, 'flags.likes_hidden'],
  social_net: ['engagement.shares', 'engagement.views', 'engagement.saves', 'language', 'flags.nsfw', ...FLAGS_NULL_COMMON],
  work_net: ['engagement.views', 'engagement.saves', 'flags.nsfw', 'flags.likes_hidden', 'flags.comments_hidden', ...FLAGS_NULL_COMMON],
  micro_net: ['flags.likes_hidden', ...FLAGS_NULL_COMMON],
  thread_net: ['engagement.views', 'engagement.saves', 'flags.nsfw', ...FLAGS_NULL_COMMON],
  video_net: ['engagement.shares', 'engagement.saves', ...FLAGS_NULL_COMMON],
  forum_net: ['engagement.views', 'engagement.shares', 'engagement.saves', 'flags.likes_hidden', 'flags.shares_hidden', 'flags.saves_hidden', 'flags.views_hidden'],
  pin_net: ['engagement.views', 'engagement.likes', 'engagement.shares', 'language', 'flags.likes_hidden', 'flags.comments_hidden', ...FLAGS_NULL_COMMON],
  open_micro_net: ['engagement.views', 'engagement.saves', 'flags.likes_hidden', 'flags.comments_hidden', ...FLAGS_NULL_COMMON],
  cn_video_net: ['flags.likes_hidden', 'flags.pinned', ...FLAGS_NULL_COMMON],
  short_video_net_b: ['engagement.saves', 'language', 'flags.likes_hidden', ...FLAGS_NULL_COMMON],
  qa_net: ['engagement.likes', 'engagement.shares', 'engagement.saves', 'content.thumbnail_url', 'content.duration_seconds', 'flags.nsfw', 'flags.pinned', 'flags.likes_hidden', 'flags.comments_hidden', ...FLAGS_NULL_COMMON],
  stream_net: ['engagement.likes', 'engagement.comments', 'engagement.shares', 'engagement.saves', 'flags.pinned', 'flags.likes_hidden', 'flags.comments_hidden', ...FLAGS_NULL_COMMON],
  video_net_b: ['engagement.shares', 'engagement.saves', 'flags.likes_hidden', ...FLAGS_NULL_COMMON],
};

/** Comments never carry views/shares/saves or media duration anywhere. */
export function commentNull(p: Platform): string[] {
  const base = [
    'engagement.views',
    'engagement.shares',
    'engagement.saves',
    'content.thumbnail_url',
    'content.duration_seconds',
    'flags.nsfw',
    ...FLAGS_NULL_COMMON,
    'flags.likes_hidden',
    'flags.comments_hidden',
  ];
  if (POST_NULL[p].includes('language')) base.push('language');
  return base;
}

const KINDS: Record<Platform, Array<[string, number]>> = {
  photo_net: [
    ['photo', 0.45],
    ['carousel', 0.25],
    ['reel', 0.3],
  ],
  short_video_net: [
    ['short', 0.95],
    ['carousel', 0.05],
  ],
  social_net: [
    ['text', 0.3],
    ['photo', 0.3],
    ['video', 0.12],
    ['reel', 0.13],
    ['link', 0.15],
  ],
  work_net: [
    ['text', 0.4],
    ['photo', 0.25],
    ['video', 0.1],
    ['document', 0.1],
    ['article', 0.15],
  ],
  micro_net: [
    ['text', 0.6],
    ['photo', 0.25],
    ['video', 0.15],
  ],
  thread_net: [
    ['text', 0.7],
    ['photo', 0.2],
    ['video', 0.1],
  ],
  video_net: [
    ['video', 0.7],
    ['short', 0.3],
  ],
  forum_net: [
    ['text', 0.6],
    ['link', 0.2],
    ['photo', 0.15],
    ['video', 0.05],
  ],
  pin_net: [
    ['photo', 0.85],
    ['video', 0.15],
  ],
  open_micro_net: [
    ['text', 0.75],
    ['photo', 0.25],
  ],
  cn_video_net: [
    ['short', 0.85],
    ['video', 0.15],
  ],
  short_video_net_b: [['short', 1]],
  qa_net: [['question', 1]],
  stream_net: [['clip', 1]],
  video_net_b: [['video', 1]],
};

export function kindFor(p: Platform, h: number): string {
  const u = unit(h);
  let acc = 0;
  for (const [k, w] of KINDS[p]) {
    acc += w;
    if (u < acc) return k;
  }
  return KINDS[p][0][0];
}

export const VIDEO_KINDS = new Set(['reel', 'short', 'video', 'clip']);
export const LANGS = ['en', 'en', 'en', 'en', 'en', 'en', 'pt-BR', 'es', 'de', 'ar', 'he', 'ja'];
export const SUBS = [
  'BuyItForLife',
  'SkincareAddiction',
  'coffee',
  'personalfinance',
  'gadgets',
  'CampingGear',
  'Frugal',
  'fitness',
  'webdev',
  'travel',
  'pets',
  'HomeImprovement',
];
