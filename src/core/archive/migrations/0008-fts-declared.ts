import { sql, Statements } from '../sql';
import type { Migration } from './types';

/**
 * The full-text index declared the way Datasette and sqlite-utils look for it (issue 16), so
 * `items?_search=` in Datasette and `sqlite-utils search loupe.db items …` use it. Both detect a
 * table's index from its `CREATE VIRTUAL TABLE` text in sqlite_master: `…USING FTS…content="items"…`
 * (or `content=[items]`), matched with LIKE — the text 0001 wrote, `content = 'items'`, does not
 * match (spaces, single quotes). The index is the same: same columns, tokenizer, external
 * content and rowid, `columnsize=0`; the triggers that keep it in sync (0001) name it and stay.
 *
 * SQLite keeps that text as written and better-sqlite3 opens connections in defensive mode (no
 * writable_schema, shadow tables read-only), so the declaration cannot be edited in place nor
 * the index copied: the table is created again and rebuilt from `items` (one pass over the
 * archive's text, once: seconds per 100,000 items). An empty archive pays nothing. The rebuild is
 * one statement: a listening caller hears it as one step (0 of N items, then N of N).
 */
export const FTS_DECLARATION = `CREATE VIRTUAL TABLE items_fts USING fts5 (
  text, author_username, author_display_name,
  content="items", content_rowid="rid",
  tokenize="unicode61 remove_diacritics 2",
  columnsize=0
)`;

export const migration0008: Migration = {
  version: 8,
  name: 'fts-declared',
  up(db, progress) {
    const items = progress ? (new Statements(db).value<number>(sql`SELECT count(*) FROM items`) ?? 0) : 0;
    progress?.(0, items, 'rebuilding the search index');
    db.exec('DROP TABLE items_fts');
    db.exec(FTS_DECLARATION);
    db.exec("INSERT INTO items_fts (items_fts) VALUES ('rebuild')");
    progress?.(items, items, 'rebuilding the search index');
  },
};
export default migration0008;
