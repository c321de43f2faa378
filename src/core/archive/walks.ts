/**
 * The walks (`walks`): a walk's state, saved after every page, and its owner process (migration
 * 0005; docs/archive.md "Walks and their owner").
 */
import type { WalkOwner, WalkState, WalkStatus } from '../ports';
import type { ArchiveCtx } from './context';
import { currentOwner, ownerAlive } from './owner';
import { sql } from './sql';

interface WalkRow {
  owner_pid?: number | null;
  owner_host?: string | null;
  owner_start?: string | null;
  walk_id: string;
  platform: string;
  endpoint: string;
  params: string;
  cursor_param: string;
  cursor: string | null;
  pages_done: number;
  credits_spent: number;
  items_seen: number;
  status: WalkStatus;
  stop_reason: string | null;
  source: string;
  created_at: number;
  updated_at: number;
  error: string | null;
  restarts?: number | null;
  rewalk_at?: number | null;
}
/**
 * A walk as readers see it: saved `running` by a process that is gone → `interrupted`
 * (owner.ts). A walk without a recorded owner was saved before migration 0005, by a Loupe that
 * can no longer write this file: gone too. Another host's walk cannot be checked: still running.
 */
function walkFromRow(r: WalkRow): WalkState {
  const owner: WalkOwner | null =
    r.owner_pid != null && r.owner_host != null && r.owner_start != null
      ? { pid: r.owner_pid, host: r.owner_host, start: r.owner_start }
      : null;
  let status = r.status;
  if (status === 'running' && (owner === null || ownerAlive(owner) === false)) status = 'interrupted';
  return {
    walkId: r.walk_id,
    platform: r.platform,
    endpoint: r.endpoint,
    params: r.params,
    cursorParam: r.cursor_param,
    cursor: r.cursor,
    pagesDone: r.pages_done,
    creditsSpent: r.credits_spent,
    itemsSeen: r.items_seen,
    status,
    stopReason: r.stop_reason,
    source: r.source,
    createdAt: r.created_at,
    updatedAt: r.updated_at,
    error: r.error,
    restarts: r.restarts ?? 0,
    rewalkAt: r.rewalk_at ?? null,
    owner,
  };
}

/**
 * Saves the walk and records the calling process as its owner (`w.owner` is ignored): a walk
 * saved `running` by a process that is gone reads back as `interrupted`.
 */
export function saveWalk(c: ArchiveCtx, w: WalkState): void {
  const o = currentOwner();
  c.sql
    .insert`walks ON CONFLICT (walk_id) DO UPDATE SET platform = excluded.platform, endpoint = excluded.endpoint, params = excluded.params,
       cursor_param = excluded.cursor_param, cursor = excluded.cursor, pages_done = excluded.pages_done,
       credits_spent = excluded.credits_spent, items_seen = excluded.items_seen, status = excluded.status,
       stop_reason = excluded.stop_reason, source = excluded.source, created_at = excluded.created_at,
       updated_at = excluded.updated_at, error = excluded.error, owner_pid = excluded.owner_pid,
       owner_host = excluded.owner_host, owner_start = excluded.owner_start, restarts = excluded.restarts, rewalk_at = excluded.rewalk_at`({
    walk_id: w.walkId,
    platform: w.platform,
    endpoint: w.endpoint,
    params: w.params,
    cursor_param: w.cursorParam,
    cursor: w.cursor,
    pages_done: w.pagesDone,
    credits_spent: w.creditsSpent,
    items_seen: w.itemsSeen,
    status: w.status,
    stop_reason: w.stopReason,
    source: w.source,
    created_at: w.createdAt,
    updated_at: w.updatedAt,
    error: w.error,
    owner_pid: o.pid,
    owner_host: o.host,
    owner_start: o.start,
    restarts: w.restarts ?? 0,
    rewalk_at: w.rewalkAt ?? null,
  });
}

/** The walk; one saved `running` whose owner process is gone reads `interrupted`. */
export function getWalk(c: ArchiveCtx, walkId: string): WalkState | undefined {
  const r = c.sql.get<WalkRow>(sql`SELECT * FROM walks WHERE walk_id = ${walkId}`);
  return r ? walkFromRow(r) : undefined;
}

/**
 * Newest activity first. Statuses are as read (`interrupted` for a running walk whose owner is
 * gone), and the filter applies to them: `running` lists only walks whose owner is alive.
 */
export function listWalks(c: ArchiveCtx, filter?: { status?: WalkStatus[] }): WalkState[] {
  const st = filter?.status;
  if (st && st.length > 0) {
    // an interrupted walk is stored as running
    const stored = JSON.stringify([...new Set(st.map((s) => (s === 'interrupted' ? 'running' : s))), 'interrupted']);
    return c.sql
      .all<WalkRow>(sql`SELECT * FROM walks WHERE status IN (SELECT value FROM json_each(${stored})) ORDER BY updated_at DESC, walk_id`)
      .map(walkFromRow)
      .filter((w) => st.includes(w.status));
  }
  return c.sql.all<WalkRow>(sql`SELECT * FROM walks ORDER BY updated_at DESC, walk_id`).map(walkFromRow);
}
