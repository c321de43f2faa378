/**
 * Forecasts and estimates: what a watchlist is expected to cost per run and per month (from its
 * history), what the next run is expected to need per watch, and what is left of the month's budget.
 */
import type { WatchlistInfo } from '../../shared/contract';
import { spendStop } from '../../shared/spend-policy';
import { maxPagesOf, priceOf } from '../api';
import type { ApiCore } from '../api';
import { intervalHours } from './schedule';
import { everyWords, spanWords } from '../../shared/durations';
import type { WatchlistRow, WatchRow, WatchStore } from '../archive';
import type { WatchEstimate, WatchParts } from './types';
import { DAY, fmt, HOUR } from './util';

export function forecastOf(
  parts: Pick<WatchParts, 'store' | 'clock'>,
  l: WatchlistRow,
  watches: WatchRow[],
): { forecast: WatchlistInfo['forecast']; note: string | null } {
  const { store, clock } = parts;
  const runs = store
    .runs(l.id, 200)
    .filter((r) => r.status !== 'running')
    .reverse();
  const withPages = runs.filter((r) => store.runWatches(r.runId).some((w) => w.pages > 0));
  if (watches.length === 0) return { forecast: null, note: 'No watches yet.' };
  if (withPages.length < 2)
    return {
      forecast: null,
      note: 'No history yet: a forecast needs two runs (a first run sets the baseline; the second measures how fast new items arrive).',
    };
  const first = withPages[0].startedAt;
  const last = withPages[withPages.length - 1].startedAt;
  const spanDays = (last - first) / DAY;
  // a rate measured over minutes extrapolates wildly: wait for runs at least an hour apart
  if (!(spanDays >= 1 / 24))
    return { forecast: null, note: 'The runs so far are less than an hour apart; a forecast needs runs spread over time.' };
  const iv = intervalHours(clock.now(), l, (last - first) / HOUR / (withPages.length - 1));
  if (!iv || !(iv > 0)) return { forecast: null, note: 'No schedule and no interval between runs to forecast from.' };
  const runIds = new Set(withPages.map((r) => r.runId));
  let perRunCredits = 0;
  let totalNew = 0;
  let totalPages = 0;
  let totalItems = 0;
  let totalCredits = 0;
  for (const w of watches) {
    const hist = store.watchHistory(w.watchId, 500).filter((h) => runIds.has(h.runId));
    const pages = hist.reduce((a, h) => a + h.pages, 0);
    const items = hist.reduce((a, h) => a + h.itemsSeen, 0);
    const credits = hist.reduce((a, h) => a + h.credits, 0);
    // new items that arrived between runs: what non-baseline runs found
    const arrived = hist.filter((h) => !h.firstRun).reduce((a, h) => a + h.newItems, 0);
    totalNew += arrived;
    totalPages += pages;
    totalItems += items;
    totalCredits += credits;
    const perDay = arrived / spanDays;
    const itemsPerPage = pages > 0 && items > 0 ? items / pages : null;
    const pricePerPage = pages > 0 ? credits / pages : null;
    if (pricePerPage === null) continue;
    const newPerRun = perDay * (iv / 24);
    const pagesPerRun = Math.max(1, itemsPerPage ? newPerRun / itemsPerPage : 1);
    perRunCredits += pagesPerRun * pricePerPage;
  }
  const runsPerMonth = (30 * 24) / iv;
  const newPerDay = totalNew / spanDays;
  const itemsPerPage = totalPages > 0 ? totalItems / totalPages : 0;
  const price = totalPages > 0 ? totalCredits / totalPages : 0;
  const basis =
    `${withPages.length} runs over ${spanWords(last - first)}: ${newPerDay.toFixed(1)} new items a day × ` +
    `${itemsPerPage > 0 ? (1 / itemsPerPage).toFixed(3) : '—'} pages per new item (≈${itemsPerPage.toFixed(0)} items a page, at least 1 page per watch per run) × ` +
    `${price.toFixed(1)} credits a page; a run ${everyWords(iv)} → ${runsPerMonth.toFixed(0)} runs in 30 days`;
  return {
    forecast: { perRunCredits: Math.round(perRunCredits), perMonthCredits: Math.round(perRunCredits * runsPerMonth), basis },
    note: null,
  };
}

