/**
 * The library query's `thread` (issue 27 #12) as SQL: the comments and replies under one post, at
 * any depth — a recursive walk down `parent_id` within the post's network, one lookup of
 * `items_parent` (migration 0021) per item found. UNION (not UNION ALL) stops at an item already
 * found, so a cycle in hostile data ends the walk. The post itself is not in the set.
 */
export function threadCondition(t: { platform: string; id: string }): { sql: string; params: string[] } {
  return {
    sql: `i.rid IN (WITH RECURSIVE th(rid, id) AS (
            SELECT rid, id FROM items WHERE platform = ? AND parent_id = ?
            UNION SELECT c.rid, c.id FROM th JOIN items c ON c.platform = ? AND c.parent_id = th.id
          ) SELECT rid FROM th)`,
    params: [t.platform, t.id, t.platform],
  };
}
