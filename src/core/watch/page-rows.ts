/**
 * How a watch reads one page of its list (docs/watchlists.md "Pinned posts and unknown pin
 * states"): the rows, which of them may end a walk as "already held", and which is the newest.
 *
 * Pinned posts sit out of date order (spec "Incremental sync"): usually old posts at the top of
 * page 1. A record says whether it is pinned in `flags.pinned` — but that may be `null` (under
 * `trim=true` on photo_net feeds for every row, and on networks that do not expose it), so
 * nothing here may take an unknown pin state for "not pinned":
 * - the newest row is the one with the latest `published_at` among the rows not known to be
 *   pinned (an old pinned post at the top is never taken for the newest; a pinned post that IS the
 *   newest is a correct marker too: it is the newest post);
 * - a held row whose pin state is unknown ends the walk only where it stands in date order on its
 *   page: no row after it on the page is newer. An old pinned post at the top is followed by newer
 *   posts, so it never ends a walk; a held post in its place in the list does.
 */
import type { Envelope } from '../../shared/api-types';
import { readItems } from '../archive';
import type { PageItem } from '../archive';

export interface PageRow extends PageItem {
  /** `flags.pinned`: true, false, or null when the record does not say */
  pinned: boolean | null;
  /** `published_at` in ms, or null */
  at: number | null;
  record: Record<string, unknown>;
}

/** Items of a list answer, in page order, read the archive's way (same kinds and ids as its rows). */
export function pageRows(platform: string, env: Envelope, endpoint: string): PageRow[] {
  // the archive's own reading of a page (record kinds — comments are `comment` —, judgments beside
  // the record, stubs left out), so watch_items join the archive's rows on the same (kind, id)
  return readItems(env.data, endpoint).items.map((it) => {
    const flags = it.record.flags as { pinned?: unknown } | null | undefined;
    const pin = flags?.pinned;
    const pub = typeof it.record.published_at === 'string' ? Date.parse(it.record.published_at) : NaN;
    return {
      platform,
      kind: it.kind,
      id: it.id,
      record: it.record,
      pinned: typeof pin === 'boolean' ? pin : null,
      at: Number.isFinite(pub) ? pub : null,
    };
  });
}

/**
 * The rows of a page that may end a walk when the watch already held them: rows known not to be
 * pinned, and rows of unknown pin state that stand in date order (no later row on the page is
 * newer; a row without a time has nothing to go by and counts, as it always did).
 */
export function stopEvidence(rows: PageRow[]): PageRow[] {
  const out: PageRow[] = [];
  // the newest time among the rows after each row, from the end of the page
  let newestAfter = -Infinity;
  for (let i = rows.length - 1; i >= 0; i--) {
    const r = rows[i];
    if (r.pinned === false || (r.pinned === null && (r.at === null || r.at >= newestAfter))) out.push(r);
    if (r.at !== null && r.at > newestAfter) newestAfter = r.at;
  }
  return out.reverse();
}

/**
 * The newest row of a page for a chain's marker, or null: the latest `published_at` among rows not
 * known to be pinned (the first such row in page order on ties); without any time, the first row
 * not known to be pinned (a known non-pinned one first).
 */
export function newestRow(rows: PageRow[]): PageRow | null {
  let best: PageRow | null = null;
  for (const r of rows) {
    if (r.pinned === true || r.at === null) continue;
    if (best === null || (best.at as number) < r.at) best = r;
  }
  return best ?? rows.find((r) => r.pinned === false) ?? rows.find((r) => r.pinned === null) ?? null;
}

/** Whether `row` is newer than the chain's newest so far (id, time), so the chain's newest moves to it. */
export function newerThan(row: PageRow, newestId: string | null, newestAt: number | null): boolean {
  if (newestId === null) return true;
  return row.at !== null && (newestAt === null || row.at > newestAt);
}