export function monthStart(now: number): number {
  const d = new Date(now);
  return Date.UTC(d.getUTCFullYear(), d.getUTCMonth(), 1);
}

export function monthRemaining(parts: Pick<WatchParts, 'store' | 'clock'>, l: WatchlistRow): number | null {
  const { store, clock } = parts;
  if (l.budgetPerMonth === null) return null;
  return Math.max(0, l.budgetPerMonth - store.ledgerCredits(`watch:${l.id}`, monthStart(clock.now())));
}

/** Pages a watch is expected to need this run, and why. */
export function expectedPages(store: WatchStore, l: WatchlistRow, w: WatchRow): { pages: number; basis: string } {
  if (w.pendingWalkId) return { pages: 2, basis: 'an unfinished walk to complete (at least 1 page) then 1 head page' };
  if (w.lastCompleteAt === null) return { pages: l.firstRunPages, basis: `first run: ${l.firstRunPages} page(s) as the baseline` };
  const hist = store.watchHistory(w.watchId, 5).filter((h) => !h.firstRun && h.pages > 0);
  if (hist.length === 0) return { pages: 1, basis: 'no history yet: at least 1 page' };
  const avg = hist.reduce((a, h) => a + h.pages, 0) / hist.length;
  return { pages: Math.max(1, Math.ceil(avg)), basis: `history: ${avg.toFixed(1)} pages a run over the last ${hist.length} run(s)` };
}

export async function estimateFor(
  parts: Pick<WatchParts, 'store' | 'clock' | 'opts'>,
  l: WatchlistRow,
  api: ApiCore,
): Promise<WatchEstimate> {
  const { store, opts } = parts;
  const perWatch: WatchEstimate['perWatch'] = [];
  let min = 0;
  let max = 0;
  let requests = 0;
  for (const w of store.watches(l.id)) {
    const ep = api.catalogue.find(w.platform, w.endpoint);
    const e = expectedPages(store, l, w);
    const p = ep ? priceOf(ep) : { min: 0, max: 0 };
    const mp = maxPagesOf(w.params);
    const wMin = e.pages * p.min * mp;
    const wMax = e.pages * p.max * mp;
    perWatch.push({ watchId: w.watchId, pages: e.pages, creditsMin: wMin, creditsMax: wMax, basis: e.basis });
    min += wMin;
    max += wMax;
    requests += e.pages;
  }
  const monthLeft = monthRemaining(parts, l);
  // the spend policy (src/shared/spend-policy.ts): the per-run budget, then the month's, then —
  // only without a per-run budget — the user's ask threshold
  const stop = spendStop(max, { budget: l.budgetPerRun, monthLeft, askAbove: opts.askAboveCredits?.() ?? null, budgetReplacesAsk: true });
  let reason: string | null = null;
  if (stop?.why === 'budget')
    reason = `The estimate (${fmt(min)}–${fmt(max)} credits) exceeds the per-run budget of ${fmt(stop.limit)} credits; the budget still caps what the run spends.`;
  else if (stop?.why === 'month')
    reason = `The estimate (${fmt(min)}–${fmt(max)} credits) exceeds what is left of the month's budget (${fmt(stop.limit)} of ${fmt(l.budgetPerMonth ?? 0)} credits).`;
  else if (stop?.why === 'threshold')
    reason = `The estimate (${fmt(min)}–${fmt(max)} credits) is above your confirmation threshold of ${fmt(stop.limit)} credits.`;
  return {
    creditsMin: min,
    creditsMax: max,
    requests,
    etaMs: api.pacer.eta(requests, 'background'),
    balance: api.balance(),
    needsConfirmation: reason !== null,
    reason,
    perWatch,
    monthRemaining: monthLeft,
  };
}
