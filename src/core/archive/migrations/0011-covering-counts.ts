import type { Migration } from './types';

/**
 * Counts beside the chart indexes, docs/archive.md "Aggregates" (issue 16).
 *
 * A chart of the counts of many filtered items (items per decade of views for one platform,
 * of likes since a date) read each matching row of the wide `items` table (`raw` is its fifth
 * column, a row is about half a 4 KB page): ~100 000 pages for 200 000 items of one platform,
 * 10-14 s at 1M posts with the pages not yet cached. With the five counts in the two indexes a
 * platform / kind / date filter already uses, those charts read the index alone.
 * `items_platform_kind_published` and `items_published` keep their names and their leading
 * columns (every plan that used them still does). One statement per index; the runner's
 * transaction covers both.
 */
const SQL = /* sql */ `
DROP INDEX items_platform_kind_published;
CREATE INDEX items_platform_kind_published ON items (platform, kind, published_at, views, likes, comments, shares, saves);
DROP INDEX items_published;
CREATE INDEX items_published ON items (published_at, views, likes, comments, shares, saves);
`;

export const migration0011: Migration = {
  version: 11,
  name: 'covering-counts',
  up(db) {
    db.exec(SQL);
  },
};
export default migration0011;
