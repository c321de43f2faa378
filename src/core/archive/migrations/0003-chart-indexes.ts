import type { Migration } from './types';

/**
 * Chart (aggregate) index, docs/archive.md "Aggregates".
 *
 * `volumeOverTime` / `engagementOverTime` with a platform (and kind) filter used to read
 * every matching item through the unique key (platform, kind, id) and then fetch each
 * (fat) row for `published_at`: ~1 s for 200 000 rows of one platform at 1M items.
 * `(platform, kind, published_at)` makes volume-per-day an index-only range scan
 * (~10 ms per 40 000 rows) for a platform list, a platform + kind list, and counts of
 * platform / kind filters. Items keep the unique key for upserts.
 */
const SQL = /* sql */ `
CREATE INDEX items_platform_kind_published ON items (platform, kind, published_at);
`;

export const migration0003: Migration = {
  version: 3,
  name: 'chart-indexes',
  up(db) {
    db.exec(SQL);
  },
};
export default migration0003;
