/** Aging (docs/sandbox-world.md "Aging"): growth along the curve, removals and private accounts, seeded. */
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startSandbox, type SandboxHandle } from '../index';
import { get } from '../conformance/helpers';
import { AGING, curve, growthFactor, isPrivate, removedAt } from './aging';
import { DAY, HOUR } from './records';
import { createWorld } from './index';
import { findEndpoint } from '../registry';

const EPOCH = Date.UTC(2026, 0, 1);
const ctx = { seed: 7, epoch: EPOCH };

describe('the growth curve', () => {
  it('is the identity until the clock is an hour past the epoch, and never shrinks a figure as the clock moves (generated)', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: -400 * 24, max: 30 * 24 }), // publication, hours from the epoch
        fc.integer({ min: 0, max: 200 * 24 * 60 }), // clock, minutes past the epoch
        fc.integer({ min: 0, max: 60 * 24 }), // a later clock, minutes further
        (pubH, nowMin, laterMin) => {
          const pub = EPOCH + pubH * HOUR;
          const now = Math.max(EPOCH + nowMin * 60_000, pub);
          if (pub <= EPOCH && now - EPOCH < HOUR) expect(growthFactor(ctx, pub, now)).toBe(1);
          expect(growthFactor(ctx, pub, now + laterMin * 60_000)).toBeGreaterThanOrEqual(growthFactor(ctx, pub, now));
        },
      ),
    );
    expect(curve(0)).toBe(0);
    expect(curve(7 * DAY)).toBeGreaterThan(0.95);
    // a post published after the epoch starts at 0 and reaches its generated figures at 7 days
    expect(growthFactor(ctx, EPOCH + DAY, EPOCH + DAY + 30 * 60_000)).toBe(0);
    expect(growthFactor(ctx, EPOCH + DAY, EPOCH + 8 * DAY)).toBeCloseTo(1, 10);
  });
});

describe('unavailability', () => {
  const ids = Array.from({ length: 20_000 }, (_, i) => String(7_000_000_000_000_000_000n + BigInt(i) * 7919n));
  it('removes the documented share of posts within 60 days of the epoch, the same ones for the same seed', () => {
    const at = ids.map((id) => removedAt(ctx, 'photo_net', id, EPOCH - 10 * DAY));
    const removed = at.filter((t) => t !== null) as number[];
    expect(removed.length / ids.length).toBeGreaterThan(AGING.removedShare - 0.01);
    expect(removed.length / ids.length).toBeLessThan(AGING.removedShare + 0.01);
    for (const t of removed) {
      expect(t).toBeGreaterThanOrEqual(EPOCH + HOUR);
      expect(t).toBeLessThanOrEqual(EPOCH + AGING.removedWithinMs);
    }
    expect(ids.map((id) => removedAt(ctx, 'photo_net', id, EPOCH - 10 * DAY))).toEqual(at);
    const other = ids.map((id) => removedAt({ ...ctx, seed: 8 }, 'photo_net', id, EPOCH - 10 * DAY));
    expect(other).not.toEqual(at);
  });

  it('makes the documented share of accounts private, none at the epoch', () => {
    const handles = Array.from({ length: 20_000 }, (_, i) => `acct${i}`);
    const later = handles.filter((h) => isPrivate(ctx, 'micro_net', h, EPOCH + AGING.privateWithinMs)).length / handles.length;
    expect(later).toBeGreaterThan(AGING.privateShare - 0.005);
    expect(later).toBeLessThan(AGING.privateShare + 0.005);
    expect(handles.some((h) => isPrivate(ctx, 'micro_net', h, EPOCH))).toBe(false);
  });

  it('is off with `attrition: false`: no account goes private and no post is removed, however far the clock moves', () => {
    const still = { ...ctx, attrition: false };
    const handles = Array.from({ length: 5_000 }, (_, i) => `acct${i}`);
    expect(handles.filter((h) => isPrivate(ctx, 'micro_net', h, EPOCH + AGING.privateWithinMs)).length).toBeGreaterThan(0);
    expect(handles.some((h) => isPrivate(still, 'micro_net', h, EPOCH + AGING.privateWithinMs))).toBe(false);
    expect(ids.some((id) => removedAt(still, 'photo_net', id, EPOCH - 10 * DAY) !== null)).toBe(false);
  });
});

describe('through the service', () => {
  let sb: SandboxHandle;
  beforeAll(async () => {
    sb = await startSandbox({ port: 0, seed: 3, epoch: EPOCH, timeScale: 1, freeCalls: 0, balance: 1_000_000 });
  });
  afterAll(() => sb.close());

  type Item = { post: { id: string; url: string; published_at: string; engagement: { likes: number | null } } };
  const LATER = EPOCH + 90 * DAY;
  const w = { seed: 3, epoch: EPOCH };
  const gone = (p: Item['post']): boolean => {
    const t = removedAt(w, 'photo_net', p.id, Date.parse(p.published_at));
    return t !== null && t <= LATER;
  };

  it('a post read again grows, a removed one is not found (free); the list leaves removed posts out', async () => {
    // an account whose first page at the epoch holds a post removed within 90 days (the world is seeded: same every run)
    const world = createWorld(3, { epoch: EPOCH });
    const def = findEndpoint('photo_net', 'profile/posts')!;
    const handle = Array.from({ length: 50 }, (_, i) => `aging.check${i}`).find((h) => {
      const f = world.feed({ def, params: { handle: h }, now: EPOCH });
      return 'rows' in f && f.rows.slice(0, 12).some((r) => gone(r.item.post as unknown as Item['post']));
    })!;
    const page = async (): Promise<Item[]> => {
      const r = await get(sb, `/v1/photo_net/profile/posts?handle=${handle}`);
      expect(r.status).toBe(200);
      return r.body.data.items as Item[];
    };
    const before = await page();
    sb.admin.advance((LATER - sb.admin.now()) / 1000);
    let removed = 0;
    let grew = 0;
    for (const it of before) {
      const r = await get(sb, `/v1/photo_net/post?url=${encodeURIComponent(it.post.url)}`);
      if (gone(it.post)) {
        removed++;
        expect(r.status).toBe(404);
        expect(r.body.error.type).toBe('RESOURCE_NOT_FOUND');
        expect(r.body.credits_used).toBe(0);
        continue;
      }
      expect(r.status).toBe(200);
      const was = it.post.engagement.likes;
      const is = (r.body.data.post as Item['post']).engagement.likes;
      if (was === null) continue;
      expect(is!).toBeGreaterThanOrEqual(was);
      if (is! > was) grew++;
    }
    expect(removed).toBeGreaterThan(0);
    expect(grew).toBeGreaterThan(0);
    // the list now: the world's rows without the removed ones (no private account among these)
    const f = world.feed({ def, params: { handle }, now: sb.admin.now() });
    const want = ('rows' in f ? f.rows : [])
      .filter((r) => !gone(r.item.post as unknown as Item['post']))
      .slice(0, 12)
      .map((r) => r.id);
    expect((await page()).map((it) => it.post.id)).toEqual(want);
  });
});
