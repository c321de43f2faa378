/**
 * What a finished run raises (issue 27 #1): an inbox row when new items match the list's alert
 * conditions (`labels`) and one when the run found far more new items than the list's own history
 * expects (`spike`); then the desktop notification (scheduled runs) and the configured deliveries
 * (webhook, e-mail: src/core/watch/alert-delivery.ts). A delivery that fails is logged and said; the
 * alert stays in the inbox either way.
 */
import { randomUUID } from 'node:crypto';
import { conditionText } from '../../shared/alert-words';
import type { RunRow, WatchlistRow, WatchStore } from '../archive';
import type { RaisedAlert, WatchParts } from './types';
import { fmt } from './util';

const HOUR = 3_600_000;
/** a spike: at least this many times the expected new items … */
export const SPIKE_FACTOR = 3;
/** … and at least this many more than expected (a list that expects 1 and gets 3 is no spike) */
export const SPIKE_MIN_EXTRA = 10;

/**
 * New items the list's history expects for a run that starts at `at`: what its earlier runs found
 * after their baselines, per hour between the first and the last of them, times the hours since
 * the last. Null without two earlier runs with pages at least an hour apart.
 */
export function expectedNew(store: WatchStore, listId: string, runId: string, at: number): number | null {
  const earlier = store
    .runs(listId, 200)
    .filter((r) => r.runId !== runId && r.status !== 'running' && r.startedAt < at)
    .reverse()
    .map((r) => ({ r, watches: store.runWatches(r.runId) }))
    .filter((x) => x.watches.some((w) => w.pages > 0));
  if (earlier.length < 2) return null;
  const first = earlier[0].r.startedAt;
  const last = earlier[earlier.length - 1].r.startedAt;
  if (last - first < HOUR) return null;
  const arrived = earlier.slice(1).reduce((a, x) => a + x.watches.filter((w) => !w.firstRun).reduce((b, w) => b + w.newItems, 0), 0);
  return (arrived / (last - first)) * (at - last);
}

/** New items of the run past its baselines (a watch's first run reads what exists: no spike). */
function arrivedIn(store: WatchStore, runId: string): number {
  return store
    .runWatches(runId)
    .filter((w) => !w.firstRun)
    .reduce((a, w) => a + w.newItems, 0);
}

function sampleOf(items: Array<{ text: string | null; id: string }>): string[] {
  return items.slice(0, 3).map((a) => (a.text ?? a.id).replace(/\s+/g, ' ').slice(0, 100));
}

/** The inbox rows of a finished run (stored), labels first. */
export function raiseAlerts(
  store: WatchStore,
  l: WatchlistRow,
  run: RunRow,
  matches: Array<{ text: string | null; id: string }>,
  at: number,
  email = false,
): RaisedAlert[] {
  const out: RaisedAlert[] = [];
  // to be e-mailed when an SMTP server is set now (alert-email.ts; a failure is retried on later runs)
  const mail = email ? { email: { state: 'pending' as const, error: null, tries: 0, at: null } } : {};
  const base = { watchlistId: l.id, runId: run.runId, at, readAt: null, listName: l.name, ...mail };
  if (matches.length > 0 && l.alert?.length) {
    const summary = `${fmt(matches.length)} new item${matches.length === 1 ? '' : 's'} in “${l.name}” match the alert (${conditionText(l.alert)}).`;
    const itemList = matches.slice(0, 20).map((m) => ({ id: m.id, text: m.text === null ? null : m.text.slice(0, 500) }));
    out.push({
      ...base,
      alertId: randomUUID(),
      kind: 'labels',
      items: matches.length,
      expected: null,
      summary,
      sample: sampleOf(matches),
      itemList,
    });
  }
  const expected = run.status === 'cancelled' ? null : expectedNew(store, l.id, run.runId, run.startedAt);
  const arrived = arrivedIn(store, run.runId);
  if (expected !== null && arrived >= SPIKE_FACTOR * expected && arrived - expected >= SPIKE_MIN_EXTRA) {
    const summary = `${fmt(arrived)} new items in “${l.name}” in one run, where its history expects about ${fmt(Math.round(expected))}.`;
    out.push({ ...base, alertId: randomUUID(), kind: 'spike', items: arrived, expected, summary, sample: [] });
  }
  for (const a of out) {
    const { listName: _n, sample: _s, ...row } = a;
    store.alerts.insert(row);
  }
  return out;
}

/**
 * After a finished run: the inbox rows, the desktop notification (scheduled runs), the deliveries
 * (`delivered` settles when they are done or failed: a command-line run waits for it before exiting).
 */
export function announce(
  parts: WatchParts,
  l: WatchlistRow,
  run: RunRow,
  trigger: string,
  matches: Array<{ text: string | null; id: string }>,
): { raised: RaisedAlert[]; delivered: Promise<void> } {
  const { opts } = parts;
  const raised = raiseAlerts(parts.store, l, run, matches, parts.clock.now(), opts.willEmail?.() ?? false);
  if (raised.length > 0 && trigger === 'schedule' && opts.notify) {
    for (const a of raised)
      opts.notify(
        `Loupe · ${l.name}: ${a.kind === 'spike' ? 'a spike of new items' : `${a.items} new item(s) match the alert`}`,
        a.sample.length ? a.sample.map((s) => `• ${s}`).join('\n') : a.summary,
      );
  }
  // after every run, also one that raised nothing: alerts an earlier run could not e-mail go now
  const delivered = opts.deliver
    ? opts.deliver(raised).catch((e: unknown) => parts.log(`watch: alert delivery failed: ${e instanceof Error ? e.message : String(e)}`))
    : Promise.resolve();
  return { raised, delivered };
}
