/**
 * The alert inbox's table (migration 0017-watch-alerts, issue 27 #1): what a watchlist run raised,
 * in which run of which list, read or not. Reached as `archive.watchlists.alerts`.
 */
import type { ArchiveCtx } from './context';

export type AlertKind = 'labels' | 'spike';

export interface AlertRow {
  alertId: string;
  watchlistId: string;
  runId: string;
  kind: AlertKind;
  at: number;
  /** labels: the new items that matched; spike: the new items of the run */
  items: number;
  /** spike: the new items the list's history expected for the run */
  expected: number | null;
  summary: string;
  readAt: number | null;
}

interface AlertDb {
  alert_id: string;
  watchlist_id: string;
  run_id: string;
  kind: AlertKind;
  at: number;
  items: number;
  expected: number | null;
  summary: string;
  read_at: number | null;
}

const fromDb = (r: AlertDb): AlertRow => ({
  alertId: r.alert_id,
  watchlistId: r.watchlist_id,
  runId: r.run_id,
  kind: r.kind,
  at: r.at,
  items: r.items,
  expected: r.expected,
  summary: r.summary,
  readAt: r.read_at,
});

export class WatchAlertStore {
  constructor(private readonly c: ArchiveCtx) {}

  insert(a: AlertRow): void {
    this.c
      .st('INSERT INTO watch_alerts (alert_id, watchlist_id, run_id, kind, at, items, expected, summary, read_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)')
      .run(a.alertId, a.watchlistId, a.runId, a.kind, a.at, a.items, a.expected, a.summary, a.readAt);
  }

  /** Newest first; only the unread ones when asked. */
  list(o: { unreadOnly?: boolean; limit?: number } = {}): AlertRow[] {
    const where = o.unreadOnly ? 'WHERE read_at IS NULL' : '';
    return (this.c.st(`SELECT * FROM watch_alerts ${where} ORDER BY at DESC, rowid DESC LIMIT ?`).all(o.limit ?? 200) as AlertDb[]).map(fromDb);
  }

  unread(): number {
    return (this.c.st('SELECT count(*) AS n FROM watch_alerts WHERE read_at IS NULL').get() as { n: number }).n;
  }

  /** Marks these alerts read (or unread: `at` null); returns how many changed. */
  setRead(ids: string[], at: number | null): number {
    const st = this.c.st(at === null ? 'UPDATE watch_alerts SET read_at = NULL WHERE alert_id = ? AND read_at IS NOT NULL' : 'UPDATE watch_alerts SET read_at = ? WHERE alert_id = ? AND read_at IS NULL');
    return this.c.tx(() => ids.reduce((n, id) => n + (at === null ? st.run(id) : st.run(at, id)).changes, 0));
  }

  /** Every unread alert marked read; returns how many. */
  readAll(at: number): number {
    return this.c.st('UPDATE watch_alerts SET read_at = ? WHERE read_at IS NULL').run(at).changes;
  }

  deleteForList(listId: string): void {
    this.c.st('DELETE FROM watch_alerts WHERE watchlist_id = ?').run(listId);
  }
}
