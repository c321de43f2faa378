import type Database from 'better-sqlite3';

/**
 * When each named key last made a call (the ledger's newest attempt per key name): Settings shows
 * it so a rotation can be confirmed ("the new key is in use") before the old key is revoked.
 */
export function lastUsedByKey(db: Database.Database): Map<string, number> {
  const rows = db.prepare('SELECT key_name AS name, max(started_at) AS at FROM calls WHERE key_name IS NOT NULL GROUP BY key_name').all() as Array<{ name: string; at: number }>;
  return new Map(rows.map((r) => [r.name, r.at]));
}
