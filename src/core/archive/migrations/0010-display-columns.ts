import type { Migration } from './types';
import type { Db } from '../connection';
import { extractColumns, type Columns, type Json } from '../extract';
import { assignments, raw, sql, Statements } from '../sql';

/**
 * One definition of what an item shows (issue 13, src/shared/record-fields.ts): the archive's
 * columns and the renderer's table now come from the same readers. This step adds the two
 * columns the views showed from the record (`followers`, `title`) and re-extracts, from every
 * stored record, the columns whose rule changed (text, author, date, counts): a post with only
 * `ext.post_title` gets that title as its text, `created_at` dates an item without
 * `published_at`, top-level `like_count` / `view_count` count, a post's top-level `username` /
 * `handle` names its author…
 *
 * Rows are read in batches of BATCH by rid (constant memory) and written only when a value
 * changed, so the full-text index (`items_fts`, kept by the 0001 triggers on text / author) and
 * the analysis index's change log (triggers on text, date and counts) follow exactly the rows
 * that changed. The runner's one transaction covers the whole step (a failure leaves the file
 * as it was). Progress goes, after each batch, to the runner's reporter when its caller listens
 * (the doors: ../prepare.ts); without one, on an archive of REPORT_FROM items or more, to stderr.
 */
export const REEXTRACTED = [
  'published_at',
  'author_id',
  'author_username',
  'author_display_name',
  'text',
  'views',
  'likes',
  'comments',
  'shares',
  'saves',
  'followers',
  'title',
] as const satisfies ReadonlyArray<keyof Columns>;

const BATCH = 5000;
const REPORT_FROM = 50_000;

export interface ReextractResult {
  /** rows read */
  items: number;
  /** rows whose columns changed */
  changed: number;
}

type Row = { rid: number; kind: string; raw: string } & Pick<Columns, (typeof REEXTRACTED)[number]>;

/** Re-extracts REEXTRACTED for every item; runs inside the caller's transaction. */
export function reextractColumns(db: Db, progress?: (done: number, total: number) => void, batch = BATCH): ReextractResult {
  const s = new Statements(db);
  const total = s.value<number>(sql`SELECT count(*) FROM items`) ?? 0;
  const report = progress ?? (total >= REPORT_FROM ? stderrProgress : undefined);
  const cols = raw(REEXTRACTED.join(', '));
  let after = 0;
  let items = 0;
  let changed = 0;
  for (;;) {
    const rows = s.all<Row>(sql`SELECT rid, kind, raw, ${cols} FROM items WHERE rid > ${after} ORDER BY rid LIMIT ${batch}`);
    if (rows.length === 0) break;
    for (const r of rows) {
      let rec: unknown;
      try {
        rec = JSON.parse(r.raw);
      } catch {
        continue; // not a record Loupe wrote: its columns stay as they are
      }
      if (typeof rec !== 'object' || rec === null || Array.isArray(rec)) continue;
      const x = extractColumns(r.kind, rec as Json);
      if (REEXTRACTED.some((c) => x[c] !== r[c])) {
        s.run(sql`UPDATE items SET ${assignments(REEXTRACTED, x)} WHERE rid = ${r.rid}`);
        changed++;
      }
    }
    items += rows.length;
    after = rows[rows.length - 1].rid;
    report?.(items, total);
  }
  return { items, changed };
}

function stderrProgress(done: number, total: number): void {
  process.stderr.write(
    `[loupe] updating the archive's columns (migration 0010): ${done.toLocaleString('en')} of ${total.toLocaleString('en')} items\n`,
  );
}

export const migration0010: Migration = {
  version: 10,
  name: 'display-columns',
  up(db, progress) {
    db.exec('ALTER TABLE items ADD COLUMN followers INTEGER');
    db.exec('ALTER TABLE items ADD COLUMN title TEXT');
    reextractColumns(db, progress && ((done, total) => progress(done, total, "re-reading each item's columns")));
  },
};
export default migration0010;
