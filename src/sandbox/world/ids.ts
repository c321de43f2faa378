/**
 * Ids and URLs of the synthetic networks. Ids are strings, always. Most post and comment ids
 * are 19-digit snowflakes (> 2^53) built from the publish time plus 22 hashed bits, so they are
 * unique per (platform, kind) as long as two rows never share both millisecond and hash bits.
 */
import type { Platform } from '../../shared/api-types';
import { mix, Rng, token } from './rng';

const TW_EPOCH = 1288834974657n;

/** 19-digit snowflake id string from a time (ms) and 22 low bits. */
export function snowflake(ms: number, low: number): string {
  return (((BigInt(Math.max(0, Math.floor(ms))) - TW_EPOCH) << 22n) | BigInt(low & 0x3fffff)).toString();
}

export const DOMAIN: Record<Platform, string> = {
  photo_net: 'photo-net.example',
  short_video_net: 'short-video-net.example',
  social_net: 'social-net.example',
  work_net: 'work-net.example',
  micro_net: 'micro-net.example',
  thread_net: 'thread-net.example',
  video_net: 'video-net.example',
  forum_net: 'forum-net.example',
  pin_net: 'pin-net.example',
  open_micro_net: 'open-micro-net.example',
  cn_video_net: 'cn-video-net.example',
  short_video_net_b: 'short-video-net-b.example',
  qa_net: 'qa-net.example',
  stream_net: 'stream-net.example',
  video_net_b: 'video-net-b.example',
};

export function profileUrl(p: Platform, handle: string): string {
  const d = DOMAIN[p];
  switch (p) {
    case 'short_video_net':
    case 'short_video_net_b':
    case 'thread_net':
    case 'video_net':
      return `https://${d}/@${handle}`;
    case 'work_net':
      return `https://${d}/in/${handle}`;
    case 'forum_net':
      return `https://${d}/user/${handle}`;
    case 'open_micro_net':
      return `https://${d}/profile/${handle}`;
    case 'qa_net':
      return `https://${d}/profile/${handle}`;
    default:
      return `https://${d}/${handle}`;
  }
}

/** Numeric user id (string). `long` gives 17-19 digits. */
export function userId(p: Platform, h: number): string {
  const a = mix(h, 11);
  const b = mix(h, 12);
  switch (p) {
    case 'work_net':
      return 'ACoAA' + token(a, b, 20, 'b62');
    case 'video_net':
      return 'UC' + token(a, b, 22, 'b64');
    case 'forum_net':
      return 't2_' + token(a, b, 8, 'b36');
    case 'open_micro_net':
      return 'did:plc:' + token(a, b, 24, 'b36');
    case 'video_net_b':
      return 'x' + token(a, b, 7, 'b36');
    case 'micro_net':
    case 'short_video_net':
    case 'thread_net':
    case 'cn_video_net':
      // newer accounts have 19-digit ids, older ones short ones
      return a % 3 === 0 ? String(100000 + (a % 900000000)) : snowflake(1400000000000 + (b % 3.5e11), a);
    case 'social_net':
      return '1000' + String(10000000000 + (a % 89999999999)).padStart(11, '0');
    default:
      return String(1000000 + (a % 2000000000)) + String(b % 100).padStart(2, '0');
  }
}

/** Post id for a platform from its snowflake. */
export function postIdFrom(p: Platform, flake: string, h: number): string {
  switch (p) {
    case 'video_net':
      return shortcode(flake).padStart(11, 'A').slice(-11);
    case 'forum_net':
      return BigInt(flake).toString(36);
    case 'open_micro_net':
      return '3l' + BigInt(flake).toString(32).padStart(11, '2');
    case 'video_net_b':
      return 'x' + BigInt(flake).toString(36);
    case 'qa_net':
      return String(BigInt(flake) >> 30n);
    case 'pin_net':
      return String(BigInt(flake) / 10n);
    case 'stream_net':
      return (
        ['Brave', 'Lazy', 'Tiny', 'Epic', 'Sneaky', 'Happy'][h % 6] +
        ['Otter', 'Panda', 'Moose', 'Falcon', 'Koala'][(h >>> 4) % 5] +
        '-' +
        BigInt(flake).toString(36)
      );
    default:
      return flake;
  }
}

/** Photo-network shortcode from a media id (like the real base64 encoding of the id). */
export function shortcode(flake: string): string {
  const A = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_';
  const n = BigInt(flake);
  // 64-bit value as two 32-bit halves, emitted 6 bits at a time (hi 32 bits then lo 32 bits).
  let hi = Number(n >> 32n);
  let lo = Number(n & 0xffffffffn);
  let s = '';
  for (let k = 0; k < 6; k++) {
    s = A[lo & 63] + s;
    lo = Math.floor(lo / 64);
  }
  while (hi > 0) {
    s = A[hi & 63] + s;
    hi = Math.floor(hi / 64);
  }
  return s;
}

export function slug(text: string): string {
  return (
    text
      .toLowerCase()
      .replace(/[^a-z0-9]+/g, '_')
      .replace(/^_+|_+$/g, '')
      .slice(0, 40) || 'post'
  );
}

export function postUrl(
  p: Platform,
  id: string,
  handle: string,
  kind: string,
  text: string,
  extra?: { sub?: string; activity?: string },
): string {
  const d = DOMAIN[p];
  switch (p) {
    case 'photo_net':
      return `https://${d}/${kind === 'reel' ? 'reel' : 'p'}/${shortcode(id)}/`;
    case 'short_video_net':
    case 'short_video_net_b':
      return `https://${d}/@${handle}/video/${id}`;
    case 'social_net':
      return `https://${d}/${handle}/posts/${id}`;
    case 'work_net':
      return `https://${d}/feed/update/urn:li:activity:${extra?.activity ?? id}/`;
    case 'micro_net':
      return `https://${d}/${handle}/status/${id}`;
    case 'thread_net':
      return `https://${d}/@${handle}/post/${shortcode(id)}`;
    case 'video_net':
      return kind === 'short' ? `https://${d}/shorts/${id}` : `https://${d}/watch?v=${id}`;
    case 'forum_net':
      return `https://${d}/r/${extra?.sub ?? 'all'}/comments/${id}/${slug(text)}/`;
    case 'pin_net':
      return `https://${d}/pin/${id}/`;
    case 'open_micro_net':
      return `https://${d}/profile/${handle}/post/${id}`;
    case 'cn_video_net':
      return `https://${d}/video/${id}`;
    case 'qa_net':
      return `https://${d}/questions/${id}/${slug(text)}`;
    case 'stream_net':
      return `https://${d}/${handle}/clip/${id}`;
    case 'video_net_b':
      return `https://${d}/video/${id}`;
  }
}

/** An account handle (name, separator, word, number) drawn from a hash. */
export function handleFromHash(h: number): string {
  const r = new Rng(mix(h, 0xacc));
  const a = r.pick([
    'ana',
    'ben',
    'chloe',
    'dmitri',
    'emeka',
    'fatima',
    'gabi',
    'hana',
    'ivan',
    'jia',
    'kofi',
    'lucia',
    'mateo',
    'noa',
    'priya',
    'rafa',
    'sofia',
    'tomas',
    'wei',
    'yusuf',
    'zoe',
    'the.real',
    'just',
  ]);
  const b = r.pick([
    'daily',
    'studio',
    'eats',
    'life',
    'travels',
    'codes',
    'lifts',
    'reads',
    'glow',
    'makes',
    'grows',
    'plays',
    'notes',
    'home',
    'fit',
    '',
  ]);
  return a + r.pick(['', '_', '.']) + b + String(r.range(1, 99999));
}
