import { splitsOtherwise } from '../../../shared/spaceless';
import { sql, Statements } from '../sql';
import type { Migration } from './types';

/**
 * The items whose text the full-text index splits otherwise than the frequency tables' words
 * (src/shared/spaceless.ts; docs/analysis.md "Frequency tables"): a script written without spaces
 * (the tables segment it with Intl.Segmenter, FTS5 keeps a run of letters as one token:
 * "Fernwayのnewspaper") or an invisible format character. A term's click-through adds these items
 * to what the full-text index finds, so it counts exactly what the table counts; they are marked
 * in `items.spaceless` (extract.ts sets it on every ingest and merge) and listed by the partial
 * index `items_spaceless` — empty in an archive without such texts, so the others pay nothing.
 *
 * Existing rows are read in batches of BATCH by rid (their text only) and the marked ones
 * updated; the runner's one transaction covers the step. Progress goes to the runner's reporter.
 */
const BATCH = 10_000;

export const migration0012: Migration = {
  version: 12,
  name: 'spaceless-texts',
  up(db, progress) {
    db.exec('ALTER TABLE items ADD COLUMN spaceless INTEGER NOT NULL DEFAULT 0');
    const s = new Statements(db);
    const total = s.value<number>(sql`SELECT count(*) FROM items`) ?? 0;
    let after = 0;
    let done = 0;
    for (;;) {
      const rows = s.rows<[number, string | null]>(sql`SELECT rid, text FROM items WHERE rid > ${after} ORDER BY rid LIMIT ${BATCH}`);
      if (rows.length === 0) break;
      for (const [rid, text] of rows) if (splitsOtherwise(text)) s.run(sql`UPDATE items SET spaceless = 1 WHERE rid = ${rid}`);
      done += rows.length;
      after = rows[rows.length - 1][0];
      progress?.(done, total, 'marking texts in scripts without spaces');
    }
    db.exec('CREATE INDEX items_spaceless ON items (rid) WHERE spaceless = 1');
  },
};
export default migration0012;
