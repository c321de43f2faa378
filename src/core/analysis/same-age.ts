/**
 * Overperformance "at the same age" (issue 29; docs/analysis.md "Overperformance at the same age"),
 * CrowdTangle's benchmark: a post's engagement at an age compared with the account's earlier posts
 * at that same age, so a post read two hours after publication is not compared with posts read a
 * month after theirs.
 *
 *  - The age: `ageHours` when given; otherwise each post's age at its latest reading.
 *  - A post's engagement at an age A (likes + comments + shares + saves, known counts only) is read
 *    from its metric history: the readings as points (age, engagement), plus (0, 0) at publication; a
 *    reading at exactly A is taken as it is, an age between two points is interpolated linearly, an
 *    age after the last reading has no value (nothing is extrapolated: the post was not seen that old).
 *  - The baseline: walking back from the post through the account's earlier posts (same platform and
 *    record kind, by publication time), the first `baseline` that have a value at A; their median.
 *    No score with fewer than `minBaseline` of them, a median of 0, or no value for the post itself.
 *
 * Limits with sparse readings: an earlier post read only once, when already older than A, gets its
 * value at A from the line between (0, 0) and that reading. Engagement grows fastest just after
 * publication, so that line lies below the true curve and the baseline is underestimated — young
 * posts then look like overperformers. Each row says how many of its baseline values came from such
 * a line (`fromZero`); re-check the account's posts over time (docs/datasets.md) for readings that
 * bracket the ages compared, or compare at a fixed `ageHours` the earlier posts were read near.
 */
import {
  engagementOf,
  overperformanceInputSchema,
  type Overperformance,
  type OverperformanceInput,
  type OverperformanceRow,
  type PostBrief,
} from '../../shared/analysis';
import type { AccountPost, Archive } from '../archive';
import { parseQuery, type AuthoredPost } from '../archive';
import { baseQuery } from './frequency';

const HOUR = 3_600_000;

/** A post's engagement at `age` ms, and whether the value came from the line from publication (0, 0). */
export function engagementAtAge(
  p: Pick<AccountPost, 'publishedAt' | 'readings'>,
  age: number,
): { value: number; fromZero: boolean } | null {
  if (age < 0) return null;
  let prevAge = 0;
  let prevE = 0;
  let zero = true;
  for (const r of p.readings) {
    const e = engagementOf(r);
    if (e === null) continue;
    const a = r.readAt - p.publishedAt;
    if (a < 0) continue; // read before its publication time (a clock skew): not a point of the curve
    if (a === age) return { value: e, fromZero: false };
    if (a > age) {
      const v = prevE + ((e - prevE) * (age - prevAge)) / (a - prevAge);
      return { value: v, fromZero: zero };
    }
    prevAge = a;
    prevE = e;
    zero = false;
  }
  return null;
}

/** The post's latest reading with a known engagement: its age and value. */
function latest(p: AccountPost): { age: number; value: number } | null {
  for (let k = p.readings.length - 1; k >= 0; k--) {
    const e = engagementOf(p.readings[k]);
    if (e !== null) return { age: p.readings[k].readAt - p.publishedAt, value: e };
  }
  return null;
}

function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  const m = s.length >> 1;
  return s.length % 2 ? s[m] : (s[m - 1] + s[m]) / 2;
}

/** The fields of a post an overperformance row shows (both methods). */
export function brief(p: PostBrief): PostBrief {
  return {
    platform: p.platform,
    kind: p.kind,
    id: p.id,
    publishedAt: p.publishedAt,
    author: p.author,
    text: p.text,
    url: p.url,
    views: p.views,
    engagement: p.engagement,
  };
}

export function overperformanceAtSameAge(archive: Archive, input: OverperformanceInput): Overperformance {
  const i = overperformanceInputSchema.parse(input);
  const targets = archive.authoredPosts(baseQuery(parseQuery(i.query)));
  const accounts = byAccount(targets);
  const rows: OverperformanceRow[] = [];
  let unscored = 0;
  for (const [key, posts] of accounts) {
    const p0 = posts[0];
    const all = archive.datasets.accountReadings(p0.authorId, p0.username, p0.platform, p0.kind);
    const at = new Map(all.map((p, k) => [p.rid, k]));
    for (const p of posts) {
      const k = at.get(p.rid);
      const own = k === undefined ? null : all[k];
      const target = own === null ? null : i.ageHours !== undefined ? engagementAtAge(own, i.ageHours * HOUR) : latest(own);
      if (k === undefined || own === null || target === null) {
        unscored++;
        continue;
      }
      const age = i.ageHours !== undefined ? i.ageHours * HOUR : (target as { age: number }).age;
      const values: number[] = [];
      let fromZero = 0;
      for (let j = k - 1; j >= 0 && values.length < i.baseline; j--) {
        const v = engagementAtAge(all[j], age);
        if (v === null) continue;
        values.push(v.value);
        if (v.fromZero) fromZero++;
      }
      const m = values.length ? median(values) : 0;
      if (values.length < i.minBaseline || m === 0) {
        unscored++;
        continue;
      }
      rows.push({
        ...brief(p),
        authorKey: key.split('\u0000').slice(2).join(''),
        baselineMedian: m,
        baselinePosts: values.length,
        score: target.value / m,
        ageMs: age,
        engagementAtAge: target.value,
        fromZero,
      });
    }
  }
  rows.sort((a, b) => (i.dir === 'desc' ? b.score - a.score : a.score - b.score) || (a.id < b.id ? -1 : 1));
  return { scored: rows.length, unscored, rows: rows.slice(0, i.limit) };
}

/** Posts grouped by their account (network, kind, author id or else handle), in the order first met. */
export function byAccount<T extends AuthoredPost>(posts: T[]): Map<string, T[]> {
  const accounts = new Map<string, T[]>();
  for (const t of posts) {
    const key = `${t.platform}\u0000${t.kind}\u0000${t.authorId ?? '@' + (t.username ?? '').toLowerCase()}`;
    const list = accounts.get(key);
    if (list) list.push(t);
    else accounts.set(key, [t]);
  }
  return accounts;
}
