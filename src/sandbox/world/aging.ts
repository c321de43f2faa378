/**
 * Posts age as the sandbox clock moves (issue 29; docs/sandbox-world.md "Aging"): their engagement
 * grows along one curve of the post's age, and a share of posts and accounts become unavailable
 * (deleted, made private: the service answers not found). Pure in (seed, identity, clock − epoch),
 * and the identity below one hour after the epoch: a world whose clock has not been moved serves
 * exactly the figures it always did.
 *
 * The curve: the share of a post's engagement gathered by age a is
 *     W(a) = 1 − e^(−a/τ) + β · a / (a + T),   τ = 36 h (the burst), β = 0.3, T = 30 days (the tail).
 * A post published at or before the epoch shows its generated figures at the epoch (the reference
 * age r = max(age at the epoch, 6 h)) and grows by W(r + e) / W(r), e = the clock's hours past the
 * epoch (whole hours). A post published after the epoch starts at 0: its generated figures are what
 * it reaches at 7 days, and it shows them × W(age) / W(7 days), age in whole hours. Counts the
 * network does not give (null) stay null; comments and replies keep their figures (a comment's reply
 * count is its reply list's length).
 *
 * Unavailability, one draw per identity:
 *  - a post (by network and id) is removed with probability 8 %, at a time uniform over the 60 days
 *    after max(epoch, its publication), at least one hour past the epoch;
 *  - an account (by network and handle) goes private with probability 2 %, at a time uniform over
 *    the 120 days after the epoch, at least one day past it.
 * From then on the post (every post of the account) is not found by the single-item endpoints and
 * left out of every list; a private account's profile and own feeds are not found.
 */
import type { PostRecord } from '../../shared/api-types';
import type { WorldRow } from '../types';
import { DAY, HOUR, type WorldCtx } from './records';
import { hashStr, mix, unit } from './rng';

export const AGING = {
  burstMs: 36 * HOUR,
  tailShare: 0.3,
  tailMs: 30 * DAY,
  /** reference age of a post at most this young at the epoch */
  youngMs: 6 * HOUR,
  /** a post published after the epoch reaches its generated figures at this age */
  matureMs: 7 * DAY,
  /** the clock and ages are read in whole steps of this */
  stepMs: HOUR,
  removedShare: 0.08,
  removedWithinMs: 60 * DAY,
  privateShare: 0.02,
  privateWithinMs: 120 * DAY,
} as const;

/** Share of a post's engagement gathered by age `ms` (0 at 0, rising to 1 + tailShare). */
export function curve(ms: number): number {
  const a = Math.max(0, ms);
  return 1 - Math.exp(-a / AGING.burstMs) + (AGING.tailShare * a) / (a + AGING.tailMs);
}

const step = (ms: number): number => Math.floor(ms / AGING.stepMs) * AGING.stepMs;

/** The factor on a post's generated figures at `now` (1 when the clock has not moved an hour past the epoch). */
export function growthFactor(ctx: WorldCtx, publishedAt: number | null, now: number): number {
  if (publishedAt === null) return 1;
  const e = step(now - ctx.epoch);
  if (publishedAt <= ctx.epoch) {
    if (e <= 0) return 1;
    const r = Math.max(ctx.epoch - publishedAt, AGING.youngMs);
    return curve(r + e) / curve(r);
  }
  return curve(step(now - publishedAt)) / curve(AGING.matureMs);
}

const COUNTS = ['views', 'likes', 'comments', 'shares', 'saves'] as const;

/** A post record's engagement at `now`, in place (the caller's copy). Comments and replies keep theirs. */
export function growRecord(ctx: WorldCtx, rec: PostRecord, publishedAt: number | null, now: number): void {
  if (!rec.engagement || rec.parent_id || rec.kind === 'comment' || rec.kind === 'reply') return;
  const f = growthFactor(ctx, publishedAt, now);
  if (f === 1) return;
  const e = rec.engagement as Record<string, number | null>;
  for (const k of COUNTS) {
    const v = e[k];
    if (typeof v === 'number') e[k] = Math.floor(v * f);
  }
}

/** When a post (network, id) is removed, or null when it never is. */
export function removedAt(ctx: WorldCtx, platform: string, id: string, publishedAt: number | null): number | null {
  if (ctx.attrition === false) return null;
  const h = hashStr(`${platform}\u0002removed\u0002${id}`, ctx.seed);
  if (unit(h) >= AGING.removedShare) return null;
  const from = Math.max(ctx.epoch, publishedAt ?? ctx.epoch);
  return Math.max(ctx.epoch + AGING.stepMs, from + Math.floor(unit(mix(h, 7)) * AGING.removedWithinMs));
}

/** When an account (network, handle) goes private, or null when it never does. */
export function privateAt(ctx: WorldCtx, platform: string, handle: string): number | null {
  if (ctx.attrition === false) return null;
  const h = hashStr(`${platform}\u0002private\u0002${handle.replace(/^@+/, '').toLowerCase()}`, ctx.seed);
  if (unit(h) >= AGING.privateShare) return null;
  return ctx.epoch + DAY + Math.floor(unit(mix(h, 11)) * (AGING.privateWithinMs - DAY));
}

export function isPrivate(ctx: WorldCtx, platform: string, handle: string | null | undefined, now: number): boolean {
  if (!handle || now <= ctx.epoch) return false;
  const at = privateAt(ctx, platform, handle);
  return at !== null && now >= at;
}

/** Whether a post (or a private account's post) is gone at `now`. */
export function postGone(ctx: WorldCtx, platform: string, rec: PostRecord, publishedAt: number | null, now: number): boolean {
  if (now <= ctx.epoch || rec.parent_id || rec.kind === 'comment' || rec.kind === 'reply') return false;
  const at = removedAt(ctx, platform, rec.id, publishedAt);
  if (at !== null && now >= at) return true;
  return isPrivate(ctx, platform, rec.author?.username, now);
}

/** The row's post record, when it is one (`{post: …}` items). */
export function postOfRow(row: WorldRow): PostRecord | null {
  const rec = (row.item as Record<string, unknown>).post;
  return rec && typeof rec === 'object' ? (rec as PostRecord) : null;
}
