/**
 * The rehydrations of dehydrated bundles (migration 0024, docs/datasets.md "Rehydrate"): which plan
 * re-collects which bundle, and every item key the bundle names with what became of it.
 */
import type { ItemRef } from '../ports';
import type { ArchiveCtx } from './context';
import { sql } from './sql';

export type RehydratedState = 'pending' | 'recollected' | 'held' | 'unavailable' | 'missing' | 'failed';

export interface RehydrationRow {
  planId: string;
  root: string;
  path: string;
  quote: unknown;
  createdAt: number;
}

export interface RehydratedItem extends ItemRef {
  state: RehydratedState;
  reason: string | null;
  at: number;
}

/** One call that returned an item: where and when (what says whether it is this rehydration's). */
export interface ItemDelivery {
  platform: string;
  endpoint: string;
  source: string;
  fetchedAt: number;
}

export class RehydrationStore {
  constructor(private readonly c: ArchiveCtx) {}

  /** Records a rehydration and its bundle's item keys (each `pending`), in one transaction. */
  insert(r: RehydrationRow, items: ItemRef[]): void {
    this.c.guard('write', () =>
      this.c.tx(() => {
        const quote = r.quote === undefined ? null : JSON.stringify(r.quote);
        this.c.sql.run(
          sql`INSERT INTO rehydrations (plan_id, bundle_root, bundle_path, quote, created_at) VALUES (${r.planId}, ${r.root}, ${r.path}, ${quote}, ${r.createdAt})`,
        );
        for (const i of items)
          this.c.sql.run(
            sql`INSERT OR IGNORE INTO rehydrated_items (plan_id, platform, kind, id, state, reason, at)
                VALUES (${r.planId}, ${i.platform}, ${i.kind}, ${i.id}, 'pending', NULL, ${r.createdAt})`,
          );
      }),
    );
  }

  /** The latest rehydration of a bundle (by its root hash). */
  latest(root: string): RehydrationRow | undefined {
    return this.c.guard('read', () => {
      const r = this.c.sql.get<{ planId: string; root: string; path: string; quote: string | null; createdAt: number }>(
        sql`SELECT plan_id AS planId, bundle_root AS root, bundle_path AS path, quote, created_at AS createdAt
            FROM rehydrations WHERE bundle_root = ${root} ORDER BY created_at DESC LIMIT 1`,
      );
      return r ? { ...r, quote: r.quote === null ? null : (JSON.parse(r.quote) as unknown) } : undefined;
    });
  }

  items(planId: string): RehydratedItem[] {
    return this.c.guard('read', () =>
      this.c.sql.all<RehydratedItem>(
        sql`SELECT platform, kind, id, state, reason, at FROM rehydrated_items WHERE plan_id = ${planId} ORDER BY platform, kind, id`,
      ),
    );
  }

  /** Writes what became of each item (one transaction). */
  settle(planId: string, rows: Array<ItemRef & { state: RehydratedState; reason: string | null }>, at: number): void {
    this.c.guard('write', () =>
      this.c.tx(() => {
        for (const r of rows)
          this.c.sql.run(
            sql`UPDATE rehydrated_items SET state = ${r.state}, reason = ${r.reason}, at = ${at}
                WHERE plan_id = ${planId} AND platform = ${r.platform} AND kind = ${r.kind} AND id = ${r.id}`,
          );
      }),
    );
  }

  /** The stored answers that returned an item (none when the archive does not hold it). */
  deliveries(ref: ItemRef): ItemDelivery[] {
    return this.c.guard('read', () =>
      this.c.sql.all<ItemDelivery>(
        sql`SELECT r.platform, r.endpoint, r.source, r.fetched_at AS fetchedAt FROM items i JOIN provenance p ON p.item_rid = i.rid
              JOIN responses r ON r.call_id = p.call_id WHERE i.platform = ${ref.platform} AND i.kind = ${ref.kind} AND i.id = ${ref.id}`,
      ),
    );
  }

  /** The rehydrations whose bundle named an item: the item's link back to its bundles. */
  bundlesOf(ref: ItemRef): Array<{ root: string; state: RehydratedState; at: number }> {
    return this.c.guard('read', () =>
      this.c.sql.all<{ root: string; state: RehydratedState; at: number }>(
        sql`SELECT h.bundle_root AS root, x.state, x.at FROM rehydrated_items x JOIN rehydrations h ON h.plan_id = x.plan_id
            WHERE x.platform = ${ref.platform} AND x.kind = ${ref.kind} AND x.id = ${ref.id} ORDER BY x.at`,
      ),
    );
  }
}
