/**
 * Availability after re-checks (issue 29; docs/datasets.md "Re-check and attrition"), on the
 * archive's connection: the items a re-check reads, the marks a re-check leaves (`checked_at`,
 * `missing_since`, migration 0013), and the attrition table of a query. An item found missing is
 * never deleted: it keeps every row, reading and annotation it had.
 */
import type { AttritionRow } from '../../shared/contract-datasets';
import type { LibraryQuery } from '../../shared/query';
import type { ItemRef } from '../ports';
import type { ArchiveCtx, ReadCtx } from './context';
import { buildWhere, parseQuery } from './sql-query';
import { sql, where } from './sql';

/** An item a re-check may read again: its key and its address. */
export interface RecheckRow extends ItemRef {
  url: string | null;
}

export type { AttritionRow };

/** The last attempt the ledger holds for one exact call of one source (not a dry run). */
export interface LastAttempt {
  callId: string;
  startedAt: number;
  status: number | null;
  errorType: string | null;
}

export function recheckRows(c: ReadCtx, input: LibraryQuery): RecheckRow[] {
  const w = buildWhere(parseQuery(input));
  return c.sql
    .rows<[string, string, string, string | null]>(
      sql`SELECT i.platform, i.kind, i.id, i.url FROM items i WHERE ${where(w)} ORDER BY i.rid`,
    )
    .map(([platform, kind, id, url]) => ({ platform, kind, id, url }));
}

/**
 * A re-check's answer for one item at `at`: found (`missing` false: available again if it was
 * missing before `at`) or not found (`missing_since` keeps the first time it was found missing).
 * Returns false when the item is not in the archive.
 */
export function markChecked(c: ArchiveCtx, ref: ItemRef, at: number, missing: boolean): boolean {
  const r = c.sql.run(
    sql`UPDATE items SET checked_at = max(COALESCE(checked_at, ${at}), ${at}),
          missing_since = CASE WHEN ${missing ? 1 : 0} THEN min(COALESCE(missing_since, ${at}), ${at}) WHEN missing_since <= ${at} THEN NULL
                               ELSE missing_since END
        WHERE platform = ${ref.platform} AND kind = ${ref.kind} AND id = ${ref.id}`,
  );
  return r.changes > 0;
}

export function attrition(c: ReadCtx, input: LibraryQuery): AttritionRow[] {
  const w = buildWhere(parseQuery(input));
  const rows = c.sql.rows<[string, string | null, number, number, number]>(
    sql`SELECT i.platform, CASE WHEN i.published_at IS NULL OR i.published_at < -62167219200000 OR i.published_at > 253402300799999 THEN NULL
                              ELSE strftime('%Y-%m', i.published_at / 1000, 'unixepoch') END AS month,
              sum(i.checked_at IS NOT NULL AND i.missing_since IS NULL), sum(i.missing_since IS NOT NULL), sum(i.checked_at IS NULL AND i.missing_since IS NULL)
         FROM items i WHERE ${where(w)} GROUP BY 1, 2 ORDER BY 1, month IS NULL, month`,
  );
  return rows.map(([platform, month, available, unavailable, notRechecked]) => ({ platform, month, available, unavailable, notRechecked }));
}

export function lastAttempt(c: ReadCtx, source: string, platform: string, endpoint: string, paramsHash: string): LastAttempt | undefined {
  const r = c.sql.rows<[string, number, number | null, string | null]>(
    sql`SELECT call_id, started_at, status, error_type FROM calls
        WHERE source = ${source} AND platform = ${platform} AND endpoint = ${endpoint} AND params_hash = ${paramsHash} AND dry_run = 0
        ORDER BY started_at DESC, id DESC LIMIT 1`,
  )[0];
  return r ? { callId: r[0], startedAt: r[1], status: r[2], errorType: r[3] } : undefined;
}
