/**
 * The alert inbox's table (migration 0017-watch-alerts, issue 27 #1): what a watchlist run raised,
 * in which run of which list, read or not. Reached as `archive.watchlists.alerts`.
 */
import type { ArchiveCtx } from './context';
import { raw, sql } from './sql';

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
  /** e-mail delivery (migration 0022): null when no e-mail was configured when it was raised */
  email?: AlertEmailState | null;
  /** the items it names, for a message sent later (up to 20) */
  itemList?: AlertItem[];
}

export type EmailState = 'pending' | 'sending' | 'sent' | 'failed';

export interface AlertEmailState {
  state: EmailState;
  /** the last failure's cause, in words */
  error: string | null;
  tries: number;
  /** the last attempt (or the claim) */
  at: number | null;
}

export interface AlertItem {
  id: string;
  text: string | null;
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
  email_state: EmailState | null;
  email_error: string | null;
  email_tries: number;
  email_at: number | null;
  items_json: string | null;
}

function items(json: string | null): AlertItem[] {
  if (!json) return [];
  try {
    const v = JSON.parse(json) as unknown;
    return Array.isArray(v) ? v.filter((x): x is AlertItem => !!x && typeof (x as AlertItem).id === 'string') : [];
  } catch {
    return [];
  }
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
  email: r.email_state ? { state: r.email_state, error: r.email_error, tries: r.email_tries, at: r.email_at } : null,
  itemList: items(r.items_json),
});

/** a claim older than this is taken for a process that stopped mid-send */
const STALE_CLAIM_MS = 10 * 60_000;
const UNREAD = raw('WHERE read_at IS NULL');
const ALL = raw('');

export class WatchAlertStore {
  constructor(private readonly c: ArchiveCtx) {}

  insert(a: AlertRow): void {
    this.c.sql.insert`watch_alerts`({
      alert_id: a.alertId,
      watchlist_id: a.watchlistId,
      run_id: a.runId,
      kind: a.kind,
      at: a.at,
      items: a.items,
      expected: a.expected,
      summary: a.summary,
      read_at: a.readAt,
      email_state: a.email?.state ?? null,
      items_json: a.itemList?.length ? JSON.stringify(a.itemList.slice(0, 20)) : null,
    });
  }

  get(alertId: string): AlertRow | undefined {
    const r = this.c.sql.get<AlertDb>(sql`SELECT * FROM watch_alerts WHERE alert_id = ${alertId}`);
    return r ? fromDb(r) : undefined;
  }

  /** Alerts still to e-mail (pending, failed, or claimed by a process that stopped), oldest first. */
  emailDue(now: number, limit = 50): AlertRow[] {
    return this.c.sql
      .all<AlertDb>(
        sql`SELECT * FROM watch_alerts WHERE email_state IN ('pending', 'failed') OR (email_state = 'sending' AND email_at < ${now - STALE_CLAIM_MS})
            ORDER BY at, rowid LIMIT ${limit}`,
      )
      .map(fromDb);
  }

  /** Takes an alert for sending; false when another process has it or it is sent (one message per alert). */
  claimEmail(alertId: string, now: number): boolean {
    return (
      this.c.sql.run(
        sql`UPDATE watch_alerts SET email_state = 'sending', email_at = ${now} WHERE alert_id = ${alertId}
              AND (email_state IN ('pending', 'failed') OR (email_state = 'sending' AND email_at < ${now - STALE_CLAIM_MS}))`,
      ).changes === 1
    );
  }

  /** How a claimed send ended: sent, or failed with its cause (retried on the next run). */
  emailDone(alertId: string, now: number, error: string | null): void {
    this.c.sql.run(
      sql`UPDATE watch_alerts SET email_state = ${error === null ? 'sent' : 'failed'}, email_error = ${error}, email_tries = email_tries + 1,
            email_at = ${now} WHERE alert_id = ${alertId}`,
    );
  }

  /** Newest first; only the unread ones when asked. */
  list(o: { unreadOnly?: boolean; limit?: number } = {}): AlertRow[] {
    return this.c.sql
      .all<AlertDb>(sql`SELECT * FROM watch_alerts ${o.unreadOnly ? UNREAD : ALL} ORDER BY at DESC, rowid DESC LIMIT ${o.limit ?? 200}`)
      .map(fromDb);
  }

  unread(): number {
    return this.c.sql.value<number>(sql`SELECT count(*) AS n FROM watch_alerts WHERE read_at IS NULL`) ?? 0;
  }

  /** Marks these alerts read (or unread: `at` null); returns how many changed. */
  setRead(ids: string[], at: number | null): number {
    const one = (id: string) =>
      at === null
        ? this.c.sql.run(sql`UPDATE watch_alerts SET read_at = NULL WHERE alert_id = ${id} AND read_at IS NOT NULL`)
        : this.c.sql.run(sql`UPDATE watch_alerts SET read_at = ${at} WHERE alert_id = ${id} AND read_at IS NULL`);
    return this.c.tx(() => ids.reduce((n, id) => n + one(id).changes, 0));
  }

  /** Every unread alert marked read; returns how many. */
  readAll(at: number): number {
    return this.c.sql.run(sql`UPDATE watch_alerts SET read_at = ${at} WHERE read_at IS NULL`).changes;
  }

  deleteForList(listId: string): void {
    this.c.sql.run(sql`DELETE FROM watch_alerts WHERE watchlist_id = ${listId}`);
  }
}
