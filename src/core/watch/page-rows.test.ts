/**
 * page-rows.ts on generated pages of a profile feed: pinned posts (older than most) at the top,
 * then posts newest first — with the pin state known, or unknown (`flags.pinned` null, as under
 * `trim=true`).
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { newestRow, stopEvidence, type PageRow } from './page-rows';

const row = (id: string, at: number | null, pinned: boolean | null): PageRow => ({
  platform: 'photo_net',
  kind: 'post',
  id,
  at,
  pinned,
  record: {},
});

/** A page: `pinned` pinned posts at the top (random times), then `posts` posts newest first. */
const page = fc
  .record({
    pinnedAt: fc.array(fc.integer({ min: 0, max: 10_000 }), { maxLength: 3 }),
    gaps: fc.array(fc.integer({ min: 1, max: 500 }), { minLength: 1, maxLength: 12 }),
    top: fc.integer({ min: 0, max: 12_000 }),
    known: fc.boolean(),
  })
  .map(({ pinnedAt, gaps, top, known }) => {
    const rows: PageRow[] = pinnedAt.map((at, i) => row(`p${i}`, at, known ? true : null));
    let at = top;
    gaps.forEach((g, i) => {
      rows.push(row(`n${i}`, at, known ? false : null));
      at -= g;
    });
    return { rows, known, pinnedCount: pinnedAt.length };
  });

describe('page-rows', () => {
  it('the newest row is the newest post in date order, never an older pinned post, whether the pin state is known or not', () => {
    fc.assert(
      fc.property(page, ({ rows, pinnedCount }) => {
        const posts = rows.slice(pinnedCount);
        const n = newestRow(rows);
        expect(n).not.toBeNull();
        // the newest post in date order, or a pinned post at least as new (then it is the newest post)
        expect((n as PageRow).at).toBeGreaterThanOrEqual(posts[0].at as number);
        expect(rows.every((r) => r.pinned === true || (r.at as number) <= ((n as PageRow).at as number))).toBe(true);
      }),
    );
  });

  it('a pinned post followed by a newer post never ends a walk; every post in date order can', () => {
    fc.assert(
      fc.property(page, ({ rows, known, pinnedCount }) => {
        const ev = new Set(stopEvidence(rows).map((r) => r.id));
        const posts = rows.slice(pinnedCount);
        for (const p of posts) expect(ev.has(p.id)).toBe(true);
        for (const p of rows.slice(0, pinnedCount)) {
          const newerAfter = rows.slice(rows.indexOf(p) + 1).some((r) => (r.at as number) > (p.at as number));
          if (known || newerAfter) expect(ev.has(p.id)).toBe(false);
        }
      }),
    );
  });

  it('rows without a time: the first row not known to be pinned is the newest, and they count as held', () => {
    const rows = [row('a', null, true), row('b', null, null), row('c', null, false)];
    expect(newestRow(rows)?.id).toBe('c');
    expect(newestRow([row('a', null, true), row('b', null, null)])?.id).toBe('b');
    expect(stopEvidence(rows).map((r) => r.id)).toEqual(['b', 'c']);
  });
});
