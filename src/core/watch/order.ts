/**
 * The order a run drives its watches in: the ones expected to need the most pages first.
 *
 * A watch that needs a second page can only ask for it after the first page's answer (the
 * cursor), so a two-page watch started late in a run makes the run's tail: its second page waits
 * for a free slot after everything else has gone. Starting the longest chains first (the
 * longest-processing-time rule) lets their later pages fill the slots other watches leave. The
 * order changes nothing but timing: every watch is still driven, with the same requests.
 *
 * What a watch is expected to need: its history where it has some (forecast.ts), else what its
 * held items say — the account's posting rate measured on the items the watch already holds
 * (their newest and oldest publication times) times the time since the newest, over the items a
 * page holds. A first refresh after a one-page baseline has no history, only that page.
 */

/** What the archive holds for one watch: its items in date order (pinned posts left out). */
export interface HeldSpan {
  watchId: string;
  /** items held, pinned posts left out */
  dated: number;
  /** pinned posts held (they sit at the head of every first page) */
  pinned: number;
  oldestAt: number | null;
  newestAt: number | null;
  /** items per page the watch's pages have carried (null: no page read yet) */
  perPage: number | null;
}

/**
 * Pages a watch is expected to need to reach what it holds, from the posting rate of the items
 * it holds; null when they cannot say (fewer than two dated items, or no page read yet).
 */
export function pagesFromRate(span: HeldSpan, now: number): number | null {
  const { dated, oldestAt, newestAt, perPage } = span;
  if (dated < 2 || oldestAt === null || newestAt === null || !perPage || perPage <= 0) return null;
  const spanMs = newestAt - oldestAt;
  if (!(spanMs > 0)) return null;
  const perMs = (dated - 1) / spanMs;
  const fresh = Math.max(0, perMs * Math.max(0, now - newestAt));
  // the page holding the newest held item is read too: it is where the walk stops
  return Math.max(1, Math.ceil((fresh + span.pinned + 1) / perPage));
}

/**
 * The watches in the order to drive them: most expected pages first; equal expectations keep
 * their list order (so a list of equal watches runs as it is shown).
 */
export function runOrder<W extends { watchId: string }>(watches: readonly W[], expected: ReadonlyMap<string, number>): W[] {
  return watches
    .map((w, i) => ({ w, i, pages: expected.get(w.watchId) ?? 1 }))
    .sort((a, b) => b.pages - a.pages || a.i - b.i)
    .map((x) => x.w);
}

/** Expected pages per watch: the larger of its history's estimate and its posting rate's. */
export function expectedByWatch(history: ReadonlyMap<string, number>, spans: readonly HeldSpan[], now: number): Map<string, number> {
  const out = new Map(history);
  for (const s of spans) {
    const rate = pagesFromRate(s, now);
    if (rate !== null) out.set(s.watchId, Math.max(out.get(s.watchId) ?? 1, rate));
  }
  return out;
}
